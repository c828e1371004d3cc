"""Shared parts of the scaling tests: a small explicit graph (a frontend and one GPU worker,
upstream's explicit style), the operator on kube-sim with the adapter CRD established
before it starts, and reads of adapters and worker Deployments.
"""
import contextlib
import json
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "operator"))
from oplib import OperatorEnv, condition, wait_until  # noqa: E402,F401

NS = "scaling"
ADAPTER_CRD = "dynamographdeploymentscalingadapters.nvidia.com"
IMAGE = "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.9.0"
# The profile's GPU nodes are tainted: GPU pods tolerate it.
GPU_TOLERATION = {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}


def worker(name, replicas=1, adapter=True, kind="worker", extra_args=()):
    c = {"name": name, "type": kind, "replicas": replicas,
         "podTemplate": {"spec": {"containers": [{
             "name": "main", "image": IMAGE, "command": ["python3"],
             "args": ["-m", "dynamo.vllm", "--model", "Qwen/Qwen3-0.6B"] + list(extra_args),
             "resources": {"limits": {"nvidia.com/gpu": "1"}}}],
             "tolerations": [GPU_TOLERATION]}}}
    if adapter:
        c["scalingAdapter"] = {}
    return c


def frontend():
    return {"name": "Frontend", "type": "frontend", "replicas": 1,
            "podTemplate": {"spec": {"containers": [{"name": "main", "image": IMAGE}]}}}


def dgd(name, components):
    return {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
            "metadata": {"name": name, "namespace": NS},
            "spec": {"backendFramework": "vllm", "components": components}}


@contextlib.contextmanager
def start_env(profile="h200-4x", operator_args=None):
    """kube-sim with the CRDs (the adapter CRD established) and the operator started after."""
    with OperatorEnv(profile=profile, start=False, operator_args=operator_args) as env:
        env.kubectl("wait", "--for=condition=Established", "crd/" + ADAPTER_CRD, "--timeout=30s")
        env.kubectl("apply", "-f", "-", input=json.dumps(
            {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}))
        env.start_operator()
        yield env


def apply(env, obj, check=True):
    return env.kubectl("apply", "-f", "-", input=json.dumps(obj), check=check)


def adapter(env, name):
    return env.get("dgdsa", name, NS, check=False)


def deployment_name(env, base):
    """The live Deployment of the component whose Deployment is `base` (<dgd>-<lowercase
    component>): `base` itself, or for a worker the newest generation's `base`-<8 hex>
    (docs/operations.md "Rollouts"); None when there is none."""
    found = [d for d in env.items("deployments", NS)
             if re.fullmatch(re.escape(base) + r"(-[0-9a-f]{8})?", d["metadata"]["name"])]
    found.sort(key=lambda d: (d["metadata"].get("creationTimestamp", ""), d["metadata"]["name"]))
    return found[-1]["metadata"]["name"] if found else None


def deployment_replicas(env, base):
    name = deployment_name(env, base)
    d = env.get("deployment", name, NS, check=False) if name else None
    return d and d["spec"].get("replicas")


def wait_deployment_replicas(env, name, n, what=None):
    wait_until(what or ("Deployment %s at %d replicas" % (name, n)),
               lambda: deployment_replicas(env, name) == n)


def wait_adapter_status(env, name, replicas):
    return wait_until("adapter %s status.replicas %d" % (name, replicas),
                      lambda: (lambda a: a if a and (a.get("status") or {}).get("replicas") == replicas
                               else None)(adapter(env, name)))


def writes_by_resource(writes):
    """{"resource[/subresource]": [(verb, name)]} of request-log write entries."""
    out = {}
    for r in writes:
        key = r.get("resource", "") + ("/" + r["subresource"] if r.get("subresource") else "")
        out.setdefault(key, []).append((r.get("verb"), r.get("name")))
    return out
