"""spec.restart on a simulated 4x H200 cluster: a new id replaces the graph's pods.

  - spec.restart set on create is refused at admission (upstream's CEL rule);
  - Sequential in a given order: each component's pods are replaced only after the
    previous component's new pods are ready; status.restart moves Restarting
    [DecodeWorker] -> [Frontend] -> [PrefillWorker] -> Completed; the Deployments keep
    nvidia.com/restartAt afterwards, so a later reconcile replaces nothing;
  - Parallel: every component restarts at once (inProgress names all three), then Completed;
  - an order naming an unknown component is refused with its field path, and nothing runs
    differently: same pods, same replicas, status.restart unchanged.
Pods and statuses are observed through watches (Python kubernetes client) started before
each change, so the order of events is the server's.
"""
import json
import threading

from kubernetes import client, watch

from oplib import OperatorEnv, condition, wait_until

RECIPE = "deepseek-v4.1-flash/vllm/disagg-h200-agentic"
NS = "dynamo"
COMPONENTS = ("DecodeWorker", "Frontend", "PrefillWorker")
DGD_LABEL = "nvidia.com/dynamo-graph-deployment-name"


class Recorder:
    """Watches from a resourceVersion and keeps every event, in the server's order."""

    def __init__(self, list_fn, *args, **kw):
        self.events = []
        self._w = watch.Watch()
        thread = threading.Thread(target=self._run, args=(list_fn, args, kw), daemon=True)
        thread.start()

    def _run(self, list_fn, args, kw):
        for ev in self._w.stream(list_fn, *args, timeout_seconds=600, **kw):
            self.events.append(ev)

    def stop(self):
        self._w.stop()


def live_pods(env, name):
    return {p["metadata"]["name"]: p for p in env.items("pods", NS, DGD_LABEL + "=" + name)
            if not p["metadata"].get("deletionTimestamp")}


def component_of(pod_labels):
    return (pod_labels or {}).get("nvidia.com/dynamo-component")


def start_recorders(api, custom, name):
    pods_rv = api.list_namespaced_pod(NS).metadata.resource_version
    dgd_rv = custom.list_namespaced_custom_object("nvidia.com", "v1beta1", NS,
                                                  "dynamographdeployments")["metadata"]["resourceVersion"]
    pods = Recorder(api.list_namespaced_pod, NS, resource_version=pods_rv, label_selector=DGD_LABEL + "=" + name)
    dgds = Recorder(custom.list_namespaced_custom_object, "nvidia.com", "v1beta1", NS, "dynamographdeployments",
                    resource_version=dgd_rv, field_selector="metadata.name=" + name)
    return pods, dgds


def restart_statuses(recorder, rid):
    """The distinct status.restart values of restart `rid`, in the order the watch delivered them."""
    out = []
    for ev in recorder.events:
        r = (ev["object"].get("status") or {}).get("restart")
        if r and r.get("observedID") == rid and (not out or out[-1] != r):
            out.append(r)
    return out


def new_pod_components(recorder, old):
    """Component of each pod ADDED after the change, in the server's order."""
    return [component_of(ev["object"].metadata.labels) for ev in recorder.events
            if ev["type"] == "ADDED" and ev["object"].metadata.name not in old]


def wait_completed(env, name, rid):
    def done():
        r = (env.dgd(name, NS).get("status") or {}).get("restart") or {}
        return r if r.get("observedID") == rid and r.get("phase") == "Completed" else None
    return wait_until("restart %s to complete" % rid, done, timeout=240)


def restart(env, name, body):
    env.kubectl("patch", "dgd", name, "-n", NS, "--type=merge", "-p", json.dumps({"spec": {"restart": body}}))


def check_create_refused(env):
    doc = {"apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": {"name": "fresh"},
           "spec": {"recipe": RECIPE, "restart": {"id": "r0"}}}
    p = env.kubectl("create", "-n", NS, "-f", "-", input=json.dumps(doc), check=False)
    assert p.returncode != 0, p.stdout
    assert "spec.restart must be unset on create" in p.stderr, p.stderr


