"""Shared steps of the model-cache end-to-end tests (docs/model-cache.md).

The DGDs use the V4.1 aggregated H200 recipe with one worker, so several fit the 4x H200
profile at once; the cache, model and revision come from the recipe unless a test
overrides `spec.model`.
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "operator"))
from oplib import ROOT, OperatorEnv, condition, wait_until  # noqa: E402,F401

RECIPE = "deepseek-v4.1-flash/vllm/agg-h200-agentic"
REVISION = "dba1be0a40aa45a94ad051997016db3960a90277"
NS = "dynamo"
CLAIM = "shared-model-cache"
DGD_LABEL = "nvidia.com/dynamo-graph-deployment-name"
CACHE_LABEL = "nvidia.com/model-cache"
PROFILE = os.path.join(ROOT, "tests", "kubesim", "profiles", "h200-4x.yaml")


def sim_args(job_duration):
    """kube-sim on the 4x H200 profile with fast kubelets and download pods that run
    `job_duration` seconds (a Job's sim.dgd.dev/duration annotation overrides it)."""
    return ["--profile", PROFILE, "--kubelet-start-delay", "0.2", "--kubelet-ready-delay", "0.5",
            "--job-duration", str(job_duration), "--pod-termination-delay", "0.2"]


def dgd_doc(name, model=None, worker_replicas=1):
    spec = {"recipe": RECIPE, "components": [{"name": "Worker", "replicas": worker_replicas}]}
    if model:
        spec["model"] = model
    return {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
            "metadata": {"name": name}, "spec": spec}


def apply_dgd(env, doc):
    env.kubectl("apply", "-n", NS, "-f", "-", input=json.dumps(doc))


def cache_jobs(env, claim=CLAIM):
    return env.items("jobs", NS, CACHE_LABEL + "=" + claim)


def deployment(env, dgd, component):
    return env.deployment_of(dgd, component, NS)


def pods(env, dgd, component_type):
    return env.items("pods", NS, "%s=%s,nvidia.com/dynamo-component-type=%s" % (DGD_LABEL, dgd, component_type))


def cond(env, dgd, ctype):
    d = env.dgd(dgd, NS)
    return condition(d, ctype) if d else None


def wait_condition(env, dgd, ctype, status=None, reason=None, timeout=90):
    def ok():
        c = cond(env, dgd, ctype)
        if not c:
            return None
        if status is not None and c.get("status") != status:
            return None
        if reason is not None and c.get("reason") != reason:
            return None
        return c
    return wait_until("%s %s status=%s reason=%s" % (dgd, ctype, status, reason), ok, timeout=timeout)


def wait_dgd_ready(env, dgd, timeout="120s"):
    env.kubectl("wait", "--for=condition=Ready", "dgd/" + dgd, "-n", NS, "--timeout=" + timeout, timeout=300)
