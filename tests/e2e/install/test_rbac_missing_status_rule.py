#!/usr/bin/python3
"""RBAC enforcement, second case: the install without the ClusterRole's
`dynamographdeployments/status` rule. The operator still renders and applies the
graph's children, but every status write is refused (403), so the DGD itself cannot
carry the news. The operator must report it where a user looks instead:

- a log line naming the refused request (verb, dynamographdeployments/status, 403);
- a Warning Event StatusWriteFailed on the DGD (`kubectl describe dgd`) with the
  apiserver's message, which names the missing permission.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rbac_env import SA_USER, InstalledOperatorEnv, wait_until, without_rule  # noqa: E402

RECIPE = "deepseek-v4.1-flash/vllm/agg-h200-agentic"


def main():
    with InstalledOperatorEnv("h200-4x", edit_rbac=without_rule("dynamographdeployments/status")) as env:
        dgd = env.apply_recipe(RECIPE)

        def refused():
            return [r for r in env.sa_requests() if r["code"] == 403]
        first = wait_until("a 403 on the status write", refused, timeout=90)[0]
        assert first["resource"] == "dynamographdeployments" and first["subresource"] == "status", first
        assert first["verb"] in ("update", "patch"), first
        want = 'cannot %s resource "dynamographdeployments/status" in API group "nvidia.com" in the namespace ' \
               '"dynamo"' % first["verb"]

        def event():
            return [e for e in env.items("events", "dynamo")
                    if e["reason"] == "StatusWriteFailed" and e["involvedObject"]["name"] == dgd]
        ev = wait_until("the StatusWriteFailed Event", event, timeout=60)[0]
        assert ev["type"] == "Warning", ev
        for part in ("403 Forbidden", SA_USER, want):
            assert part in ev["message"], "Event message lacks %r:\n%s" % (part, ev["message"])
        described = env.kubectl("describe", "dgd", dgd, "-n", "dynamo").stdout
        assert "StatusWriteFailed" in described, described[-2000:]

        log = env.operator_log()
        lines = [line for line in log.splitlines() if "status write failed" in line and "403" in line]
        assert lines and want.replace('"', '\\"') in lines[0], "no clear log line:\n" + log[-3000:]
        # The children were still applied: only the status is missing.
        assert env.items("deployments", "dynamo"), "children not applied"
        assert not (env.dgd(dgd).get("status") or {}).get("conditions"), "a status was written after all"
        other = [r for r in env.sa_requests() if r["code"] in (401, 403) and r["subresource"] != "status"]
        assert not other, other
    print("rbac missing status rule: 403 reported in the log and an Event")


if __name__ == "__main__":
    main()
