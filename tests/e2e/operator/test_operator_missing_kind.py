"""A child kind missing on the server: the cluster lacks NVIDIA's DRA driver, so
the ComputeDomain CRD is not installed.
  - the operator starts, says so in one clear log line, and does not crash;
  - a GB200 DGD, which needs a ComputeDomain, reports Ready=False naming the missing kind,
    with one Warning event and one warn line (not one per retry);
  - an H200 DGD in the same cluster becomes Ready meanwhile;
  - once the CRD is installed, the operator notices on its own and the GB200 DGD gets its
    ComputeDomain.
"""
import json

from oplib import OperatorEnv, condition, wait_until

GB200 = "deepseek-v4.1-flash/vllm/disagg-gb200-agentic"
H200 = "deepseek-v4.1-flash/vllm/agg-h200-agentic"
KIND = "computedomains.resource.nvidia.com"

# What NVIDIA's DRA driver installs, reduced to what the API server needs to serve it.
COMPUTE_DOMAIN_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1",
    "kind": "CustomResourceDefinition",
    "metadata": {"name": KIND},
    "spec": {
        "group": "resource.nvidia.com",
        "scope": "Namespaced",
        "names": {"plural": "computedomains", "singular": "computedomain", "kind": "ComputeDomain",
                  "listKind": "ComputeDomainList"},
        "versions": [{"name": "v1beta1", "served": True, "storage": True,
                      "subresources": {"status": {}},
                      "schema": {"openAPIV3Schema": {"type": "object",
                                                     "x-kubernetes-preserve-unknown-fields": True}}}],
    },
}


def warn_lines(env, needle):
    return [line for line in env.operator_log().splitlines()
            if (" warn" in line or " error" in line) and needle in line]


def debug_lines(env, needle):
    return [line for line in env.operator_log().splitlines() if needle in line]


def main():
    with OperatorEnv(profile="large", sim_args=["--without-resource", "resource.nvidia.com/computedomains"],
                     operator_args=["--kind-probe-interval", "1"]) as env:
        assert env.kubectl("get", "crd", KIND, check=False).returncode != 0, "the CRD must be missing"
        gb = env.apply_recipe(GB200, ns="nvl")
        h200 = env.apply_recipe(H200, ns="hopper")

        # The GB200 graph cannot be complete: Ready=False, naming the kind.
        def not_synced():
            d = env.dgd(gb, "nvl")
            c = condition(d, "Ready") if d else None
            return c if c and c["status"] == "False" and c.get("reason") == "ChildrenNotSynced" else None
        ready = wait_until("GB200 DGD reports the missing kind", not_synced)
        assert "computedomains" in ready["message"] and "CustomResourceDefinition" in ready["message"], ready
        events = wait_until("KindNotServed event", lambda: [
            e for e in env.items("events", "nvl") if e["reason"] == "KindNotServed"])
        assert all(e["type"] == "Warning" for e in events), events

        # The other graph is not held up by it.
        env.wait_ready(h200, "hopper")
        assert env.operator_alive()

        # One line each: the kind at start, the DGD once (its retries log at debug). Checked
        # after two more probes of the kind (requests in kube-sim's log) and two more
        # reconciles of the DGD, each run to its end and logged at debug, any of which could
        # have logged again.
        seq = env.last_seq()
        wait_until("two probes of the missing kind", lambda: len(
            [r for r in env.sim.requests(since=seq) if r.get("resource") == "computedomains"
             and (r.get("userAgent") or "").startswith("dgd-operator/")]) >= 2)
        retried = len(debug_lines(env, "dgd=nvl/%s: still:" % gb))
        env.reconcile_now(gb, "nvl")
        env.reconcile_now(gb, "nvl")
        assert len(debug_lines(env, "dgd=nvl/%s: still:" % gb)) >= retried + 2, "the reconciles did not meet the problem"
        startup = warn_lines(env, "computedomains.v1beta1.resource.nvidia.com is not served")
        assert len(startup) == 1, startup
        per_dgd = warn_lines(env, "dgd=nvl/" + gb)
        assert len(per_dgd) == 1, per_dgd
        assert len([e for e in env.items("events", "nvl") if e["reason"] == "KindNotServed"]) == 1

        # The CRD arrives: the operator starts watching it and completes the graph.
        env.kubectl("apply", "-f", "-", input=json.dumps(COMPUTE_DOMAIN_CRD))
        wait_until("operator watches the new kind", lambda: "computedomains.v1beta1.resource.nvidia.com is now served" in env.operator_log(),
                   timeout=60)
        cds = wait_until("ComputeDomain created", lambda: env.items("computedomains", "nvl"), timeout=60)
        owners = cds[0]["metadata"].get("ownerReferences", [])
        assert any(o["kind"] == "DynamoGraphDeployment" and o["name"] == gb for o in owners), owners
        wait_until("GB200 DGD no longer reports the missing kind", lambda: not_synced() is None, timeout=60)
        assert env.operator_alive()
    print("ok")


if __name__ == "__main__":
    main()
