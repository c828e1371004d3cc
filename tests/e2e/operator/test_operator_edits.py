"""dgd-operator against kube-sim: children, edits, drift and zero writes at rest.

No simulated nodes are needed here: what is checked is what the operator writes.
  - apply -k of a recipe creates every child, each controlled by the DGD, and Events;
  - an invalid edit: SpecValid=False naming the field path, a Warning event, and no
    child written or deleted;
  - a component removed: its Deployment and Service are deleted, nothing else;
  - drift: worker args edited by hand are restored, a Service deleted by hand is re-created;
  - at rest: a reconcile with nothing to do writes nothing, and neither does a restart.
"Nothing written" is checked once the operator has provably processed what came before
(a later generation observed, or a reconcile it was made to run finished: oplib).
"""
import json
import os

import yaml

from oplib import ROOT, recipe_dir, recipe_file, OperatorEnv, condition, wait_until
from components import component_deployment, deployment_name_ok

RECIPE = "deepseek-v4.1-flash/vllm/disagg-h200-agentic"
NS = "dynamo"


def children(env, name):
    out = {}
    for kind in ("deployments", "services", "serviceaccounts", "roles", "rolebindings", "jobs"):
        for o in env.items(kind, NS, "nvidia.com/dynamo-graph-deployment-name=" + name):
            out["%s/%s" % (o["kind"], o["metadata"]["name"])] = o
    return out


def settled(env, name, generation):
    """Status describes `generation` and the operator has gone quiet."""
    d = env.dgd(name, NS)
    return d and (d.get("status") or {}).get("observedGeneration") == generation


def merge_patch(env, name, patch):
    env.kubectl("patch", "dgd", name, "-n", NS, "--type=merge", "-p", json.dumps(patch))
    return env.dgd(name, NS)["metadata"]["generation"]


