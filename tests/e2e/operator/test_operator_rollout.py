"""Honest Ready and scoped edits on a simulated 4x H200 cluster (kube-sim --profile).

  - the recipe's own waits succeed: pods by the DGD label, then dgd/<name>;
    `kubectl get svc <dgd>-frontend` serves port 8000;
  - replicas changed: that component scales, no other pod is replaced;
  - an engine flag of one worker changed: every worker rolls to a new generation, the
    frontend does not, and Ready stays False (reason rolling_update_in_progress, naming the
    component) until every pod of the new generation is ready (new pods held unready
    through the kubelet's per-pod annotation sim.dgd.dev/ready, then released);
  - one pod made unready: Ready=False naming its component; back to True when it recovers;
  - observedGeneration follows metadata.generation.
"""
import json

from oplib import OperatorEnv, condition, wait_until

RECIPE = "deepseek-v4.1-flash/vllm/disagg-h200-agentic"
NS = "dynamo"
READY_ANN = "sim.dgd.dev/ready"


def pods_of(env, name, component):
    sel = "nvidia.com/dynamo-graph-deployment-name=%s,nvidia.com/dynamo-component=%s" % (name, component)
    return {p["metadata"]["name"]: p for p in env.items("pods", NS, sel)
            if not p["metadata"].get("deletionTimestamp")}


def ready_cond(env, name):
    d = env.dgd(name, NS)
    return d, condition(d, "Ready")


def main():
    with OperatorEnv(profile="h200-4x", local=True) as env:
        name = env.apply_recipe(RECIPE, NS)
        env.wait_ready(name, NS)
        svc = env.get("svc", name + "-frontend", NS)
        assert 8000 in [p["port"] for p in svc["spec"]["ports"]]
        before = {c: sorted(pods_of(env, name, c)) for c in ("Frontend", "PrefillWorker", "DecodeWorker")}
        assert all(before.values()), before

        # --- replicas: only DecodeWorker changes.
        env.kubectl("patch", "dgd", name, "-n", NS, "--type=json", "-p", json.dumps(
            [{"op": "replace", "path": "/spec/components/2/replicas", "value": 2}]))
        d = env.dgd(name, NS)
        assert d["spec"]["components"][2]["name"] == "DecodeWorker"
        env.wait_ready(name, NS)
        assert env.dgd(name, NS)["status"]["observedGeneration"] == d["metadata"]["generation"]
        assert len(pods_of(env, name, "DecodeWorker")) == 2
        for c in ("Frontend", "PrefillWorker"):
            assert sorted(pods_of(env, name, c)) == before[c], "%s restarted on a replicas edit" % c
        assert set(before["DecodeWorker"]) <= set(pods_of(env, name, "DecodeWorker"))

        # --- an engine flag on PrefillWorker, with the new pods held unready.
        old_prefill = set(pods_of(env, name, "PrefillWorker"))
        old_decode = set(pods_of(env, name, "DecodeWorker"))
        others = {c: sorted(pods_of(env, name, c)) for c in ("Frontend",)}
        env.kubectl("patch", "dgd", name, "-n", NS, "--type=json", "-p", json.dumps([
            {"op": "add", "path": "/spec/components/1/engine/maxNumSeqs", "value": 64},
            {"op": "add", "path": "/spec/components/1/podTemplate/metadata",
             "value": {"annotations": {READY_ANN: "false"}}}]))
        gen = env.dgd(name, NS)["metadata"]["generation"]
        new = wait_until("new PrefillWorker pods", lambda: set(pods_of(env, name, "PrefillWorker")) - old_prefill)
        # While any new pod is unready, Ready stays False and names the component: checked
        # once the new pods run (held unready) and the operator has reconciled after that.
        wait_until("status of the new generation", lambda: env.dgd(name, NS)["status"]["observedGeneration"] == gen)
        wait_until("new PrefillWorker pods running", lambda: all(
            (p.get("status") or {}).get("phase") == "Running"
            for pod, p in pods_of(env, name, "PrefillWorker").items() if pod in new))
        env.reconcile_now(name, NS)
        d, c = ready_cond(env, name)
        assert c["status"] == "False" and "PrefillWorker" in c["message"], c
        assert c["reason"] == "rolling_update_in_progress", c
        assert d["status"]["rollingUpdate"]["phase"] == "InProgress", d["status"]["rollingUpdate"]
        for pod in sorted(new):
            env.kubectl("annotate", "pod", pod, "-n", NS, "--overwrite", READY_ANN + "=true")
        # Pods the rollout creates later carry the annotation too: release them as they come.
        def released():
            for pod, p in pods_of(env, name, "PrefillWorker").items():
                if p["metadata"].get("annotations", {}).get(READY_ANN) == "false":
                    env.kubectl("annotate", "pod", pod, "-n", NS, "--overwrite", READY_ANN + "=true")
            _, c = ready_cond(env, name)
            return c and c["status"] == "True" and c.get("observedGeneration") == gen
        wait_until("Ready after the rollout", released, timeout=120)
        assert not (set(pods_of(env, name, "PrefillWorker")) & old_prefill), "old PrefillWorker pods left"
        assert not (set(pods_of(env, name, "DecodeWorker")) & old_decode), "old DecodeWorker pods left"
        for c, names in others.items():
            assert sorted(pods_of(env, name, c)) == names, "%s rolled on a PrefillWorker flag change" % c
        args = " ".join(env.deployment_of(name, "PrefillWorker", NS)["spec"]["template"]["spec"]
                        ["containers"][0].get("args", []))
        assert "--max-num-seqs 64" in args or "--max-num-seqs=64" in args, args

        # --- one pod made unready.
        victim = sorted(pods_of(env, name, "DecodeWorker"))[0]
        env.kubectl("annotate", "pod", victim, "-n", NS, "--overwrite", READY_ANN + "=false")
        c = wait_until("Ready=False", lambda: (lambda c: c if c["status"] == "False" else None)(ready_cond(env, name)[1]))
        assert "DecodeWorker" in c["message"], c
        env.kubectl("annotate", "pod", victim, "-n", NS, "--overwrite", READY_ANN + "=true")
        env.kubectl("wait", "--for=condition=Ready", "dgd/" + name, "-n", NS, "--timeout=60s", timeout=90)
    print("ok")


if __name__ == "__main__":
    main()