def check_sequential(env, api, custom, name):
    old = set(live_pods(env, name))
    pods, dgds = start_recorders(api, custom, name)
    order = ["DecodeWorker", "Frontend", "PrefillWorker"]
    restart(env, name, {"id": "r1", "strategy": {"type": "Sequential", "order": order}})
    wait_completed(env, name, "r1")
    env.wait_ready(name, NS)
    now = live_pods(env, name)
    assert not (old & set(now)), "pods not replaced: %s" % sorted(old & set(now))
    added = new_pod_components(pods, old)
    assert set(added) == set(COMPONENTS), added
    # Each component's pods come strictly after the previous component's.
    firsts = [added.index(c) for c in order]
    lasts = [len(added) - 1 - added[::-1].index(c) for c in order]
    assert lasts[0] < firsts[1] and lasts[1] < firsts[2], "pods not replaced in order: %s" % added
    seen = restart_statuses(dgds, "r1")
    want = [{"observedID": "r1", "phase": "Restarting", "inProgress": [c]} for c in order]
    want.append({"observedID": "r1", "phase": "Completed"})
    assert seen == want, seen
    pods.stop()
    dgds.stop()
    for c in COMPONENTS:
        dep = env.deployment_of(name, c, NS)
        assert dep["spec"]["template"]["metadata"]["annotations"]["nvidia.com/restartAt"] == "r1", c
    # The annotation stays: another reconcile replaces nothing.
    before = sorted(live_pods(env, name))
    env.reconcile_now(name, NS)
    assert sorted(live_pods(env, name)) == before


def check_parallel(env, api, custom, name):
    old = set(live_pods(env, name))
    pods, dgds = start_recorders(api, custom, name)
    # A merge patch: the Sequential order set before is removed (an order with Parallel is refused).
    restart(env, name, {"id": "r2", "strategy": {"type": "Parallel", "order": None}})
    wait_completed(env, name, "r2")
    env.wait_ready(name, NS)
    assert not (old & set(live_pods(env, name)))
    seen = restart_statuses(dgds, "r2")
    assert seen[0] == {"observedID": "r2", "phase": "Restarting", "inProgress": list(COMPONENTS)}, seen
    assert seen[-1] == {"observedID": "r2", "phase": "Completed"}, seen
    added = new_pod_components(pods, old)
    assert set(added) == set(COMPONENTS), added
    pods.stop()
    dgds.stop()


def check_unknown_component_refused(env, name):
    before_pods = sorted(live_pods(env, name))
    replicas = {c: env.deployment_of(name, c, NS)["spec"]["replicas"] for c in COMPONENTS}
    restart(env, name, {"id": "r3", "strategy": {"type": "Sequential", "order": ["Frontend", "Decoder", "PrefillWorker"]}})
    gen = env.dgd(name, NS)["metadata"]["generation"]

    def refused():
        d = env.dgd(name, NS)
        c = condition(d, "SpecValid")
        return c if d["status"].get("observedGeneration") == gen and c and c["status"] == "False" else None
    c = wait_until("SpecValid=False", refused)
    assert 'spec.restart.strategy.order[1]: Unsupported value: "Decoder"' in c["message"], c["message"]
    env.reconcile_now(name, NS)
    assert sorted(live_pods(env, name)) == before_pods
    for comp, n in replicas.items():
        assert env.deployment_of(name, comp, NS)["spec"]["replicas"] == n, comp
    assert env.dgd(name, NS)["status"]["restart"] == {"observedID": "r2", "phase": "Completed"}


def main():
    with OperatorEnv(profile="h200-4x") as env:
        name = env.apply_recipe(RECIPE, NS)
        env.wait_ready(name, NS)
        api_client = env.sim.python_client()
        api = client.CoreV1Api(api_client)
        custom = client.CustomObjectsApi(api_client)
        check_create_refused(env)
        check_sequential(env, api, custom, name)
        check_parallel(env, api, custom, name)
        check_unknown_component_refused(env, name)
    print("ok")


if __name__ == "__main__":
    main()
