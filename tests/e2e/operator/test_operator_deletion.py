"""Deleting a DGD removes every child and never leaves the DGD stuck (upstream
ai-dynamo/dynamo#8204: deletions thrashed for hours under Argo CD's foreground prune).

Three ways, each on its own DGD:
  - plain `kubectl delete` (background cascading);
  - `kubectl delete --cascade=foreground`;
  - Argo CD's way: foreground deletion of a DGD that carries a finalizer of another
    controller; the operator leaves that finalizer alone and re-creates nothing while the
    garbage collector removes the children; once the other controller drops its finalizer
    the DGD goes.
"""
import json
import os

import yaml

from oplib import ROOT, recipe_file, OperatorEnv, wait_until

RECIPE = "deepseek-v4.1-flash/vllm/agg-h200-agentic"
NS = "dynamo"
LABEL = "nvidia.com/dynamo-graph-deployment-name"


def recipe_doc(name):
    with open(recipe_file(RECIPE)) as f:
        doc = yaml.safe_load(f)
    doc["metadata"]["name"] = name
    return doc


def owned_children(env, uid):
    out = []
    for kind in ("deployments", "services", "serviceaccounts", "roles", "rolebindings", "jobs", "configmaps"):
        for o in env.items(kind, NS, "app.kubernetes.io/managed-by=dgd-operator"):
            if any(r.get("uid") == uid for r in o["metadata"].get("ownerReferences", [])):
                out.append("%s/%s" % (o["kind"], o["metadata"]["name"]))
    return out


def create(env, name, finalizers=None):
    doc = recipe_doc(name)
    if finalizers:
        doc["metadata"]["finalizers"] = finalizers
    env.kubectl("apply", "-n", NS, "-f", "-", input=json.dumps(doc))
    uid = wait_until("DGD " + name, lambda: env.dgd(name, NS))["metadata"]["uid"]
    wait_until("children of " + name, lambda: len(owned_children(env, uid)) >= 5)
    wait_until("status of " + name, lambda: (env.dgd(name, NS).get("status") or {}).get("observedGeneration") == 1)
    return uid


def main():
    with OperatorEnv(profile=None) as env:
        env.prepare_namespace(NS)
        plain = create(env, "del-plain")
        fg = create(env, "del-foreground")
        argo = create(env, "del-argo", finalizers=["argocd.example.com/keep"])

        env.kubectl("delete", "dgd", "del-plain", "-n", NS, "--wait=false")
        env.kubectl("delete", "dgd", "del-foreground", "-n", NS, "--cascade=foreground", "--wait=false")
        env.kubectl("delete", "dgd", "del-argo", "-n", NS, "--cascade=foreground", "--wait=false")

        for uid, name in ((plain, "del-plain"), (fg, "del-foreground"), (argo, "del-argo")):
            wait_until("children of %s gone" % name, lambda: not owned_children(env, uid), timeout=60)
        wait_until("del-plain gone", lambda: env.dgd("del-plain", NS) is None)
        wait_until("del-foreground gone", lambda: env.dgd("del-foreground", NS) is None)

        # Argo: the DGD stays only for its own finalizer, untouched by the operator, and
        # no child came back while it waited.
        d = env.dgd("del-argo", NS)
        assert d is not None and d["metadata"].get("deletionTimestamp"), d
        assert "argocd.example.com/keep" in d["metadata"].get("finalizers", []), d["metadata"]
        assert not owned_children(env, argo)
        # Once the operator has reconciled it again (a marker annotation), it has still
        # written nothing to it or its children.
        seq = env.last_seq()
        env.reconcile_now("del-argo", NS)
        writes = [w for w in env.operator_writes(since=seq) if w["resource"] != "events"]
        assert not writes, writes
        env.kubectl("patch", "dgd", "del-argo", "-n", NS, "--type=json", "-p", json.dumps(
            [{"op": "remove", "path": "/metadata/finalizers/" + str(d["metadata"]["finalizers"].index(
                "argocd.example.com/keep"))}]))
        wait_until("del-argo gone", lambda: env.dgd("del-argo", NS) is None)
        assert env.operator_alive()
        # No finalizer of ours anywhere.
        assert "dgd-operator" not in json.dumps(d["metadata"].get("finalizers", []))
    print("ok")


if __name__ == "__main__":
    main()
