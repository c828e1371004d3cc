#!/usr/bin/python3
"""deploy/manifests/install.yaml against kube-sim with a GPU cluster profile, with real
kubectl, the way docs/install.md says to use it:

- `kubectl apply --dry-run=server` accepts every object (strict field validation on);
- `kubectl apply -f` creates them; the CRDs are Established; the operator Deployment
  rolls out (kube-sim's scheduler, kubelets and Deployment controller make its 2 pods
  Running and Ready; no container runs) with its ServiceAccount and hardened pods;
- applying again changes nothing, and so does a server-side apply (what Argo CD / Flux do);
- uninstalling as docs/install.md says (`kubectl delete -f install.yaml -l
  app.kubernetes.io/component!=crd`) removes the operator and keeps the CRDs and the
  DGDs (a DGD created in between survives).
"""
import json
import os
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
from kubesim import KubeSim  # noqa: E402

ROOT = os.environ.get("DGD_SOURCE_DIR") or os.path.abspath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
INSTALL = os.path.join(ROOT, "deploy", "manifests", "install.yaml")


def main():
    sim_args = ["--profile", os.path.join(ROOT, "tests", "kubesim", "profiles", "h200-4x.yaml"),
                "--kubelet-start-delay", "0.2", "--kubelet-ready-delay", "0.3"]
    with KubeSim(extra_args=sim_args) as sim:
        # Dry run first: nothing stored, every object accepted. (As on a real API server,
        # a dry-run create in a namespace that does not exist yet is NotFound: the
        # Namespace itself goes first.)
        with open(INSTALL) as f:
            ns = [o for o in yaml.safe_load_all(f) if o and o["kind"] == "Namespace"]
        assert [o["metadata"]["name"] for o in ns] == ["dgd-system"], ns
        sim.kubectl("apply", "-f", "-", input=json.dumps(ns[0]))
        dry = sim.kubectl("apply", "--dry-run=server", "-f", INSTALL).stdout
        assert "deployment.apps/dgd-operator created (server dry run)" in dry, dry
        assert sim.kubectl("get", "deployments", "-A", "-o", "name").stdout.strip() == "", "dry run stored objects"

        out = sim.kubectl("apply", "-f", INSTALL).stdout
        for line in ("customresourcedefinition.apiextensions.k8s.io/dynamographdeployments.nvidia.com created",
                     "namespace/dgd-system unchanged", "serviceaccount/dgd-operator created",
                     "clusterrole.rbac.authorization.k8s.io/dgd-operator-dgd-system created",
                     "role.rbac.authorization.k8s.io/dgd-operator-leader-election created",
                     "deployment.apps/dgd-operator created", "service/dgd-operator-metrics created",
                     "poddisruptionbudget.policy/dgd-operator created"):
            assert line in out, "missing %r in:\n%s" % (line, out)
        sim.kubectl("wait", "--for=condition=Established", "crd/dynamographdeployments.nvidia.com", "--timeout=30s")
        sim.kubectl("-n", "dgd-system", "rollout", "status", "deployment/dgd-operator", "--timeout=60s", timeout=90)

        dep = json.loads(sim.kubectl("get", "deployment", "dgd-operator", "-n", "dgd-system", "-o", "json").stdout)
        assert dep["status"].get("availableReplicas") == 2, dep["status"]
        pods = json.loads(sim.kubectl("get", "pods", "-n", "dgd-system", "-l",
                                      "app.kubernetes.io/name=dgd-operator", "-o", "json").stdout)["items"]
        assert len(pods) == 2, [p["metadata"]["name"] for p in pods]
        for p in pods:
            assert p["spec"]["serviceAccountName"] == "dgd-operator"
            assert p["spec"]["nodeName"].startswith("cpu-"), "operator pod on a GPU node: %s" % p["spec"]["nodeName"]
            c = p["spec"]["containers"][0]
            assert c["securityContext"]["readOnlyRootFilesystem"] is True
            assert p["spec"]["securityContext"]["runAsNonRoot"] is True
            assert p["status"]["qosClass"] == "Burstable", p["status"]["qosClass"]

        before = json.loads(sim.kubectl("get", "pdb", "dgd-operator", "-n", "dgd-system", "-o", "json").stdout)
        again = sim.kubectl("apply", "-f", INSTALL).stdout
        # kubectl always sends a PDB's spec.selector (its patch strategy is "replace", so the
        # computed patch is never empty) and says "configured"; the object must not change.
        changed = [line for line in again.splitlines() if not line.endswith(" unchanged")
                   and line != "poddisruptionbudget.policy/dgd-operator configured"]
        assert not changed, "a second apply changed objects:\n%s" % again
        after = json.loads(sim.kubectl("get", "pdb", "dgd-operator", "-n", "dgd-system", "-o", "json").stdout)
        assert after["metadata"]["resourceVersion"] == before["metadata"]["resourceVersion"], "PDB changed"
        ssa = sim.kubectl("apply", "--server-side", "--force-conflicts", "--field-manager=argocd-controller",
                          "-f", INSTALL).stdout
        assert "deployment.apps/dgd-operator serverside-applied" in ssa, ssa
        gen = json.loads(sim.kubectl("get", "deployment", "dgd-operator", "-n", "dgd-system", "-o",
                                     "json").stdout)["metadata"]["generation"]
        assert gen == dep["metadata"]["generation"], "server-side apply of the same manifests changed the spec"

        # A DGD, then the uninstall of docs/install.md: the operator goes, CRDs and DGDs stay.
        sim.kubectl("apply", "-f", "-", input=json.dumps(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dynamo"}}))
        sim.kubectl("apply", "-n", "dynamo", "-k",
                    os.path.join(ROOT, "recipes", "deepseek-v4.1-flash", "vllm", "agg-h200-agentic"))
        gone = sim.kubectl("delete", "-f", INSTALL, "-l", "app.kubernetes.io/component!=crd", "--wait=true",
                           "--timeout=60s", timeout=90).stdout
        assert "customresourcedefinition" not in gone, gone
        assert "deployment.apps \"dgd-operator\" deleted" in gone, gone
        assert "clusterrole.rbac.authorization.k8s.io \"dgd-operator-dgd-system\" deleted" in gone, gone
        sim.kubectl("get", "crd", "dynamographdeployments.nvidia.com")
        left = sim.kubectl("get", "dgd", "-n", "dynamo", "-o", "name").stdout.split()
        assert left == ["dynamographdeployment.nvidia.com/dsv41-flash-vllm-h200-agg-agentic"], left
        assert sim.kubectl("get", "ns", "dgd-system", check=False).returncode != 0 or \
            "Terminating" in sim.kubectl("get", "ns", "dgd-system", check=False).stdout
    print("ok")


if __name__ == "__main__":
    main()
