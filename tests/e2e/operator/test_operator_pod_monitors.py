"""Metrics of the graphs: scrape labels, ports, and the PodMonitor of `--pod-monitors`.

  - every pod of a graph carries nvidia.com/metrics-enabled=true; the frontend's container
    declares port http (8000), the workers' port system (9090);
  - with --pod-monitors and no PodMonitor CRD on the server, the graph still becomes Ready,
    the DGD gets a KindNotServed Event naming podmonitors, the operator stays up and the
    reconcile ends without error (nothing is retried);
  - once the Prometheus Operator's CRD is applied the operator creates the PodMonitor
    <dgd>, owned by the DGD, selecting the graph's pods with the metrics label and scraping
    /metrics on http, system and nixl; `kubectl get podmonitor` shows it; a later
    reconcile writes nothing (the PodMonitor is in place);
  - annotation nvidia.com/enable-metrics=false on the DGD turns the label to "false" on its
    pods (the PodMonitor no longer selects them).
"""
import os

from oplib import OperatorEnv, wait_until

RECIPE = "deepseek-v4.1-flash/vllm/disagg-h200-agentic"
NS = "dynamo"
HERE = os.path.dirname(os.path.abspath(__file__))
CRD = os.path.join(HERE, "crds", "monitoring.coreos.com_podmonitors.yaml")
DGD_LABEL = "nvidia.com/dynamo-graph-deployment-name"
METRICS_LABEL = "nvidia.com/metrics-enabled"


def main_container(pod):
    return next(c for c in pod["spec"]["containers"] if c["name"] == "main")


def check_pods_labelled(env, name):
    pods = env.items("pods", NS, DGD_LABEL + "=" + name)
    assert pods
    for p in pods:
        labels = p["metadata"]["labels"]
        assert labels.get(METRICS_LABEL) == "true", (p["metadata"]["name"], labels)
        ports = {port["name"]: port["containerPort"] for port in main_container(p).get("ports", [])}
        kind = labels["nvidia.com/dynamo-component-type"]
        if kind == "frontend":
            assert ports.get("http") == 8000, ports
        else:
            assert ports.get("system") == 9090, ports


def kind_not_served_events(env, name):
    events = env.items("events", NS)
    return [e for e in events if e.get("reason") == "KindNotServed"
            and e["involvedObject"].get("name") == name and "podmonitors" in e.get("message", "")]


def failed_reconciles(env):
    """The operator's log lines of reconciles that failed, conflicts aside (a cache behind the
    operator's own status write is retried quietly and is no failure of the graph)."""
    return [line for line in env.operator_log().splitlines()
            if "controller dynamographdeployment:" in line
            and ("(retried with back-off)" in line or "(not retried)" in line)]


def check_pod_monitor(env, name, dgd):
    pm = wait_until("PodMonitor " + name, lambda: env.get("podmonitor", name, NS, check=False), timeout=120)
    refs = pm["metadata"]["ownerReferences"]
    assert [(r["kind"], r["uid"], r.get("controller")) for r in refs] == [
        ("DynamoGraphDeployment", dgd["metadata"]["uid"], True)], refs
    assert pm["spec"]["selector"]["matchLabels"] == {DGD_LABEL: name, METRICS_LABEL: "true"}, pm["spec"]
    assert pm["spec"]["namespaceSelector"] == {"matchNames": [NS]}
    endpoints = {e["port"]: e for e in pm["spec"]["podMetricsEndpoints"]}
    assert set(endpoints) == {"http", "system", "nixl"}, endpoints
    for e in endpoints.values():
        assert e["path"] == "/metrics" and e["interval"] == "5s", e
    targets = {r["targetLabel"] for r in endpoints["http"]["relabelings"]}
    assert {"dynamo_namespace", "dynamo_graph_deployment", "dynamo_component_type"} <= targets, targets
    listed = env.kubectl("get", "podmonitor", "-n", NS).stdout
    assert name in listed, listed


def main():
    with OperatorEnv(profile="h200-4x", operator_args=["--pod-monitors=true", "--kind-probe-interval", "1"]) as env:
        name = env.apply_recipe(RECIPE, NS)
        env.wait_ready(name, NS)
        check_pods_labelled(env, name)

        # No PodMonitor CRD: an Event, the graph serves, nothing retried.
        wait_until("a KindNotServed Event", lambda: kind_not_served_events(env, name))
        env.reconcile_now(name, NS)
        assert env.operator_alive()
        assert not failed_reconciles(env), failed_reconciles(env)
        assert env.ready_status(name, NS)["status"] == "True"
        assert env.get("podmonitor", name, NS, check=False) is None

        # The CRD arrives: the operator notices the kind and creates the PodMonitor.
        env.kubectl("apply", "-f", CRD)
        env.kubectl("wait", "--for=condition=Established", "crd/podmonitors.monitoring.coreos.com", "--timeout=30s")
        check_pod_monitor(env, name, env.dgd(name, NS))
        assert env.ready_status(name, NS)["status"] == "True"
        # In place: another reconcile writes nothing.
        seq = env.last_seq()
        env.reconcile_now(name, NS)
        writes = [w for w in env.operator_writes(since=seq) if w.get("resource") != "events"]
        assert not writes, writes

        # Scraping turned off for this graph.
        env.kubectl("annotate", "dgd", name, "-n", NS, "nvidia.com/enable-metrics=false")

        def unlabelled():
            deps = env.items("deployments", NS, DGD_LABEL + "=" + name)
            return deps and all(d["spec"]["template"]["metadata"]["labels"].get(METRICS_LABEL) == "false" for d in deps)
        wait_until("pod templates with %s=false" % METRICS_LABEL, unlabelled)
        env.wait_ready(name, NS)
        pods = env.items("pods", NS, DGD_LABEL + "=" + name)
        assert all(p["metadata"]["labels"].get(METRICS_LABEL) == "false" for p in pods
                   if not p["metadata"].get("deletionTimestamp")), [p["metadata"]["labels"] for p in pods]
    print("ok")


if __name__ == "__main__":
    main()
