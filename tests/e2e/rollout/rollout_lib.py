"""What a worker-generation rollout must keep true, watched pod by pod.

PodWatch follows the pods of a DGD with the Python client's watch (a list, then every
change in the server's order) and checks each state the cluster passes through:
  - isolation: no prefill pod and decode pod of different worker specs share a Dynamo
    namespace (DYN_NAMESPACE, plus "-" + DYN_NAMESPACE_WORKER_SUFFIX when set, as the
    Dynamo runtime composes it). A pod's spec is what the test changes between
    generations: the engine's --kv-cache-dtype and the image;
  - capacity (once armed): some Dynamo namespace holds a Ready prefill pod and a Ready
    decode pod that is not being deleted, i.e. one complete generation serves.
Violations are collected with the state that broke the rule; `deleted` records the pods
that went away.
"""
import os
import re
import sys
import threading

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "operator"))
from oplib import OperatorEnv, condition, wait_until  # noqa: E402,F401

RECIPE = "deepseek-v4.1-flash/vllm/disagg-h200-agentic"
NS = "dynamo"
READY_ANN = "sim.dgd.dev/ready"
DGD_LABEL = "nvidia.com/dynamo-graph-deployment-name"
HASH_LABEL = "nvidia.com/dynamo-worker-hash"


def main_container(pod_spec):
    return next(c for c in pod_spec["containers"] if c["name"] == "main")


def spec_key(container):
    """The worker spec the tests vary: KV-cache dtype and image."""
    args = " ".join((container.get("command") or []) + (container.get("args") or []))
    m = re.search(r"--kv-cache-dtype[ =](\S+)", args)
    return (m.group(1) if m else "", container.get("image", ""))


def pod_state(pod):
    """The dict form of a pod (as the Python client's sanitize gives it) reduced to what the
    checks read."""
    meta, spec, status = pod["metadata"], pod["spec"], pod.get("status") or {}
    labels = meta.get("labels") or {}
    main = main_container(spec)
    env = {e["name"]: e.get("value") for e in main.get("env") or []}
    dyn_ns = env.get("DYN_NAMESPACE") or "dynamo"
    if env.get("DYN_NAMESPACE_WORKER_SUFFIX"):
        dyn_ns += "-" + env["DYN_NAMESPACE_WORKER_SUFFIX"]
    ready = any(c.get("type") == "Ready" and c.get("status") == "True" for c in status.get("conditions") or [])
    return {"type": labels.get("nvidia.com/dynamo-component-type"), "ns": dyn_ns, "spec": spec_key(main),
            "hash": labels.get(HASH_LABEL, ""), "suffix": env.get("DYN_NAMESPACE_WORKER_SUFFIX", ""),
            "ready": ready, "terminating": bool(meta.get("deletionTimestamp"))}


