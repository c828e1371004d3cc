"""Scaling adapters on kube-sim (h200-4x), with the real kubectl and the Python client.

- `scalingAdapter: {}` on a component: the operator creates DynamoGraphDeploymentScalingAdapter
  <dgd>-<lowercase component> (labels, controller ownerReference, dgdRef, spec.replicas
  seeded from the DGD) and writes its status: replicas, and the selector of exactly the
  component's pods (what an HPA averages utilisation over); no adapter for the others;
  `kubectl get dgdsa` shows upstream's columns;
- `kubectl scale dgdsa/<name> --replicas=N`: the worker Deployment follows, and the change
  costs one write to it and no other write to the graph (no DGD write, no adapter spec
  write, no other child; the adapter's /status and the DGD's /status report it);
- an edit of that component's replicas in the DGD is refused naming the field, and nothing
  changes;
- an autoscaling/v2 HPA and a KEDA ScaledObject (KEDA's CRD applied) targeting the adapter
  are accepted; the HPA is driven by the test playing the HPA controller: it reads the
  adapter's scale (selector -> the pods), computes the replica count from a utilisation the
  test sets (the controller's formula: ceil(current * utilisation / target), clamped to
  min/max) and writes /scale and the HPA's status as the controller does;
- refused, with the field named: replicas below 0 (apply and /scale), a second adapter for
  a component (admission), an adapter naming a component the DGD lacks or one without
  scalingAdapter (a Warning event on the adapter); none of them scales anything;
- opting out (scalingAdapter removed, replicas set in the same edit) deletes the adapter and
  the DGD's replicas rule the Deployment again.
"""
import json
import math
import os
import sys

import kubernetes

from scalinglib import (NS, OperatorEnv, adapter, apply, condition, deployment_name, deployment_replicas, dgd, frontend,  # noqa: F401
                        start_env, wait_adapter_status, wait_deployment_replicas, wait_until, worker,
                        writes_by_resource)

NAME = "sa"
ADAPTER = "sa-vllmworker"
WORKER_DEPLOYMENT = "sa-vllmworker"
SELECTOR = "nvidia.com/dynamo-component=VllmWorker,nvidia.com/dynamo-graph-deployment-name=sa"
KEDA_CRD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "keda-scaledobject-crd.yaml")


def graph(worker_replicas=1, adapter_on=True):
    return dgd(NAME, [frontend(), worker("VllmWorker", worker_replicas, adapter_on)])


def check_created(env):
    uid = wait_until("the DGD", lambda: env.dgd(NAME, NS))["metadata"]["uid"]
    a = wait_adapter_status(env, ADAPTER, 1)
    md = a["metadata"]
    assert md["labels"]["nvidia.com/dynamo-graph-deployment-name"] == NAME, md
    assert md["labels"]["nvidia.com/dynamo-component"] == "VllmWorker", md
    refs = [r for r in md.get("ownerReferences", []) if r.get("controller")]
    assert len(refs) == 1 and refs[0]["uid"] == uid and refs[0]["kind"] == "DynamoGraphDeployment" \
        and refs[0]["blockOwnerDeletion"], refs
    assert a["spec"] == {"replicas": 1, "dgdRef": {"name": NAME, "componentName": "VllmWorker"}}, a["spec"]
    assert a["status"]["selector"] == SELECTOR, a["status"]
    assert adapter(env, "sa-frontend") is None, "an adapter for a component without scalingAdapter"
    # The selector picks exactly the component's pods.
    env.wait_ready(NAME, NS)
    pods = env.items("pods", NS, SELECTOR)
    assert len(pods) == 1 and all(p["metadata"]["labels"]["nvidia.com/dynamo-component"] == "VllmWorker"
                                  for p in pods), [p["metadata"]["name"] for p in pods]
    worker_pods = env.items("pods", NS, "nvidia.com/selector=" + deployment_name(env, WORKER_DEPLOYMENT))
    assert {p["metadata"]["name"] for p in pods} == {p["metadata"]["name"] for p in worker_pods}
    # kubectl get dgdsa: upstream's columns.
    out = env.kubectl("get", "dgdsa", "-n", NS).stdout.splitlines()
    assert out[0].split() == ["NAME", "DGD", "COMPONENT", "REPLICAS", "AGE"], out
    assert out[1].split()[:4] == [ADAPTER, NAME, "VllmWorker", "1"], out


