#!/usr/bin/python3
"""docs/install.md documents the chart's values:

- every value of values.yaml (each leaf path) is in its table of values;
- every example values file in it (the ```yaml values blocks) passes the schema, renders
  (chart-render --strict), and kube-sim accepts every object it renders in a server dry
  run of `kubectl apply` (strict field validation), as do the defaults. The Prometheus
  Operator's ServiceMonitor CRD is not part of kube-sim: the test registers a stand-in
  that accepts any ServiceMonitor spec, so its object is checked for its metadata only.
"""
import json
import os
import re
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import chart_lib  # noqa: E402
from chart_lib import ROOT  # noqa: E402
from kubesim import KubeSim  # noqa: E402

DOC = os.path.join(ROOT, "docs", "install.md")
SERVICE_MONITOR_CRD = {
    "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
    "metadata": {"name": "servicemonitors.monitoring.coreos.com"},
    "spec": {"group": "monitoring.coreos.com", "scope": "Namespaced",
             "names": {"kind": "ServiceMonitor", "listKind": "ServiceMonitorList", "plural": "servicemonitors",
                       "singular": "servicemonitor"},
             "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                 "type": "object", "properties": {"spec": {"type": "object",
                                                           "x-kubernetes-preserve-unknown-fields": True}}}}}]}}


def leaf_paths(v, prefix=()):
    if isinstance(v, dict) and v and prefix[:1] not in (("resources",), ("podSecurityContext",),
                                                         ("securityContext",)):
        for k, x in v.items():
            yield from leaf_paths(x, prefix + (k,))
    else:
        yield ".".join(prefix)


def main():
    with open(DOC) as f:
        doc = f.read()
    failures = []
    section = doc[doc.index("### Values"):doc.index("### Examples")]
    table = set(re.findall(r"^\| `([\w.]+)` \|", section, re.M))
    _, values = chart_lib.load_chart()
    for path in leaf_paths(values):
        if path not in table:
            failures.append("docs/install.md: value %s is not in the table of values" % path)
    for path in sorted(table):
        cur = values
        for p in path.split("."):
            cur = cur.get(p, KeyError) if isinstance(cur, dict) else KeyError
        if cur is KeyError:
            failures.append("docs/install.md documents %s, which values.yaml does not have" % path)

    examples = re.findall(r"^```yaml values\n(.*?)^```$", doc, re.S | re.M)
    if len(examples) < 3:
        failures.append("docs/install.md: expected the ```yaml values examples, found %d" % len(examples))
    renders = [("defaults", chart_lib.template())]
    for i, text in enumerate(examples):
        try:
            renders.append(("example %d" % (i + 1), chart_lib.template(value_texts=[text])))
        except AssertionError as e:
            failures.append("docs/install.md example %d:\n%s\n%s" % (i + 1, text, e))

    with KubeSim() as sim:
        sim.kubectl("apply", "-f", "-", input=json.dumps(SERVICE_MONITOR_CRD))
        sim.kubectl("wait", "--for=condition=Established", "crd/servicemonitors.monitoring.coreos.com",
                    "--timeout=30s")
        for label, text in renders:
            objs = [o for o in yaml.safe_load_all(text) if o]
            namespaces = {o["metadata"].get("namespace") for o in objs} - {None}
            for ns in sorted(namespaces):
                sim.kubectl("apply", "-f", "-", input=json.dumps(
                    {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}}))
            p = sim.kubectl("apply", "--dry-run=server", "-f", "-", input=text, check=False)
            if p.returncode != 0 or "Warning" in p.stderr:
                failures.append("%s: kube-sim refused:\n%s" % (label, p.stderr))
            created = [line for line in p.stdout.splitlines() if line.endswith("(server dry run)")]
            if len(created) != len(objs):
                failures.append("%s: %d objects, %d accepted:\n%s" % (label, len(objs), len(created), p.stdout))
    if failures:
        print("\n".join("FAIL: " + f for f in failures))
        return 1
    print("ok: %d values documented, %d examples applied" % (len(table), len(examples)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
