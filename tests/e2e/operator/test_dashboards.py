"""The Grafana dashboards under deploy/dashboards/ query only metrics that exist.

Every panel query and every template variable query is parsed with Prometheus' own PromQL
grammar (promql/metric_names.mjs on @prometheus-io/lezer-promql), and each metric it names
must be exported:
  - dgd-operator.json: a name the operator serves on /metrics, scraped from an operator
    that has reconciled a graph on kube-sim;
  - dynamo-graph.json: a name the Dynamo frontend, workers or NIXL export, as recorded
    with its source commit in tests/referees/dynamo-metrics/names.json (a histogram
    exports _bucket, _sum and _count).
Every panel has at least one query, and the graph dashboard covers what an operator of a
graph looks at: request rate, TTFT and ITL percentiles, tokens/s, KV-cache usage, queue and
NIXL transfer.
"""
import json
import os
import re
import subprocess

from oplib import ROOT, OperatorEnv

RECIPE = "deepseek-v4.1-flash/vllm/agg-h200-agentic"
HERE = os.path.dirname(os.path.abspath(__file__))
DASHBOARDS = os.path.join(ROOT, "deploy", "dashboards")
NAMES = os.path.join(ROOT, "tests", "referees", "dynamo-metrics", "names.json")


def panels(dashboard):
    for p in dashboard.get("panels", []):
        yield p
        yield from p.get("panels", [])


def queries(dashboard):
    """(where, PromQL) of every panel target and template variable."""
    out = []
    for p in panels(dashboard):
        if p.get("type") == "row":
            continue
        targets = p.get("targets") or []
        assert targets, "panel %r has no query" % p.get("title")
        for t in targets:
            assert t.get("expr"), "panel %r has a target without expr" % p.get("title")
            out.append(("panel %r" % p["title"], t["expr"]))
    for v in dashboard.get("templating", {}).get("list", []):
        if v.get("type") != "query":
            continue
        q = v["query"]["query"] if isinstance(v["query"], dict) else v["query"]
        m = re.fullmatch(r"label_values\((.*),\s*(\w+)\)", q)
        assert m, "variable %s: %r is not label_values(<selector>, <label>)" % (v["name"], q)
        out.append(("variable %s" % v["name"], m.group(1)))
    return out


def metric_names(exprs):
    p = subprocess.run(["node", os.path.join(HERE, "promql", "metric_names.mjs")], input=json.dumps(exprs),
                       capture_output=True, text=True, check=True)
    return json.loads(p.stdout)


def check(dashboard_file, exported):
    with open(os.path.join(DASHBOARDS, dashboard_file)) as f:
        dashboard = json.load(f)
    found = queries(dashboard)
    parsed = metric_names([q for _, q in found])
    used = set()
    for (where, _), r in zip(found, parsed):
        assert r["error"] is None, "%s in %s: %s" % (where, dashboard_file, r["error"])
        assert r["metrics"], "%s in %s names no metric: %s" % (where, dashboard_file, r["expr"])
        missing = [m for m in r["metrics"] if m not in exported]
        assert not missing, "%s in %s queries %s, which nothing exports" % (where, dashboard_file, missing)
        used.update(r["metrics"])
    return used


def engine_names():
    with open(NAMES) as f:
        sources = json.load(f)["sources"]
    names = set()
    for s in sources:
        assert re.fullmatch(r"[0-9a-f]{40}", s["commit"]), s
        names.update(s["counter"] + s["gauge"])
        for h in s["histogram"]:
            names.update(h + suffix for suffix in ("_bucket", "_sum", "_count"))
    return names


def main():
    used = check("dynamo-graph.json", engine_names())
    for needed in ("dynamo_frontend_requests_total", "dynamo_frontend_time_to_first_token_seconds_bucket",
                   "dynamo_frontend_inter_token_latency_seconds_bucket", "dynamo_frontend_output_tokens_total",
                   "dynamo_component_kvstats_gpu_cache_usage_percent", "dynamo_frontend_queued_requests",
                   "agent_tx_bytes"):
        assert needed in used, "the graph dashboard has no panel on %s" % needed

    with OperatorEnv(profile="h200-4x") as env:
        name = env.apply_recipe(RECIPE, "dynamo")
        env.wait_ready(name, "dynamo")
        served = {sample for (sample, _labels) in env.metrics()}
    used = check("dgd-operator.json", served)
    for needed in ("controller_runtime_reconcile_total", "controller_runtime_reconcile_errors_total",
                   "workqueue_depth", "rest_client_requests_total", "dgd_informer_cache_objects"):
        assert needed in used, "the operator dashboard has no panel on %s" % needed
    print("ok")


if __name__ == "__main__":
    main()