class PodWatch:
    def __init__(self, env, dgd):
        from kubernetes import client
        self.api = client.CoreV1Api(env.sim.python_client())
        self.selector = "%s=%s" % (DGD_LABEL, dgd)
        self.pods = {}
        self.violations = []
        self.deleted = set()
        self.states = 0
        self.armed = False
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._thread = None

    def __enter__(self):
        listed = self.api.list_namespaced_pod(NS, label_selector=self.selector)
        with self._lock:
            for p in listed.items:
                self.pods[p.metadata.name] = pod_state(self.api.api_client.sanitize_for_serialization(p))
            self._check("initial list")
        self._rv = listed.metadata.resource_version
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join(timeout=30)
        return False

    def arm(self):
        """From now on capacity must never reach zero."""
        with self._lock:
            self.armed = True
            self._check("armed")

    def _run(self):
        from kubernetes import watch
        while not self._stop.is_set():
            w = watch.Watch()
            for ev in w.stream(self.api.list_namespaced_pod, NS, label_selector=self.selector,
                               resource_version=self._rv, timeout_seconds=2, _request_timeout=30):
                raw = self.api.api_client.sanitize_for_serialization(ev["object"])
                self._rv = raw["metadata"]["resourceVersion"]
                name = raw["metadata"]["name"]
                with self._lock:
                    if ev["type"] == "DELETED":
                        self.pods.pop(name, None)
                        self.deleted.add(name)
                    else:
                        self.pods[name] = pod_state(raw)
                    self._check("%s %s" % (ev["type"], name))
                if self._stop.is_set():
                    w.stop()
                    break

    def _check(self, event):
        self.states += 1
        workers = {n: s for n, s in self.pods.items() if s["type"] in ("prefill", "decode")}
        for n, s in workers.items():
            if s["suffix"] != s["hash"]:
                self.violations.append("%s: pod %s has suffix %r but generation label %r" % (event, n, s["suffix"], s["hash"]))
        by_ns = {}
        for n, s in workers.items():
            by_ns.setdefault(s["ns"], {}).setdefault(s["type"], set()).add(s["spec"])
        for ns, types in by_ns.items():
            mixed = [(p, d) for p in types.get("prefill", ()) for d in types.get("decode", ()) if p != d]
            if mixed:
                self.violations.append("%s: Dynamo namespace %s pairs prefill and decode of different specs %s"
                                       % (event, ns, mixed))
        if self.armed:
            serving = [ns for ns in by_ns if all(
                any(s["ns"] == ns and s["type"] == t and s["ready"] and not s["terminating"] for s in workers.values())
                for t in ("prefill", "decode"))]
            if not serving:
                self.violations.append("%s: no Dynamo namespace has a Ready prefill and decode pod: %s"
                                       % (event, sorted((n, s["ns"], s["type"], s["ready"]) for n, s in workers.items())))

    def snapshot(self):
        with self._lock:
            return dict(self.pods)


def worker_deployments(env, dgd):
    """{name: Deployment} of the DGD's worker Deployments."""
    return {d["metadata"]["name"]: d for d in env.items("deployments", NS, "%s=%s" % (DGD_LABEL, dgd))
            if (d["metadata"].get("labels") or {}).get("nvidia.com/dynamo-component-type") in ("prefill", "decode")}


def generation_of(deployments):
    hashes = {(d["metadata"].get("labels") or {}).get(HASH_LABEL) for d in deployments.values()}
    assert len(hashes) == 1, hashes
    return hashes.pop()


def edit_workers(env, dgd, change):
    """kubectl replace of the DGD with change(component) applied to each worker component;
    returns the new metadata.generation."""
    import json
    d = env.dgd(dgd, NS)
    for c in d["spec"]["components"]:
        if c.get("type") in ("prefill", "decode"):
            change(c)
    d.pop("status", None)
    env.kubectl("replace", "-f", "-", input=json.dumps(d))
    return env.dgd(dgd, NS)["metadata"]["generation"]


def hold_unready(component):
    """New pods of this worker start unready until the test releases them."""
    meta = component.setdefault("podTemplate", {}).setdefault("metadata", {})
    meta.setdefault("annotations", {})[READY_ANN] = "false"


def release(env, dgd, component_type=None):
    """Makes every held pod of the DGD (of one component type) Ready; pods made later carry
    the hold too."""
    selector = "%s=%s" % (DGD_LABEL, dgd)
    if component_type:
        selector += ",nvidia.com/dynamo-component-type=" + component_type
    for p in env.items("pods", NS, selector):
        if (p["metadata"].get("annotations") or {}).get(READY_ANN) == "false" and not p["metadata"].get("deletionTimestamp"):
            env.kubectl("annotate", "pod", p["metadata"]["name"], "-n", NS, "--overwrite", READY_ANN + "=true",
                        check=False)


def rolling_update(env, dgd):
    return (env.dgd(dgd, NS).get("status") or {}).get("rollingUpdate") or {}


def deployment_writes(env, since):
    """{Deployment name: number of writes} the operator made after request `since`."""
    out = {}
    for w in env.operator_writes(since=since):
        if w.get("resource") == "deployments":
            out[w.get("name")] = out.get(w.get("name"), 0) + 1
    return out