def check_kubectl_scale_costs_one_write(env):
    seq = env.last_seq()
    env.kubectl("scale", "dgdsa/" + ADAPTER, "-n", NS, "--replicas=2")
    wait_deployment_replicas(env, WORKER_DEPLOYMENT, 2)
    a = wait_adapter_status(env, ADAPTER, 2)
    assert a["status"].get("lastScaleTime"), a["status"]
    assert a["spec"]["replicas"] == 2
    env.wait_ready(NAME, NS)
    env.reconcile_now(NAME, NS)  # every pass the scale caused has ended
    by = writes_by_resource(env.operator_writes(since=seq))
    assert by.get("deployments") == [("patch", deployment_name(env, WORKER_DEPLOYMENT))], by
    assert "dynamographdeployments" not in by, by            # the DGD itself is never written
    assert "dynamographdeploymentscalingadapters" not in by, by  # nor the adapter's spec
    reports = {"dynamographdeployments/status", "dynamographdeploymentscalingadapters/status", "events"}
    others = {k: v for k, v in by.items() if k not in reports and k != "deployments"}
    assert not others, others
    assert by.get("dynamographdeploymentscalingadapters/status") == [("patch", ADAPTER)], by
    d = env.dgd(NAME, NS)
    assert d["spec"]["components"][1]["replicas"] == 1, "the DGD's replicas were written"
    assert d["status"]["components"]["VllmWorker"]["replicas"] == 2, d["status"]["components"]


def check_dgd_replicas_edit_refused(env):
    p = env.kubectl("patch", "dgd", NAME, "-n", NS, "--type=json", "-p", json.dumps(
        [{"op": "replace", "path": "/spec/components/1/replicas", "value": 5}]), check=False)
    assert p.returncode != 0, p.stdout
    assert "spec.components[1].replicas: Forbidden: cannot be modified directly when scaling adapter is enabled" \
        in p.stderr, p.stderr
    env.reconcile_now(NAME, NS)
    assert deployment_replicas(env, WORKER_DEPLOYMENT) == 2


def check_hpa_and_keda(env):
    api = env.sim.python_client()
    hpa = {"apiVersion": "autoscaling/v2", "kind": "HorizontalPodAutoscaler",
           "metadata": {"name": "vllmworker", "namespace": NS},
           "spec": {"scaleTargetRef": {"apiVersion": "nvidia.com/v1beta1",
                                       "kind": "DynamoGraphDeploymentScalingAdapter", "name": ADAPTER},
                    "minReplicas": 1, "maxReplicas": 3,
                    "metrics": [{"type": "Resource", "resource": {
                        "name": "cpu", "target": {"type": "Utilization", "averageUtilization": 70}}}]}}
    apply(env, hpa)
    # The packaged Python client predates AutoscalingV2Api: the HPA is read and its status
    # written through the generic object paths (/apis/autoscaling/v2/...).
    custom = kubernetes.client.CustomObjectsApi(api)
    core = kubernetes.client.CoreV1Api(api)

    def read_hpa():
        return custom.get_namespaced_custom_object("autoscaling", "v2", NS, "horizontalpodautoscalers", "vllmworker")

    def hpa_sync(utilisation):
        """One sync of the HPA controller (podautoscaler/horizontal.go) for a measured utilisation."""
        h = read_hpa()
        ref = h["spec"]["scaleTargetRef"]
        group, version = ref["apiVersion"].split("/")
        scale = custom.get_namespaced_custom_object_scale(group, version, NS, "dynamographdeploymentscalingadapters",
                                                          ref["name"])
        selector = scale["status"]["selector"]
        pods = core.list_namespaced_pod(NS, label_selector=selector).items
        assert pods, "the scale's selector finds no pods"
        current = scale["status"]["replicas"]
        target = h["spec"]["metrics"][0]["resource"]["target"]["averageUtilization"]
        desired = max(h["spec"]["minReplicas"], min(h["spec"]["maxReplicas"], math.ceil(current * utilisation / target)))
        if desired != scale["spec"]["replicas"]:
            custom.patch_namespaced_custom_object_scale(group, version, NS, "dynamographdeploymentscalingadapters",
                                                        ref["name"], {"spec": {"replicas": desired}})
        custom.patch_namespaced_custom_object_status("autoscaling", "v2", NS, "horizontalpodautoscalers", "vllmworker",
                                                     {"status": {"currentReplicas": current,
                                                                 "desiredReplicas": desired}})
        return desired

    assert hpa_sync(140) == 3           # 2 pods at 140 % of a 70 % target: 4, clamped to max 3
    wait_deployment_replicas(env, WORKER_DEPLOYMENT, 3)
    wait_adapter_status(env, ADAPTER, 3)
    assert hpa_sync(20) == 1            # 3 pods at 20 %: 1
    wait_deployment_replicas(env, WORKER_DEPLOYMENT, 1)
    wait_adapter_status(env, ADAPTER, 1)
    got = read_hpa()
    assert got["status"]["desiredReplicas"] == 1, got["status"]
    assert got["spec"]["scaleTargetRef"]["kind"] == "DynamoGraphDeploymentScalingAdapter"

    # KEDA: its CRD, then a ScaledObject on the adapter (KEDA makes keda-hpa-<name> from it).
    env.kubectl("apply", "-f", KEDA_CRD)
    env.kubectl("wait", "--for=condition=Established", "crd/scaledobjects.keda.sh", "--timeout=30s")
    so = {"apiVersion": "keda.sh/v1alpha1", "kind": "ScaledObject",
          "metadata": {"name": "vllmworker-ttft", "namespace": NS},
          "spec": {"scaleTargetRef": {"apiVersion": "nvidia.com/v1beta1",
                                      "kind": "DynamoGraphDeploymentScalingAdapter", "name": ADAPTER},
                   "minReplicaCount": 1, "maxReplicaCount": 3, "pollingInterval": 15,
                   "triggers": [{"type": "prometheus", "metadata": {
                       "serverAddress": "http://prometheus.monitoring:9090",
                       "query": "histogram_quantile(0.95, sum(rate(dynamo_frontend_time_to_first_token_seconds_bucket"
                                "{dynamo_namespace=\"scaling-sa\"}[5m])) by (le))",
                       "threshold": "0.5", "activationThreshold": "0.1"}}]}}
    apply(env, so)
    out = env.kubectl("get", "so", "vllmworker-ttft", "-n", NS).stdout.splitlines()
    assert ADAPTER in out[1].split(), out
    # Cleanup: nothing else drives the adapter in what follows.
    env.kubectl("delete", "hpa", "vllmworker", "-n", NS)
    env.kubectl("delete", "so", "vllmworker-ttft", "-n", NS)


