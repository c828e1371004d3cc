"""Kinds a user of the operator touches, served with real storage as a 1.32 server serves
them: kubectl apply/get/patch/scale/delete/watch and the Python client on StatefulSets,
DaemonSets, HorizontalPodAutoscalers (autoscaling/v2 and v1, one storage), Ingresses,
NetworkPolicies, PriorityClasses (with the two every cluster has), StorageClasses,
PersistentVolumes, EndpointSlices, CronJobs; metadata.generation, status subresources,
server defaults and kubectl's table columns."""
import re

from kubernetes import client

from kubesim import KubeSim
from referee_lib import RawWatch, poll

OBJECTS = """
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 2
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: db, image: "postgres:16"}]
---
apiVersion: apps/v1
kind: DaemonSet
metadata: {name: agent}
spec:
  selector: {matchLabels: {app: agent}}
  template:
    metadata: {labels: {app: agent}}
    spec:
      nodeSelector: {gpu: "true"}
      containers: [{name: agent, image: "busybox:1.36"}]
---
apiVersion: networking.k8s.io/v1
kind: Ingress
metadata: {name: web}
spec:
  ingressClassName: nginx
  rules:
  - host: a.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
  - host: b.example.com
    http:
      paths:
      - {path: /, pathType: Prefix, backend: {service: {name: web, port: {number: 80}}}}
---
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: deny}
spec:
  podSelector: {}
  egress: [{ports: [{port: 53}]}]
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast}
provisioner: example.com/fast
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: pv1}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  hostPath: {path: /tmp/pv1}
---
apiVersion: discovery.k8s.io/v1
kind: EndpointSlice
metadata: {name: web-abc, labels: {kubernetes.io/service-name: web}}
addressType: IPv4
endpoints: [{addresses: [10.0.0.5]}]
ports: [{port: 80}]
---
apiVersion: batch/v1
kind: CronJob
metadata: {name: nightly}
spec:
  schedule: "0 3 * * *"
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: c, image: "busybox:1.36"}]
"""

HPA_V2 = """
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata: {name: web}
spec:
  scaleTargetRef: {apiVersion: apps/v1, kind: StatefulSet, name: db}
  minReplicas: 2
  maxReplicas: 5
  metrics:
  - type: Resource
    resource: {name: cpu, target: {type: Utilization, averageUtilization: 60}}
"""


def table(out):
    lines = [l for l in out.splitlines() if l.strip()]
    split = [re.split(r"\s{2,}", l.strip()) for l in lines]
    return split[0], split[1:]


