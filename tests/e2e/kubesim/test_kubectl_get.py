"""kubectl v1.32 reads against kube-sim: `get` by kind, plural.group, short name and
category (`all`, and the DGD CRD's own `dynamo`), `-o yaml|json|wide|name`,
custom columns, the DGD CRD's printer columns, `get -w` seeing later changes and
`get --chunk-size=2` paging through many objects (the request log shows the pages)."""
import json

import yaml

from kubesim import KubeSim
from referee_lib import DGD_CRD, DGD_RECIPE, Background

OBJECTS = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, labels: {tier: front}}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: web, image: "nginx:1.25"}, {name: side, image: "busybox:1.36"}]
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, protocol: TCP}]
---
apiVersion: v1
kind: Pod
metadata: {name: p1, labels: {app: web}}
spec:
  containers: [{name: c, image: "busybox:1.36"}]
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: robot}
"""
DGD = "dsv41-flash-vllm-h200-agg-agentic"


def table(out):
    """kubectl's column output as (header, rows); columns split on runs of 2+ spaces."""
    import re
    lines = [l for l in out.splitlines() if l.strip()]
    split = [re.split(r"\s{2,}", l.strip()) for l in lines]
    return split[0], split[1:]


def main():
    with KubeSim() as sim:
        sim.kubectl("apply", "-f", DGD_CRD)
        sim.kubectl("wait", "--for=condition=Established", "crd/dynamographdeployments.nvidia.com")
        sim.kubectl("apply", "-f", DGD_RECIPE)
        sim.kubectl("apply", "-f", "-", input=OBJECTS)
        docs = "\n---\n".join("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: many-%d, labels: {set: many}}\n"
                              "data: {i: \"%d\"}" % (i, i) for i in range(9))
        sim.kubectl("apply", "-f", "-", input=docs)

        # By kind, plural, plural.group and short name: the same objects.
        for args, want in [
            (("deploy",), ["deployment.apps/web"]),
            (("deployments.apps",), ["deployment.apps/web"]),
            (("deployment",), ["deployment.apps/web"]),
            (("svc", "web"), ["service/web"]),
            (("services", "web"), ["service/web"]),
            (("po",), ["pod/p1"]),
            (("sa", "robot"), ["serviceaccount/robot"]),
            (("dgd",), ["dynamographdeployment.nvidia.com/" + DGD]),
            (("dynamographdeployment",), ["dynamographdeployment.nvidia.com/" + DGD]),
            (("dynamographdeployments.nvidia.com",), ["dynamographdeployment.nvidia.com/" + DGD]),
            (("cm", "-l", "set=many"), ["configmap/many-%d" % i for i in range(9)]),
        ]:
            out = sim.kubectl("get", *args, "-o", "name").stdout.split()
            assert sorted(out) == sorted(want), (args, out)

        # Categories: `all` spans pods, services, deployments and the DGD (the CRD lists
        # `all`), never ConfigMaps or ServiceAccounts; `dynamo` is the CRD's own category.
        out = set(sim.kubectl("get", "all", "-o", "name").stdout.split())
        assert out == {"pod/p1", "service/web", "deployment.apps/web", "dynamographdeployment.nvidia.com/" + DGD}, out
        out = sim.kubectl("get", "dynamo", "-o", "name").stdout.split()
        assert out == ["dynamographdeployment.nvidia.com/" + DGD], out

        # -o yaml / json: full objects, lists as kind List.
        cm = yaml.safe_load(sim.kubectl("get", "cm", "many-3", "-o", "yaml").stdout)
        assert cm["kind"] == "ConfigMap" and cm["apiVersion"] == "v1" and cm["data"] == {"i": "3"}, cm
        lst = json.loads(sim.kubectl("get", "cm", "-l", "set=many", "-o", "json").stdout)
        assert lst["kind"] == "List" and len(lst["items"]) == 9, lst.get("kind")
        assert all(i["kind"] == "ConfigMap" and i["metadata"]["uid"] for i in lst["items"])
        dgd = yaml.safe_load(sim.kubectl("get", "dgd", DGD, "-o", "yaml").stdout)
        assert dgd["apiVersion"] == "nvidia.com/v1beta1" and dgd["spec"]["backendFramework"] == "vllm", dgd

        # Server-side tables: kubectl's columns, -o wide adds the priority-1 ones.
        head, rows = table(sim.kubectl("get", "deploy").stdout)
        assert head == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE"], head
        assert rows[0][:4] == ["web", "0/2", "0", "0"], rows
        head, rows = table(sim.kubectl("get", "deploy", "-o", "wide").stdout)
        assert head == ["NAME", "READY", "UP-TO-DATE", "AVAILABLE", "AGE", "CONTAINERS", "IMAGES", "SELECTOR"], head
        assert rows[0][5:] == ["web,side", "nginx:1.25,busybox:1.36", "app=web"], rows
        head, rows = table(sim.kubectl("get", "svc", "web", "-o", "wide").stdout)
        assert head == ["NAME", "TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)", "AGE", "SELECTOR"], head
        assert rows[0][1] == "ClusterIP" and rows[0][3] == "<none>" and rows[0][4] == "80/TCP", rows
        assert rows[0][2].startswith("10.") and rows[0][6] == "app=web", rows
        head, rows = table(sim.kubectl("get", "pods").stdout)
        assert head == ["NAME", "READY", "STATUS", "RESTARTS", "AGE"] and rows[0][:4] == ["p1", "0/1", "Pending", "0"]
        head, rows = table(sim.kubectl("get", "cm", "-l", "set=many").stdout)
        assert head == ["NAME", "DATA", "AGE"] and rows[0][:2] == ["many-0", "1"], (head, rows)
        table_gets = [r for r in sim.requests() if r["verb"] == "list" and r["resource"] == "deployments"]
        assert table_gets and all(r["code"] == 200 for r in table_gets)

        # Custom columns are client-side over the JSON.
        out = sim.kubectl("get", "dgd", "-o",
                          "custom-columns=NAME:.metadata.name,ENGINE:.spec.backendFramework,"
                          "WORKERS:.spec.components[1].replicas").stdout
        head, rows = table(out)
        assert head == ["NAME", "ENGINE", "WORKERS"] and rows == [[DGD, "vllm", "4"]], (head, rows)

        # The DGD's additionalPrinterColumns: Ready follows the status condition (set via /status).
        head, rows = table(sim.kubectl("get", "dgd").stdout)
        assert head == ["NAME", "READY", "REASON", "SERVING", "BACKEND", "AGE"], head
        assert rows[0][0] == DGD and len(rows[0]) == 2, rows        # no status yet: only NAME and AGE
        sim.kubectl("patch", "dgd", DGD, "--subresource=status", "--type=merge", "-p",
                    json.dumps({"status": {"backendFramework": "vllm",
                                           "conditions": [{"type": "Ready", "status": "True", "reason": "Up",
                                                           "message": "ok", "lastTransitionTime":
                                                           "2026-01-01T00:00:00Z"}]}}))
        head, rows = table(sim.kubectl("get", "dgd").stdout)
        assert rows[0][:4] == [DGD, "True", "Up", "vllm"], rows     # SERVING empty: no Serving condition
        head, rows = table(sim.kubectl("get", "dgd", "-o", "wide").stdout)
        assert head == ["NAME", "READY", "REASON", "SERVING", "BACKEND", "RECIPE", "STATUS", "AGE"], head
        assert rows[0][:5] == [DGD, "True", "Up", "vllm", "ok"], rows  # no spec.recipe: RECIPE empty

        # get -w: the initial state, then later changes (with --output-watch-events: the type).
        watch = Background(sim, "get", "cm", "-l", "set=watched", "-w", "--output-watch-events")
        try:
            sim.kubectl("apply", "-f", "-", input="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: w0, labels:"
                                                  " {set: watched}}\ndata: {a: b}\n")
            watch.wait_for("ADDED w0", lambda ls: any(l.split()[:2] == ["ADDED", "w0"] for l in ls))
            sim.kubectl("label", "cm", "w0", "extra=1")
            watch.wait_for("MODIFIED w0", lambda ls: any(l.split()[:2] == ["MODIFIED", "w0"] for l in ls))
            sim.kubectl("delete", "cm", "w0")
            lines = watch.wait_for("DELETED w0", lambda ls: [l for l in ls if l.split()[:2] == ["DELETED", "w0"]]
                                   and ls)
            events = [l.split()[0] for l in lines if l.split()[1:2] == ["w0"]]
            assert events == ["ADDED", "MODIFIED", "DELETED"], lines
            assert lines[0].split()[:3] == ["EVENT", "NAME", "DATA"], lines
        finally:
            err = watch.stop()
        assert "error" not in err.lower(), err
        watches = [r for r in sim.requests() if r["verb"] == "watch" and r["resource"] == "configmaps"]
        assert watches and watches[-1]["code"] == 200, watches

        # --chunk-size=2 over 9 ConfigMaps: every object, in several pages.
        seq = sim.requests()[-1]["seq"]
        out = sim.kubectl("get", "cm", "-l", "set=many", "--chunk-size=2", "-o", "name").stdout.split()
        assert out == ["configmap/many-%d" % i for i in range(9)], out
        pages = [r for r in sim.requests(since=seq) if r["verb"] == "list" and r["resource"] == "configmaps"]
        assert len(pages) == 5 and all(r["code"] == 200 for r in pages), pages
        head, rows = table(sim.kubectl("get", "cm", "-l", "set=many", "--chunk-size=2").stdout)
        assert head == ["NAME", "DATA", "AGE"] and [r[0] for r in rows] == ["many-%d" % i for i in range(9)], rows
    print("kubectl get matrix: ok")


if __name__ == "__main__":
    main()
