"""The planner component on kube-sim (h200-4x): upstream's v1beta1 disagg_planner example
(frontend, planner, prefill and decode workers), with scalingAdapter on the workers as
upstream's profiler writes it.

- the planner is rendered as upstream's operator does: ports metrics 9085 / system 9090,
  env PLANNER_PROMETHEUS_PORT, DYN_SYSTEM_PORT, PROMETHEUS_ENDPOINT (--prometheus-endpoint),
  the parent DGD's name, probes on system (startup /live for 2 h), ServiceAccount
  planner-serviceaccount; its Service serves system 9090;
- the namespace's ServiceAccount planner-serviceaccount and RoleBinding
  planner-serviceaccount-binding to the chart's planner ClusterRole (applied from
  deploy/manifests/install.yaml) are made once, without owners, and a second graph with a
  planner in the namespace leaves them as they are;
- the test plays the planner with the planner's own identity (a token of
  planner-serviceaccount; kube-sim enforces RBAC for ServiceAccount tokens): it reads its
  graph and the adapter and patches the adapter's /scale as upstream's planner does
  (patch_namespaced_custom_object_scale), and the decode worker Deployment follows; the
  same identity may neither patch the worker Deployment nor the DGD's replicas of a
  component with an adapter, so its decisions reach the workers only through the adapters.
"""
import copy
import json
import os
import sys

import kubernetes
import yaml

from scalinglib import NS, apply, deployment_name, start_env, wait_adapter_status, wait_deployment_replicas, wait_until

ROOT = os.environ.get("DGD_SOURCE_DIR") or os.path.abspath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
NAME = "vllm-disagg-planner"
IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:my-tag"
PLANNER_CONFIG = ('{"environment": "kubernetes", "backend": "vllm", "optimization_target": "sla", '
                  '"enable_throughput_scaling": true, "enable_load_scaling": true, "pre_deployment_sweeping_mode": '
                  '"none", "throughput_adjustment_interval_seconds": 60, "load_adjustment_interval_seconds": 5}')
PROMETHEUS = "http://prometheus-kube-prometheus-prometheus.monitoring.svc.cluster.local:9090"


