#!/usr/bin/python3
"""The converse of the install test: RBAC is really enforced. The same install as
test_rbac_install_ready.py with one needed rule removed from the ClusterRole, the
`discovery.k8s.io endpointslices` read rule. The operator never reads EndpointSlices
itself, but each graph's discovery Role grants them to the Dynamo runtime, and
Kubernetes lets nobody create a Role granting more than it holds. So:

- kube-sim answers the operator's apply of the Role with 403 (escalation prevention);
- the operator reports it clearly: a log line naming the Role and the missing
  permission, a Warning Event ApplyFailed on the DGD (`kubectl describe dgd`), and
  Ready=False (ChildrenNotSynced) whose message names the Role and the permission;
- the DGD is not reported Ready.
"""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rbac_env import SA_USER, InstalledOperatorEnv, wait_until, without_rule  # noqa: E402
from oplib import condition  # noqa: E402

RECIPE = "deepseek-v4.1-flash/vllm/disagg-h200-agentic"
MISSING = '{APIGroups:["discovery.k8s.io"], Resources:["endpointslices"], Verbs:["get" "list" "watch"]}'


def main():
    with InstalledOperatorEnv("h200-4x", edit_rbac=without_rule("endpointslices")) as env:
        dgd = env.apply_recipe(RECIPE)

        def refused_role():
            return [r for r in env.sa_requests() if r["code"] == 403 and r["resource"] == "roles"]
        refused = wait_until("a 403 on the operator's Role apply", refused_role, timeout=90)
        assert refused[0]["namespace"] == "dynamo" and refused[0]["verb"] == "patch", refused[0]

        def event():
            evs = env.items("events", "dynamo")
            # (The RoleBinding's apply fails too, 404: its Role does not exist. Its own Event.)
            return [e for e in evs if e["reason"] == "ApplyFailed" and e["involvedObject"]["name"] == dgd
                    and e["message"].startswith("apply Role ")]
        evs = wait_until("the ApplyFailed Event of the Role", event, timeout=60)
        msg = evs[0]["message"]
        assert evs[0]["type"] == "Warning", evs[0]
        for part in ("apply Role ", "403 Forbidden", "is forbidden", SA_USER, "not currently held", MISSING):
            assert part in msg, "Event message lacks %r:\n%s" % (part, msg)

        def not_synced():
            c = condition(env.dgd(dgd) or {}, "Ready")
            return c if c and c["reason"] == "ChildrenNotSynced" else None
        ready = wait_until("Ready=False ChildrenNotSynced", not_synced, timeout=60)
        assert ready["status"] == "False", ready
        for part in ("Role ", "is forbidden", "not currently held", MISSING):
            assert part in ready["message"], "Ready message lacks %r:\n%s" % (part, ready["message"])

        log = env.operator_log()
        lines = [line for line in log.splitlines() if "endpointslices" in line and "403" in line]
        assert lines, "no operator log line names the refused permission:\n" + log[-3000:]
        # A JSON log line (--log-format=json as installed) with the whole story in it.
        rec = json.loads(lines[0])
        assert rec["level"] in ("warning", "warn", "error"), rec
        assert "apply Role " in lines[0] and "PATCH /apis/rbac.authorization.k8s.io/v1/namespaces/dynamo/roles/" \
            in lines[0], lines[0]

        # Nothing else was refused: the one missing rule is the only problem.
        other = [r for r in env.sa_requests() if r["code"] in (401, 403) and r["resource"] != "roles"]
        assert not other, other
        c = condition(env.dgd(dgd), "Ready")
        assert c["status"] != "True", c
    print("rbac missing rule: 403 on the Role apply, reported in the log, an Event and Ready")


if __name__ == "__main__":
    main()
