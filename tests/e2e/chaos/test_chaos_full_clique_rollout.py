"""The two states in which the two-replica chaos run can leave a GB200 disaggregated DGD
Pending for good, made on purpose on the two-rack profile (kube-sim packs GPU pods onto the
fullest node, so rack r0 fills first; the DRA driver, and kube-sim, bind a ComputeDomain to
the clique of its first pod and never split it):
1. r0 has one free tray when the graph starts: one worker takes it, the other stays Pending
   (what chaos-40 showed: "PrefillWorker: 0 of 1 updated replicas available" until the end);
3. r0 is full and an engine edit rolls the workers to a new generation: its surge pods may
   only join r0, stay Pending, and the old generation keeps serving.
And the way out a user has (docs/api.md §5.1): with upstream's rollout annotations asking for
maxSurge 0, the same edit on a full r0 stops the old pod first and completes.
Each time the DGD must say why: Placement=False/NVLinkClique naming r0, stable at rest, and
Ready=False; once a tray frees it completes and is Ready. chaoslib.py counts a DGD in such a
state (confirmed from kube-sim's pods and nodes) as refused by a full clique, not a mismatch."""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "placement"))
from placement_lib import OperatorEnv, node_clique, pods_by_type, wait_placement, wait_until  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from chaoslib import ClusterView  # noqa: E402
from gb200_cliques import R0, clique_filler  # noqa: E402

RECIPE = "deepseek-v4.1-flash/vllm/disagg-gb200-agentic"
FILLER = clique_filler(R0, 17)


def ready_condition(env, name):
    d = env.dgd(name) or {}
    return next((c for c in d.get("status", {}).get("conditions", []) if c["type"] == "Ready"), None)


def wait_ready_false(env, name, reason, text):
    return wait_until("Ready=False/%s on %s" % (reason, name), lambda: (
        lambda r: r if r and r["status"] == "False" and r.get("reason") == reason and text in r.get("message", "")
        else None)(ready_condition(env, name)))


def wait_ready_true(env, name):
    return wait_until("Ready=True on %s" % name, lambda: (
        lambda r: r if r and r["status"] == "True" else None)(ready_condition(env, name)), timeout=120)


def wait_clique_refusal(env, name):
    c = wait_placement(env, name, "False")
    assert c["reason"] == "NVLinkClique" and ("must join nvidia.com/gpu.clique " + R0) in c["message"], c
    return c


def check_sees(env, clique):
    """chaoslib's confirmation of a full clique (what lets the chaos check accept the DGD)
    agrees with this state; a clique held by pods of a namespace it treats as gone is never
    confirmed (they would go away)."""
    view = ClusterView(env.sim)
    assert view.full_clique("dynamo", {"dynamo", "default"}) == clique, clique
    assert view.full_clique("dynamo", {"dynamo"}) is None


def main():
    with OperatorEnv("gb200-2rack") as env:
        env.kubectl("apply", "-f", "-", input=json.dumps(FILLER))
        env.kubectl("rollout", "status", "deploy/filler", "-n", "default", "--timeout=60s", timeout=90)

        # 1. r0 has one free tray: the first worker takes it and fixes the domain's clique; the
        # second stays Pending (chaos-40's message: "<component>: 0 of 1 updated replicas available").
        name = env.apply_recipe(RECIPE)
        c = wait_clique_refusal(env, name)
        r = wait_ready_false(env, name, "ComponentsNotReady", "0 of 1 updated replicas available")
        assert "PrefillWorker" in r["message"] or "DecodeWorker" in r["message"], r
        assert wait_placement(env, name, "False") == c  # stable at rest
        check_sees(env, R0)

        # 2. A tray frees: both workers in r0, Ready. r0 is full again (16 + 2 of 18 trays).
        env.kubectl("scale", "deploy/filler", "-n", "default", "--replicas=16")
        wait_ready_true(env, name)
        pods = pods_by_type(env, name)
        nodes = [p["spec"]["nodeName"] for t in ("prefill", "decode") for p in pods[t]]
        assert len(nodes) == 2 and {node_clique(env, n) for n in nodes} == {R0}, nodes

        # 3. An engine edit of the prefill worker: a new worker generation surges one new pod
        # per worker (maxUnavailable 0), which may only join the full r0; the old generation
        # keeps serving.
        d = env.dgd(name)
        prefill = next(i for i, comp in enumerate(d["spec"]["components"]) if comp["type"] == "prefill")
        patch = [{"op": "add", "path": "/spec/components/%d/engine/maxNumSeqs" % prefill, "value": 64}]
        env.kubectl("patch", "dgd", name, "-n", "dynamo", "--type=json", "-p", json.dumps(patch))
        c = wait_clique_refusal(env, name)
        r = wait_ready_false(env, name, "rolling_update_in_progress", "PrefillWorker: ")
        assert "1 replicas of the previous worker generation left" in r["message"], r
        serving = [p for p in pods_by_type(env, name)["prefill"] if p["spec"].get("nodeName")]
        assert len(serving) == 1, [p["metadata"]["name"] for p in serving]
        assert wait_placement(env, name, "False") == c
        check_sees(env, R0)

        # 4. Two trays free, one per new worker: the rollout completes, Ready. (With one, the
        # new generation could never be complete, and the old one keeps serving.)
        env.kubectl("scale", "deploy/filler", "-n", "default", "--replicas=14")
        wait_placement(env, name, "True")
        wait_ready_true(env, name)
        assert ClusterView(env.sim).full_clique("dynamo", {"dynamo", "default"}) is None

        # 5. r0 full again, and the graph asks for maxSurge 0: an engine edit now stops the old
        # generation first (one replica each: nothing may stay), its trays take the new one,
        # and the rollout completes in r0.
        env.kubectl("scale", "deploy/filler", "-n", "default", "--replicas=16")
        env.kubectl("rollout", "status", "deploy/filler", "-n", "default", "--timeout=60s", timeout=90)  # 16 + 2 of 18
        d = env.dgd(name)
        d["spec"].setdefault("annotations", {}).update({
            "nvidia.com/deployment-rolling-update-max-surge": "0",
            "nvidia.com/deployment-rolling-update-max-unavailable": "1"})
        d["spec"]["components"][prefill]["engine"]["maxNumSeqs"] = 32
        env.kubectl("replace", "-f", "-", input=json.dumps(d))
        wait_until("strategy maxSurge 0 on the prefill Deployment", lambda: (
            lambda dep: dep if dep and dep["spec"].get("strategy", {}).get("rollingUpdate", {}).get("maxSurge") == 0
            else None)(env.deployment_of(name, "PrefillWorker", "dynamo")))
        wait_until("generation observed", lambda: (
            lambda d2: d2 if d2.get("status", {}).get("observedGeneration") == d2["metadata"]["generation"] else None)(
                env.dgd(name)))
        wait_ready_true(env, name)
        pods = pods_by_type(env, name)
        nodes = [p["spec"]["nodeName"] for t in ("prefill", "decode") for p in pods[t]]
        assert len(nodes) == 2 and {node_clique(env, n) for n in nodes} == {R0}, nodes


if __name__ == "__main__":
    main()
    print("ok")