def worker(name, kind, extra=()):
    return {"name": name, "type": kind, "replicas": 1, "scalingAdapter": {},
            "podTemplate": {"spec": {"containers": [{
                "name": "main", "image": IMAGE, "command": ["python3"], "workingDir": "/workspace/examples/backends/vllm",
                "args": ["-m", "dynamo.vllm", "--model", "Qwen/Qwen3-0.6B"] + list(extra),
                "envFrom": [{"secretRef": {"name": "hf-token-secret"}}],
                "resources": {"limits": {"nvidia.com/gpu": "1"}}}],
                "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]}}}


def planner_dgd(name):
    return {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
            "metadata": {"name": name, "namespace": NS},
            "spec": {"components": [
                {"name": "Frontend", "type": "frontend", "replicas": 1,
                 "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}},
                {"name": "Planner", "type": "planner", "replicas": 1,
                 "podTemplate": {"spec": {"containers": [{
                     "name": "main", "image": "nvcr.io/nvidia/ai-dynamo/dynamo-planner:my-tag",
                     "command": ["python3", "-m", "dynamo.planner"], "args": ["--config", PLANNER_CONFIG]}]}}},
                worker("VllmDecodeWorker", "decode"),
                worker("VllmPrefillWorker", "prefill", ["--disaggregation-mode", "prefill", "--kv-transfer-config",
                                                         '{"kv_connector":"NixlConnector","kv_role":"kv_both"}']),
            ]}}


def planner_cluster_role():
    with open(os.path.join(ROOT, "deploy", "manifests", "install.yaml")) as f:
        docs = [d for d in yaml.safe_load_all(f) if d]
    roles = [d for d in docs if d["kind"] == "ClusterRole" and d["metadata"]["name"].endswith("-planner")]
    assert len(roles) == 1, [d["metadata"]["name"] for d in docs if d["kind"] == "ClusterRole"]
    return roles[0]


def env_of(container):
    return {e["name"]: e.get("value") for e in container.get("env", [])}


def as_planner(env):
    """A Python client authenticated as ServiceAccount NS/planner-serviceaccount."""
    token = env.sim.admin("serviceaccount-tokens", "POST", {"namespace": NS, "name": "planner-serviceaccount"})["token"]
    cfg = copy.deepcopy(env.sim.python_client().configuration)
    cfg.api_key = {"authorization": "Bearer " + token}
    cfg.cert_file = cfg.key_file = None
    cfg.username = cfg.password = None
    return kubernetes.client.ApiClient(cfg)


def main():
    role = planner_cluster_role()
    with start_env(operator_args=["--planner-cluster-role", role["metadata"]["name"],
                   "--prometheus-endpoint", PROMETHEUS]) as env:
        apply(env, role)
        env.kubectl("create", "secret", "generic", "hf-token-secret", "-n", NS, "--from-literal=HF_TOKEN=x")
        apply(env, planner_dgd(NAME))
        env.wait_ready(NAME, NS)

        # --- rendered as upstream's operator renders a planner.
        dep = env.get("deployment", NAME + "-planner", NS)
        pod = dep["spec"]["template"]["spec"]
        main_c = [c for c in pod["containers"] if c["name"] == "main"][0]
        assert pod["serviceAccountName"] == "planner-serviceaccount", pod.get("serviceAccountName")
        ports = {p["name"]: p["containerPort"] for p in main_c["ports"]}
        assert ports == {"metrics": 9085, "system": 9090}, ports
        e = env_of(main_c)
        assert e["PLANNER_PROMETHEUS_PORT"] == "9085" and e["DYN_SYSTEM_PORT"] == "9090", e
        assert e["PROMETHEUS_ENDPOINT"] == PROMETHEUS and e["DYN_PARENT_DGD_K8S_NAME"] == NAME, e
        assert e["DYN_COMPONENT"] == "planner", e
        probe = lambda name: {k: main_c[name]["httpGet"][k] for k in ("path", "port")}  # noqa: E731
        assert probe("startupProbe") == {"path": "/live", "port": "system"}, main_c["startupProbe"]
        assert main_c["startupProbe"]["failureThreshold"] == 720
        assert probe("readinessProbe") == {"path": "/health", "port": "system"}, main_c["readinessProbe"]
        assert main_c["args"] == ["--config", PLANNER_CONFIG]
        svc = env.get("svc", NAME + "-planner", NS)
        assert [(p["name"], p["port"]) for p in svc["spec"]["ports"]] == [("system", 9090)], svc["spec"]["ports"]
        # The workers' adapters; none for the frontend or the planner.
        for comp in ("vllmdecodeworker", "vllmprefillworker"):
            wait_adapter_status(env, NAME + "-" + comp, 1)
        assert env.get("dgdsa", NAME + "-planner", NS, check=False) is None

        # --- the namespace's planner identity: made once, unowned, shared.
        sa = env.get("serviceaccount", "planner-serviceaccount", NS)
        rb = env.get("rolebinding", "planner-serviceaccount-binding", NS)
        assert not sa["metadata"].get("ownerReferences") and not rb["metadata"].get("ownerReferences")
        assert rb["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "ClusterRole",
                                 "name": role["metadata"]["name"]}, rb["roleRef"]
        assert rb["subjects"] == [{"kind": "ServiceAccount", "name": "planner-serviceaccount", "namespace": NS}]
        versions = (sa["metadata"]["resourceVersion"], rb["metadata"]["resourceVersion"])
        apply(env, planner_dgd("second"))
        wait_adapter_status(env, "second-vllmdecodeworker", 1)
        env.reconcile_now("second", NS)
        env.reconcile_now(NAME, NS)
        assert (env.get("serviceaccount", "planner-serviceaccount", NS)["metadata"]["resourceVersion"],
                env.get("rolebinding", "planner-serviceaccount-binding", NS)["metadata"]["resourceVersion"]) \
            == versions, "two graphs' planners fight over the shared ServiceAccount or RoleBinding"
        env.kubectl("delete", "dgd", "second", "-n", NS)

        # --- the planner's scale decision, as the planner.
        api = as_planner(env)
        custom = kubernetes.client.CustomObjectsApi(api)
        d = custom.get_namespaced_custom_object("nvidia.com", "v1beta1", NS, "dynamographdeployments", NAME)
        assert d["status"]["components"]["VllmDecodeWorker"]["replicas"] == 1
        custom.get_namespaced_custom_object("nvidia.com", "v1beta1", NS, "dynamographdeploymentscalingadapters",
                                            NAME + "-vllmdecodeworker")
        custom.patch_namespaced_custom_object_scale("nvidia.com", "v1beta1", NS, "dynamographdeploymentscalingadapters",
                                                    NAME + "-vllmdecodeworker", {"spec": {"replicas": 2}})
        wait_deployment_replicas(env, NAME + "-vllmdecodeworker", 2)
        wait_adapter_status(env, NAME + "-vllmdecodeworker", 2)
        assert env.get("deployment", deployment_name(env, NAME + "-vllmprefillworker"), NS)["spec"]["replicas"] == 1
        # Nothing else reaches the workers: not the Deployment, not the DGD's replicas.
        apps = kubernetes.client.AppsV1Api(api)
        try:
            apps.patch_namespaced_deployment(deployment_name(env, NAME + "-vllmdecodeworker"), NS, {"spec": {"replicas": 3}})
            raise AssertionError("the planner patched a worker Deployment")
        except kubernetes.client.ApiException as ex:
            assert ex.status == 403, (ex.status, ex.body)
        try:
            custom.api_client.call_api(
                "/apis/nvidia.com/v1beta1/namespaces/{namespace}/dynamographdeployments/{name}", "PATCH",
                {"namespace": NS, "name": NAME}, header_params={"Content-Type": "application/json-patch+json"},
                body=[{"op": "test", "path": "/spec/components/2/name", "value": "VllmDecodeWorker"},
                      {"op": "add", "path": "/spec/components/2/replicas", "value": 3}],
                auth_settings=["BearerToken"], response_type="object")
            raise AssertionError("the planner changed the replicas of a component with an adapter in the DGD")
        except kubernetes.client.ApiException as ex:
            assert ex.status == 422 and "spec.components[2].replicas: Forbidden" in ex.body, (ex.status, ex.body)
        env.reconcile_now(NAME, NS)
        assert env.get("deployment", deployment_name(env, NAME + "-vllmdecodeworker"), NS)["spec"]["replicas"] == 2
    print("ok")


if __name__ == "__main__":
    main()
