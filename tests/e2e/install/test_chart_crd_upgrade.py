#!/usr/bin/python3
"""The CRD upgrade path of docs/install.md ("Upgrades", from chart 0.1.x), on kube-sim.

Chart 0.1.x installed the CRDs from its crds/ directory, outside the release. Helm adopts
an existing object into a release only when it carries the release's ownership metadata
(Helm's checkOwnership: label app.kubernetes.io/managed-by=Helm, annotations
meta.helm.sh/release-name and meta.helm.sh/release-namespace). The test creates the CRDs
as chart 0.1.x did, checks Helm would refuse them, runs the documentation's commands
(without the `helm` line: Helm is not installed here), checks Helm would adopt them, then
applies the chart's rendered CRDs over them (what the upgrade does) and the documented
`crds.enabled: false` path (`kubectl apply --server-side -f .../files/crds/`).
"""
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "lib"))
import chart_lib  # noqa: E402
from chart_lib import ROOT, find  # noqa: E402
from kubesim import KubeSim  # noqa: E402

CRDS = ("dynamographdeployments.nvidia.com", "dynamoworkermetadatas.nvidia.com")


def ownership_problems(obj, release, namespace):
    """What Helm's ownership check would refuse (empty: Helm adopts the object)."""
    labels = obj["metadata"].get("labels") or {}
    ann = obj["metadata"].get("annotations") or {}
    out = []
    if labels.get("app.kubernetes.io/managed-by") != "Helm":
        out.append("label app.kubernetes.io/managed-by")
    if ann.get("meta.helm.sh/release-name") != release:
        out.append("annotation meta.helm.sh/release-name")
    if ann.get("meta.helm.sh/release-namespace") != namespace:
        out.append("annotation meta.helm.sh/release-namespace")
    return out


def adoption_block():
    with open(os.path.join(ROOT, "docs", "install.md")) as f:
        doc = f.read()
    blocks = [b for b in re.findall(r"^ *```sh\n(.*?)^ *```$", doc, re.S | re.M) if "kubectl label crd" in b]
    assert len(blocks) == 1, "docs/install.md: expected one ```sh block that labels the CRDs, found %d" % len(blocks)
    lines = [line.strip() for line in blocks[0].splitlines()]
    assert any(line.startswith("helm upgrade dgd-operator") for line in lines), blocks[0]
    return "\n".join(line for line in lines if not line.startswith("helm "))


def main():
    script = adoption_block()
    with KubeSim() as sim:
        sim.kubectl("create", "-f", os.path.join(ROOT, "crds"))

        def crd(name):
            return json.loads(sim.kubectl("get", "crd", name, "-o", "json").stdout)
        for name in CRDS:
            assert ownership_problems(crd(name), "dgd-operator", "dgd-system"), "Helm would adopt %s as is" % name

        p = subprocess.run(["bash", "-euo", "pipefail", "-c", script], env=sim.env(), capture_output=True,
                           text=True, timeout=120)
        assert p.returncode == 0, "the documented commands failed:\n%s\n%s%s" % (script, p.stdout, p.stderr)
        for name in CRDS:
            problems = ownership_problems(crd(name), "dgd-operator", "dgd-system")
            assert not problems, "after the documented commands Helm still refuses %s: %s" % (name, problems)

        rendered = find(chart_lib.objects(), "CustomResourceDefinition")
        out = sim.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List",
                                                                 "items": rendered})).stdout
        assert all("%s configured" % n in out for n in CRDS), out
        for name in CRDS:
            c = crd(name)
            assert c["metadata"]["labels"]["app.kubernetes.io/component"] == "crd", c["metadata"]
            assert c["metadata"]["annotations"]["helm.sh/resource-policy"] == "keep", c["metadata"]
            assert not ownership_problems(c, "dgd-operator", "dgd-system"), c["metadata"]
        sim.kubectl("wait", "--for=condition=Established", *["crd/" + n for n in CRDS], "--timeout=30s")

        out = sim.kubectl("apply", "--server-side", "-f",
                          os.path.join(chart_lib.CHART, "files", "crds")).stdout
        assert all("%s serverside-applied" % n in out for n in CRDS), out
    print("ok")


if __name__ == "__main__":
    main()