def check_refusals(env):
    base = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeploymentScalingAdapter"}
    # replicas below 0: apply, and the scale subresource.
    a = adapter(env, ADAPTER)
    a["spec"]["replicas"] = -1
    for f in ("resourceVersion", "managedFields", "uid", "creationTimestamp", "generation"):
        a["metadata"].pop(f, None)
    a.pop("status", None)
    p = apply(env, a, check=False)
    assert p.returncode != 0 and "spec.replicas: Invalid value: -1" in p.stderr, p.stderr
    custom = kubernetes.client.CustomObjectsApi(env.sim.python_client())
    try:
        custom.patch_namespaced_custom_object_scale("nvidia.com", "v1beta1", NS,
                                                    "dynamographdeploymentscalingadapters", ADAPTER,
                                                    {"spec": {"replicas": -1}})
        raise AssertionError("a /scale to -1 replicas was accepted")
    except kubernetes.client.ApiException as e:
        assert e.status == 422 and "spec.replicas" in e.body, (e.status, e.body)
    # A second adapter for the component: refused at admission, naming dgdRef.
    second = dict(base, metadata={"name": "my-worker-scaler", "namespace": NS},
                  spec={"replicas": 3, "dgdRef": {"name": NAME, "componentName": "VllmWorker"}})
    p = apply(env, second, check=False)
    assert p.returncode != 0 and "spec.dgdRef: Invalid value" in p.stderr and "must be named " + ADAPTER in p.stderr, \
        p.stderr
    # An adapter for a component the DGD lacks, and one for a component without scalingAdapter.
    apply(env, dict(base, metadata={"name": "sa-ghost", "namespace": NS},
                    spec={"replicas": 4, "dgdRef": {"name": NAME, "componentName": "Ghost"}}))
    apply(env, dict(base, metadata={"name": "sa-frontend", "namespace": NS},
                    spec={"replicas": 4, "dgdRef": {"name": NAME, "componentName": "Frontend"}}))

    def warnings():
        return {e["involvedObject"]["name"]: e["message"] for e in env.items("events", NS)
                if e["reason"] == "InvalidScaleTarget" and e["type"] == "Warning"}
    w = wait_until("Warning events on the refused adapters",
                   lambda: (lambda w: w if {"sa-ghost", "sa-frontend"} <= set(w) else None)(warnings()))
    assert w["sa-ghost"].startswith('spec.dgdRef.componentName: Not found: "Ghost"'), w
    assert w["sa-frontend"].startswith('spec.dgdRef.componentName: Invalid value: "Frontend"'), w
    env.reconcile_now(NAME, NS)
    assert deployment_replicas(env, "sa-frontend") == 1, "a refused adapter scaled the frontend"
    assert deployment_replicas(env, WORKER_DEPLOYMENT) == 1
    for n in ("sa-ghost", "sa-frontend"):
        env.kubectl("delete", "dgdsa", n, "-n", NS)


def check_opt_out(env):
    # scalingAdapter removed with the replicas the DGD should now hold, in one edit.
    env.kubectl("patch", "dgd", NAME, "-n", NS, "--type=json", "-p", json.dumps([
        {"op": "remove", "path": "/spec/components/1/scalingAdapter"},
        {"op": "replace", "path": "/spec/components/1/replicas", "value": 2}]))
    wait_until("the adapter deleted", lambda: adapter(env, ADAPTER) is None)
    wait_deployment_replicas(env, WORKER_DEPLOYMENT, 2)
    # The DGD's replicas rule again: an edit is accepted and applied.
    env.kubectl("patch", "dgd", NAME, "-n", NS, "--type=json", "-p", json.dumps(
        [{"op": "replace", "path": "/spec/components/1/replicas", "value": 1}]))
    wait_deployment_replicas(env, WORKER_DEPLOYMENT, 1)


def main():
    with start_env() as env:
        apply(env, graph())
        check_created(env)
        check_kubectl_scale_costs_one_write(env)
        check_dgd_replicas_edit_refused(env)
        check_hpa_and_keda(env)
        check_refusals(env)
        check_opt_out(env)
    print("ok")


if __name__ == "__main__":
    main()