def main():
    with OperatorEnv(profile=None) as env:
        name = env.apply_recipe(RECIPE, NS)
        uid = wait_until("the DGD", lambda: env.dgd(name, NS))["metadata"]["uid"]

        # --- creation: every child, controlled by the DGD.
        kids = wait_until("children", lambda: (lambda c: c if len(c) >= 9 else None)(children(env, name)))
        for key, o in kids.items():
            refs = [r for r in o["metadata"].get("ownerReferences", []) if r.get("controller")]
            assert len(refs) == 1 and refs[0]["uid"] == uid and refs[0]["blockOwnerDeletion"], (key, refs)
            assert o["metadata"]["labels"]["app.kubernetes.io/managed-by"] == "dgd-operator", key
        for comp in ("Frontend", "PrefillWorker", "DecodeWorker"):
            dep = component_deployment(list(kids.values()), name, comp)
            assert dep and deployment_name_ok(name, comp, dep["metadata"]["name"], worker=comp != "Frontend"), comp
            assert "Service/%s-%s" % (name, comp.lower()) in kids
        svc = env.get("svc", name + "-frontend", NS)
        assert [p["port"] for p in svc["spec"]["ports"]] == [8000], svc["spec"]["ports"]
        wait_until("status", lambda: settled(env, name, 1))
        events = env.items("events", NS)
        created = [e["message"] for e in events if e["reason"] == "ChildCreated" and e["involvedObject"]["uid"] == uid]
        # One event per reconcile pass that created children (not one per child), naming each.
        assert 1 <= len(created) <= 2, created
        for key in kids:
            assert any(key.replace("/", " ", 1) in m for m in created), (key, created)

        # --- an invalid edit changes nothing that serves. The mistake is one only the operator
        # sees (parallelism versus the pod's GPUs): the CRD would refuse one it can express.
        before = {k: o["metadata"]["resourceVersion"] for k, o in children(env, name).items()}
        seq = env.last_seq()
        gen = merge_patch(env, name, {"spec": {"components": [
            {"name": "DecodeWorker", "type": "decode", "engine": {"tensorParallelSize": 3}}]}})
        d = wait_until("SpecValid=False", lambda: (lambda d: d if (condition(d, "SpecValid") or {}).get("status") == "False"
                                                    and d["status"]["observedGeneration"] == gen else None)(env.dgd(name, NS)))
        msg = condition(d, "SpecValid")["message"]
        assert "spec.components[" in msg, msg
        assert condition(d, "Ready")["status"] == "False"
        warn = wait_until("InvalidSpec event", lambda: [e for e in env.items("events", NS)
                                                        if e["reason"] == "InvalidSpec" and e["type"] == "Warning"])
        assert "spec.components[" in warn[0]["message"], warn[0]["message"]
        # A second invalid edit, observed: every pass over the first one has ended (a DGD
        # is reconciled by one worker at a time), and the second wrote no child either.
        gen2 = merge_patch(env, name, {"spec": {"components": [
            {"name": "DecodeWorker", "type": "decode", "engine": {"tensorParallelSize": 5}}]}})
        wait_until("generation %d observed" % gen2, lambda: (lambda d: d if (condition(d, "SpecValid") or {}).get("status") == "False"
                                                             and d["status"]["observedGeneration"] == gen2 else None)(env.dgd(name, NS)))
        writes = env.operator_writes(since=seq)
        bad = [w for w in writes if not (w["resource"] == "events" or
                                          (w["resource"] == "dynamographdeployments" and w["subresource"] == "status"))]
        assert not bad, bad
        after = {k: o["metadata"]["resourceVersion"] for k, o in children(env, name).items()}
        assert before == after, "children changed on an invalid edit"

        # Fix it: back to the recipe's graph, valid again.
        env.kubectl("apply", "-k", env_recipe_path(RECIPE), "-n", NS)
        wait_until("SpecValid=True", lambda: (condition(env.dgd(name, NS), "SpecValid") or {}).get("status") == "True")

        # --- drift: args edited by hand are restored; a Service deleted by hand comes back.
        dep = env.deployment_of(name, "DecodeWorker", NS)["metadata"]["name"]
        want_args = env.get("deploy", dep, NS)["spec"]["template"]["spec"]["containers"][0].get("args")
        env.kubectl("patch", "deploy", dep, "-n", NS, "--type=json", "-p", json.dumps(
            [{"op": "replace", "path": "/spec/template/spec/containers/0/args", "value": ["--hacked"]}]))
        env.kubectl("delete", "svc", name + "-frontend", "-n", NS)
        wait_until("args restored", lambda: env.get("deploy", dep, NS)["spec"]["template"]["spec"]["containers"][0]
                   .get("args") == want_args)
        wait_until("Service re-created", lambda: env.get("svc", name + "-frontend", NS, check=False))

        # --- removing a component deletes its Deployment and Service, nothing else.
        with open(recipe_file(RECIPE)) as f:
            doc_add = yaml.safe_load(f)
        frontend = next(c for c in doc_add["spec"]["components"] if c["type"] == "frontend")
        doc_add["spec"]["components"].append(dict(frontend, name="Frontend2"))
        env.kubectl("apply", "-n", NS, "-f", "-", input=json.dumps(doc_add))
        wait_until("Frontend2 children", lambda: env.get("deploy", name + "-frontend2", NS, check=False))
        keep = {k: o["metadata"]["uid"] for k, o in children(env, name).items()}
        env.kubectl("apply", "-k", env_recipe_path(RECIPE), "-n", NS)
        wait_until("Frontend2 pruned", lambda: not env.get("deploy", name + "-frontend2", NS, check=False)
                   and not env.get("svc", name + "-frontend2", NS, check=False))
        left = {k: o["metadata"]["uid"] for k, o in children(env, name).items()}
        expect = {k: u for k, u in keep.items() if not k.endswith("-frontend2")}
        assert left == expect, (sorted(left), sorted(expect))

        # --- zero writes at rest, and none after a restart. Without nodes nothing moves the
        # children any more; one reconcile brings the DGD's status up to date with them, the
        # next one, with nothing to do, must write nothing.
        wait_until("status current", lambda: settled(env, name, env.dgd(name, NS)["metadata"]["generation"]))
        env.reconcile_now(name, NS)
        seq = env.last_seq()
        env.reconcile_now(name, NS)
        writes = env.operator_writes(since=seq)
        assert not writes, "writes at rest: %s" % writes
        env.stop_operator()
        seq = env.last_seq()
        env.start_operator()
        wait_until("operator leading again", lambda: "became leader" in env.operator_log().split("dgd-operator 0.1.0")[-1])
        # The restarted operator's first pass over the DGD (its informer's initial list),
        # then one more it is made to run.
        env.wait_reconciled(name, NS, int(env.dgd(name, NS)["metadata"]["resourceVersion"]),
                            "the restarted operator's first reconcile")
        env.reconcile_now(name, NS)
        assert env.operator_alive()
        writes = env.operator_writes(since=seq)
        assert not writes, "writes after restart: %s" % writes
        reads = [r for r in env.sim.requests(since=seq) if r.get("userAgent", "").startswith("dgd-operator/0")]
        assert reads and all(r["verb"] in ("list", "watch", "get") for r in reads), reads[:5]
    print("ok")


def env_recipe_path(recipe):
    return recipe_dir(recipe)


if __name__ == "__main__":
    main()