def main():
    with KubeSim() as sim:
        # A watch on StatefulSets sees what kubectl does to them.
        watch = RawWatch(sim, "/apis/apps/v1/namespaces/default/statefulsets?watch=1")
        sim.kubectl("apply", "-f", "-", input=OBJECTS)

        # StatefulSet: defaults, generation, status subresource, scale, table columns.
        sts = sim.kubectl_json("get", "sts", "db")
        assert sts["metadata"]["generation"] == 1, sts["metadata"]
        spec = sts["spec"]
        assert spec["podManagementPolicy"] == "OrderedReady" and spec["revisionHistoryLimit"] == 10, spec
        assert spec["updateStrategy"] == {"type": "RollingUpdate", "rollingUpdate": {"partition": 0}}, spec
        assert spec["persistentVolumeClaimRetentionPolicy"] == {"whenDeleted": "Retain", "whenScaled": "Retain"}, spec
        assert spec["template"]["spec"]["restartPolicy"] == "Always", spec["template"]
        sim.kubectl("patch", "sts", "db", "--subresource=status", "--type=merge", "-p",
                    '{"status": {"replicas": 2, "readyReplicas": 1}}')
        sts = sim.kubectl_json("get", "sts", "db")
        assert sts["metadata"]["generation"] == 1 and sts["status"]["readyReplicas"] == 1, sts
        sim.kubectl("scale", "sts", "db", "--replicas=3")
        sts = sim.kubectl_json("get", "sts", "db")
        assert sts["spec"]["replicas"] == 3 and sts["metadata"]["generation"] == 2, sts
        header, rows = table(sim.kubectl("get", "sts", "-o", "wide").stdout)
        assert header == ["NAME", "READY", "AGE", "CONTAINERS", "IMAGES"], header
        assert rows[0][:2] == ["db", "1/3"] and rows[0][3:] == ["db", "postgres:16"], rows
        poll("the watch to see ADDED and two MODIFIED",
             lambda: [e["type"] for e in watch.events if e["object"]["metadata"]["name"] == "db"][:3]
             == ["ADDED", "MODIFIED", "MODIFIED"])

        # DaemonSet: no replicas, its own update strategy, kubectl's columns.
        ds = sim.kubectl_json("get", "ds", "agent")
        assert "replicas" not in ds["spec"], ds["spec"]
        assert ds["spec"]["updateStrategy"] == {"type": "RollingUpdate",
                                                "rollingUpdate": {"maxUnavailable": 1, "maxSurge": 0}}, ds["spec"]
        header, rows = table(sim.kubectl("get", "ds").stdout)
        assert header == ["NAME", "DESIRED", "CURRENT", "READY", "UP-TO-DATE", "AVAILABLE", "NODE SELECTOR", "AGE"], header
        assert rows[0][:7] == ["agent", "0", "0", "0", "0", "0", "gpu=true"], rows

        # Ingress columns; NetworkPolicy defaults; StorageClass and PersistentVolume.
        header, rows = table(sim.kubectl("get", "ing").stdout)
        assert header == ["NAME", "CLASS", "HOSTS", "ADDRESS", "PORTS", "AGE"], header
        assert rows[0][:3] == ["web", "nginx", "a.example.com,b.example.com"] and rows[0][-2] == "80", rows
        np = sim.kubectl_json("get", "netpol", "deny")
        assert np["spec"]["policyTypes"] == ["Ingress", "Egress"], np["spec"]
        assert np["spec"]["egress"][0]["ports"][0]["protocol"] == "TCP", np["spec"]
        assert np["metadata"]["generation"] == 1
        sc = sim.kubectl_json("get", "sc", "fast")
        assert sc["reclaimPolicy"] == "Delete" and sc["volumeBindingMode"] == "Immediate", sc
        assert "generation" not in sc["metadata"], sc["metadata"]
        pv = sim.kubectl_json("get", "pv", "pv1")
        assert "namespace" not in pv["metadata"], pv["metadata"]
        assert pv["status"]["phase"] == "Pending" and pv["status"]["lastPhaseTransitionTime"], pv["status"]
        assert pv["spec"]["persistentVolumeReclaimPolicy"] == "Retain", pv["spec"]
        eps = sim.kubectl_json("get", "endpointslices", "-l", "kubernetes.io/service-name=web")
        assert eps["items"][0]["ports"] == [{"name": "", "port": 80, "protocol": "TCP"}], eps
        cj = sim.kubectl_json("get", "cj", "nightly")
        assert cj["spec"]["concurrencyPolicy"] == "Allow" and cj["spec"]["successfulJobsHistoryLimit"] == 3, cj["spec"]
        tpl = cj["spec"]["jobTemplate"]["spec"]["template"]["spec"]
        assert tpl["containers"][0]["terminationMessagePolicy"] == "File", tpl

        # PriorityClasses: the two every cluster has, and a user's one.
        pcs = {i["metadata"]["name"]: i for i in sim.kubectl_json("get", "pc")["items"]}
        assert pcs["system-node-critical"]["value"] == 2000001000, pcs
        assert pcs["system-cluster-critical"]["value"] == 2000000000, pcs
        sim.kubectl("apply", "-f", "-", input="apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\n"
                                              "metadata: {name: batch-low}\nvalue: 100\n")
        assert sim.kubectl_json("get", "pc", "batch-low")["preemptionPolicy"] == "PreemptLowerPriority"

        # HPA: autoscaling/v2 and v1 are one storage; each version reads its own shape.
        sim.kubectl("apply", "-f", "-", input=HPA_V2)
        header, rows = table(sim.kubectl("get", "hpa").stdout)
        assert header == ["NAME", "REFERENCE", "TARGETS", "MINPODS", "MAXPODS", "REPLICAS", "AGE"], header
        assert rows[0][:6] == ["web", "StatefulSet/db", "cpu: <unknown>/60%", "2", "5", "0"], rows
        status, v1 = sim.request("/apis/autoscaling/v1/namespaces/default/horizontalpodautoscalers/web")
        assert status == 200 and v1["apiVersion"] == "autoscaling/v1", v1
        assert v1["spec"] == {"scaleTargetRef": {"apiVersion": "apps/v1", "kind": "StatefulSet", "name": "db"},
                              "minReplicas": 2, "maxReplicas": 5, "targetCPUUtilizationPercentage": 60}, v1["spec"]
        api = client.AutoscalingV1Api(sim.python_client())
        h = api.read_namespaced_horizontal_pod_autoscaler("web", "default")
        h.spec.target_cpu_utilization_percentage = 75
        api.replace_namespaced_horizontal_pod_autoscaler("web", "default", h)
        v2 = sim.kubectl_json("get", "horizontalpodautoscalers.v2.autoscaling", "web")
        assert v2["spec"]["metrics"] == [{"type": "Resource", "resource": {
            "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 75}}}], v2["spec"]
        assert v2["apiVersion"] == "autoscaling/v2"
        created = client.AutoscalingV1Api(sim.python_client()).create_namespaced_horizontal_pod_autoscaler(
            "default", client.V1HorizontalPodAutoscaler(
                metadata=client.V1ObjectMeta(name="plain"),
                spec=client.V1HorizontalPodAutoscalerSpec(
                    max_replicas=3, scale_target_ref=client.V1CrossVersionObjectReference(
                        api_version="apps/v1", kind="Deployment", name="web"))))
        assert created.spec.min_replicas == 1, created.spec
        status, v2 = sim.request("/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/plain")
        assert status == 200 and v2["spec"]["metrics"][0]["resource"]["target"] == {
            "type": "Utilization", "averageUtilization": 80}, v2
        assert v2["status"] == {"desiredReplicas": 0}, v2["status"]

        # deletecollection and delete through kubectl; the watch sees the deletion.
        sim.kubectl("delete", "sts", "--all")
        poll("the DELETED event", lambda: any(e["type"] == "DELETED" for e in watch.events))
        for kind in ("ds", "ing", "netpol", "pv", "sc", "endpointslices", "cj", "hpa", "pc/batch-low"):
            sim.kubectl("delete", kind, *([] if "/" in kind else ["--all"]))
        assert sim.kubectl_json("get", "hpa")["items"] == []
        assert len(sim.kubectl_json("get", "pc")["items"]) == 2
        watch.close()
    print("ok")


if __name__ == "__main__":
    main()
