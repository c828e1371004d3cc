"""The operator survives bad input and a namespace deleted under it, with one clear log
line each, and keeps serving the other DGDs:
  - a DGD whose podTemplate the renderer cannot use (admitted by the CRD schema, which
    leaves podTemplate open): SpecValid=False with the path, an InvalidSpec event;
  - a DGD whose spec breaks a rule only the operator checks;
  - the namespace of a running DGD deleted: the operator neither crashes nor loops.
Meanwhile a good DGD in another namespace keeps its children and gets edits applied.
"""
import json
import os

import yaml

from oplib import ROOT, recipe_file, OperatorEnv, condition, wait_until

RECIPE = "deepseek-v4.1-flash/vllm/agg-h200-agentic"


def recipe_doc(name):
    with open(recipe_file(RECIPE)) as f:
        doc = yaml.safe_load(f)
    doc["metadata"]["name"] = name
    return doc


def spec_invalid(env, name, ns):
    d = env.dgd(name, ns)
    c = condition(d, "SpecValid") if d else None
    return d if c and c["status"] == "False" else None


def main():
    with OperatorEnv(profile=None) as env:
        env.prepare_namespace("good")
        env.prepare_namespace("bad")
        env.prepare_namespace("doomed")
        env.kubectl("apply", "-n", "good", "-f", "-", input=json.dumps(recipe_doc("good")))
        wait_until("good children", lambda: env.get("deploy", "good-frontend", "good", check=False))

        # Unusable podTemplate (containers is not a list).
        bad = recipe_doc("garbled")
        bad["spec"]["components"][0]["podTemplate"] = {"spec": {"containers": "oops"}}
        env.kubectl("apply", "-n", "bad", "-f", "-", input=json.dumps(bad))
        d = wait_until("garbled SpecValid=False", lambda: spec_invalid(env, "garbled", "bad"))
        assert "spec.components[0].podTemplate" in condition(d, "SpecValid")["message"], condition(d, "SpecValid")
        assert not env.items("deployments", "bad"), "a garbled DGD must create nothing"

        # A rule only the operator checks (a static UCX_NET_DEVICES is fine; a worker with
        # an engine block and explicit args is not).
        rule = recipe_doc("rulebreaker")
        worker = next(c for c in rule["spec"]["components"] if c["type"] != "frontend")
        worker.setdefault("podTemplate", {}).setdefault("spec", {})["containers"] = [
            {"name": "main", "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0", "args": ["--model", "x"]}]
        env.kubectl("apply", "-n", "bad", "-f", "-", input=json.dumps(rule))
        wait_until("rulebreaker SpecValid=False", lambda: spec_invalid(env, "rulebreaker", "bad"))
        events = wait_until("InvalidSpec events", lambda: (lambda e: e if len(e) >= 2 else None)(
            [e for e in env.items("events", "bad") if e["reason"] == "InvalidSpec"]))
        assert all(e["type"] == "Warning" for e in events)

        # A namespace deleted under a running DGD.
        env.kubectl("apply", "-n", "doomed", "-f", "-", input=json.dumps(recipe_doc("doomed")))
        wait_until("doomed children", lambda: env.get("deploy", "doomed-frontend", "doomed", check=False))
        env.kubectl("delete", "namespace", "doomed", "--wait=false")
        wait_until("namespace gone", lambda: env.kubectl("get", "namespace", "doomed", check=False).returncode != 0,
                   timeout=60)

        # Still alive and still reconciling the good DGD.
        assert env.operator_alive()
        env.kubectl("patch", "dgd", "good", "-n", "good", "--type=merge", "-p",
                    json.dumps({"spec": {"components": [{"name": "Frontend", "type": "frontend", "replicas": 2,
                                                         "podTemplate": recipe_doc("good")["spec"]["components"][0]
                                                         .get("podTemplate")}]}}))
        wait_until("edit applied", lambda: env.get("deploy", "good-frontend", "good")["spec"]["replicas"] == 2)

        # One line per problem, not one per retry: two more reconciles of the garbled DGD,
        # each run to its end, add none.
        env.reconcile_now("garbled", "bad")
        env.reconcile_now("garbled", "bad")
        log = env.operator_log()
        warn = [line for line in log.splitlines() if " warn" in line or " error" in line]
        garbled = [line for line in warn if "dgd=bad/garbled" in line]
        assert len(garbled) == 1, garbled
        doomed = [line for line in warn if "dgd=doomed/doomed" in line]
        assert len(doomed) <= 1, doomed
    print("ok")


if __name__ == "__main__":
    main()
