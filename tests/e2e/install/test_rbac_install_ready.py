#!/usr/bin/python3
"""The operator, installed by deploy/manifests/install.yaml and
authenticated as its ServiceAccount (a TokenRequest token, nothing else), runs the H200
disaggregated recipe to Ready on the h200-4x profile with zero 401/403 responses.

kube-sim enforces RBAC for ServiceAccounts (docs/kube-sim.md, "RBAC"), including
escalation prevention: the operator can create each graph's discovery Role and
RoleBinding only because its ClusterRole holds every permission they grant. So this
fails if the ClusterRole or the Lease Role lacks anything the operator does.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rbac_env import SA_USER, InstalledOperatorEnv  # noqa: E402

RECIPE = "deepseek-v4.1-flash/vllm/disagg-h200-agentic"


def main():
    with InstalledOperatorEnv("h200-4x") as env:
        dgd = env.apply_recipe(RECIPE)
        env.wait_ready(dgd)
        reqs = env.sa_requests()
        refused = [r for r in reqs if r["code"] in (401, 403)]
        assert not refused, "the operator was refused:\n" + "\n".join(
            "%s %s %s/%s %s -> %d" % (r["verb"], r.get("resource") or r.get("path"), r["namespace"], r["name"],
                                       r.get("subresource", ""), r["code"]) for r in refused[:20])

        # Everything the operator did, it did as the ServiceAccount (the kubeconfig holds
        # only the token; nothing fell back to another identity).
        op = [r for r in env.sim.requests() if (r.get("userAgent") or "").startswith("dgd-operator/")]
        assert op and all(r["user"] == SA_USER for r in op), {r["user"] for r in op}
        done = {(r["verb"], r["resource"], r.get("subresource") or "") for r in reqs if r["code"] < 300}
        for want in [("watch", "dynamographdeployments", ""), ("patch", "deployments", ""),
                     ("patch", "roles", ""), ("patch", "rolebindings", ""), ("create", "events", "")]:
            assert want in done, "the operator never did %s (did: %s)" % (want, sorted(done))
        assert any(v in ("update", "patch") and res == "dynamographdeployments" and sub == "status"
                   for v, res, sub in done), sorted(done)
        assert any(res == "leases" for _, res, _ in done), \
            "no Lease request: leader election did not run as the ServiceAccount"

        # The worker discovery Role exists: creating it passed the escalation check.
        roles = env.items("roles", "dynamo")
        assert roles and any(r["rules"] for r in roles), roles

        # And the ServiceAccount really is confined: no Secrets, nothing cluster-wide it
        # was not granted (these are the same 403s a real cluster gives).
        for args, what in [(("get", "secrets", "-n", "dynamo"), "secrets"),
                           (("get", "secret", "hf-token-secret", "-n", "dynamo"), "secrets"),
                           (("get", "clusterroles"), "clusterroles"),
                           (("delete", "namespace", "dynamo", "--wait=false"), "namespaces")]:
            p = env.sa_kubectl(*args)
            assert p.returncode != 0 and "forbidden" in p.stderr and SA_USER in p.stderr, (args, p.stderr)
            assert 'resource "%s"' % what in p.stderr, p.stderr
        assert env.dgd(dgd) is not None
    print("rbac install: Ready with %d requests as %s, none refused" % (len(reqs), SA_USER))


if __name__ == "__main__":
    main()
