"""The operator's defaults: a recipe DGD gets the Serving check without asking
(spec.smokeTest defaults on for recipes); in kube-sim there is no pod network, so the
in-cluster Service DNS name (--serving-check-via=service-dns, the default) does not
resolve: Serving turns False/Unreachable once and stays exactly so while the check is
retried (no status write). spec.smokeTest.enabled=false removes the condition.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "operator"))
from oplib import OperatorEnv, condition, wait_until

NS = "dynamo"
RECIPE = "deepseek-v4.1-flash/vllm/disagg-h200-agentic"


def main():
    args = ["--serving-check-retry-initial", "0.3", "--serving-check-retry-max", "0.6"]
    with OperatorEnv(profile="h200-4x", operator_args=args) as env:
        name = env.apply_recipe(RECIPE, NS)
        env.wait_ready(name, NS)

        def serving():
            return condition(env.dgd(name, NS), "Serving")

        c = wait_until("Serving=False/Unreachable",
                       lambda: (lambda c: c if c and c["reason"] == "Unreachable" else None)(serving()))
        assert c["status"] == "False", c
        assert "cannot reach the frontend" in c["message"], c["message"]
        assert condition(env.dgd(name, NS), "Ready")["status"] == "True"
        # Retried, never rewritten: two more checks whose unchanged outcome the operator has
        # handled (its debug line "serving check again" comes after the comparison), and no
        # write since.
        seq = env.last_seq()
        again = env.operator_log().count("serving check again")
        wait_until("two more serving checks", lambda: env.operator_log().count("serving check again") >= again + 2)
        writes = [w for w in env.operator_writes(since=seq)]
        assert not writes, writes
        assert serving() == c, (serving(), c)

        # Opting out removes the condition.
        env.kubectl("patch", "dgd", name, "-n", NS, "--type=merge", "-p",
                    json.dumps({"spec": {"smokeTest": {"enabled": False}}}))
        wait_until("no Serving condition", lambda: serving() is None)
        assert condition(env.dgd(name, NS), "Ready")["status"] == "True"
    print("ok")


if __name__ == "__main__":
    main()
