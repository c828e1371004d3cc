#!/usr/bin/python3
"""deploy/manifests/install.yaml is the Helm chart's defaults (docs/install.md).

1. It is byte for byte what `chart-render install-yaml` produces from the chart and the
   repository's crds/ (so an edit of either without regenerating fails here).
2. Its CRDs are the repository's crds/ files, object for object, with only the chart's
   standard labels and the helm.sh/resource-policy annotation added; the chart's own copy
   (files/crds/) is byte for byte crds/.
3. It holds every object of the chart's default render, plus the Namespace, without the
   `helm test` Pod (kubectl apply would run it as an ordinary Pod).
"""
import os
import sys

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import chart_lib  # noqa: E402
from chart_lib import ROOT  # noqa: E402

INSTALL = os.path.join(ROOT, "deploy", "manifests", "install.yaml")
REGENERATE = "run deploy/tools/chart-render.sh write-install ."
FAILURES = []


def install_objects():
    with open(INSTALL) as f:
        return [o for o in yaml.safe_load_all(f) if o]


def repository_crds():
    out = {}
    for d in (os.path.join(ROOT, "crds"), os.path.join(chart_lib.CHART, "files", "crds")):
        for f in sorted(os.listdir(d)):
            if f.endswith(".yaml"):
                with open(os.path.join(d, f), "rb") as fh:
                    out.setdefault(f, []).append(fh.read())
    for f, copies in sorted(out.items()):
        if len(copies) != 2 or copies[0] != copies[1]:
            FAILURES.append("the chart's files/crds/%s is not crds/%s (%s)" % (f, f, REGENERATE))
    return {c["metadata"]["name"]: c for c in (yaml.safe_load(v[0]) for v in out.values())}


def without_chart_metadata(crd):
    """The CRD without what the chart adds: its labels and the keep annotation."""
    c = yaml.safe_load(yaml.safe_dump(crd))
    meta = c["metadata"]
    meta.pop("labels", None)
    ann = meta.pop("annotations", {}) or {}
    ann.pop("helm.sh/resource-policy", None)
    if ann:
        meta["annotations"] = ann
    return c


def main():
    with open(INSTALL) as f:
        current = f.read()
    if current != chart_lib.install_yaml_text():
        FAILURES.append("deploy/manifests/install.yaml is not the chart's defaults: " + REGENERATE)

    objs = install_objects()
    crds = {k: without_chart_metadata(v) for k, v in repository_crds().items()}
    in_install = {o["metadata"]["name"]: o for o in objs if o["kind"] == "CustomResourceDefinition"}
    if sorted(in_install) != sorted(crds):
        FAILURES.append("install.yaml CRDs %s != crds/ %s" % (sorted(in_install), sorted(crds)))
    for name, crd in in_install.items():
        if name in crds and without_chart_metadata(crd) != crds[name]:
            FAILURES.append("install.yaml's CRD %s differs from crds/ beyond the chart's labels" % name)
        if crd["metadata"].get("annotations", {}).get("helm.sh/resource-policy") != "keep":
            FAILURES.append("install.yaml's CRD %s lacks helm.sh/resource-policy: keep" % name)

    chart = {(o["kind"], o["metadata"]["name"]) for o in chart_lib.objects(sets=["createNamespace=true"])}
    present = {(o["kind"], o["metadata"]["name"]) for o in objs}
    test_pods = {k for k in chart if k[0] == "Pod"}
    if not test_pods:
        FAILURES.append("the chart renders no helm test Pod")
    if present != chart - test_pods:
        FAILURES.append("install.yaml objects differ from the chart's: missing %s, extra %s"
                        % (sorted(chart - test_pods - present), sorted(present - (chart - test_pods))))
    if [o["metadata"]["name"] for o in objs if o["kind"] == "Namespace"] != ["dgd-system"]:
        FAILURES.append("install.yaml must create the namespace dgd-system")

    if FAILURES:
        print("\n".join("FAIL: " + f for f in FAILURES))
        return 1
    print("ok: %d objects, %d CRDs" % (len(objs), len(in_install)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
