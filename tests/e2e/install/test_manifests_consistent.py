#!/usr/bin/python3
"""deploy/manifests/install.yaml is the Helm chart's defaults (docs/install.md).

1. It is byte for byte what deploy/tools/chart_render.py --write-install produces from
   the chart and crds/ (so an edit of either without regenerating fails here).
2. Read from the template files' text, without any renderer: every object of install.yaml
   has a template of the same kind and name, and every template object is in install.yaml
   unless its template is switched off by default (ServiceMonitor, the one-namespace Role
   and RoleBinding); the Namespace template is the one install.yaml switches on.
3. Its CRDs are the top-level crds/ files.
"""
import os
import re
import sys

import yaml

ROOT = os.environ.get("DGD_SOURCE_DIR") or os.path.abspath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "deploy", "tools"))
import chart_render  # noqa: E402

INSTALL = os.path.join(ROOT, "deploy", "manifests", "install.yaml")
TEMPLATES = os.path.join(ROOT, "deploy", "helm", "dgd-operator", "templates")
RELEASE_NAME, RELEASE_NS = "dgd-operator", "dgd-system"
FAILURES = []


def install_objects():
    with open(INSTALL) as f:
        return [o for o in yaml.safe_load_all(f) if o]


def default_values():
    _, values = chart_render.load_chart()
    values["createNamespace"] = True  # the one setting install.yaml adds (chart_render.INSTALL_SETS)
    return values


def value_at(values, path):
    cur = values
    for p in path.split("."):
        cur = cur[p]
    return cur


def template_objects(values):
    """(file, kind, name, on-by-default) for each object of each template, read as text.
    A condition is a line `{{- if [not] .Values.x }}` ... `{{- end }}` around the object."""
    out = []
    for fname in sorted(os.listdir(TEMPLATES)):
        if not fname.endswith(".yaml"):
            continue
        with open(os.path.join(TEMPLATES, fname)) as f:
            lines = f.read().split("\n")
        conds = []  # stack of bool (None: not a top-level object condition)
        kind = None
        for line in lines:
            m = re.match(r"^\{\{-? if (not )?\.Values\.([\w.]+) -?\}\}$", line)
            if m:
                v = bool(value_at(values, m.group(2)))
                conds.append(not v if m.group(1) else v)
                continue
            if re.match(r"^\s*\{\{-? (if|with|range) ", line):
                conds.append(None)
                continue
            if re.match(r"^\s*\{\{-? end -?\}\}$", line):
                conds.pop()
                continue
            if line.strip() == "---":
                kind = None
                continue
            m = re.match(r"^kind: (\w+)$", line)
            if m:
                kind = m.group(1)
                continue
            m = re.match(r"^  name: (.+)$", line)
            if m and kind:
                name = m.group(1).replace("{{ .Release.Name }}", RELEASE_NAME)
                name = name.replace("{{ .Release.Namespace }}", RELEASE_NS)
                on = all(c is not False for c in conds)
                out.append((fname, kind, name, on))
                kind = None
    return out


def main():
    with open(INSTALL) as f:
        current = f.read()
    if current != chart_render.install_yaml_text():
        FAILURES.append("deploy/manifests/install.yaml is not the chart's defaults: run "
                        "/usr/bin/python3 deploy/tools/chart_render.py --write-install")

    objs = install_objects()
    tpl = template_objects(default_values())
    check_names = {(k, n) for _, k, n, _ in tpl}
    if len(tpl) < 8:
        FAILURES.append("read only %d template objects: the text scan is broken" % len(tpl))
    for o in objs:
        key = (o["kind"], o["metadata"]["name"])
        if o["kind"] == "CustomResourceDefinition":
            continue
        if key not in check_names:
            FAILURES.append("install.yaml: %s %s has no template" % key)
    present = {(o["kind"], o["metadata"]["name"]) for o in objs}
    for fname, kind, name, on in tpl:
        if on and (kind, name) not in present:
            FAILURES.append("templates/%s: %s %s (on by default) is missing from install.yaml" % (fname, kind, name))
        if not on and (kind, name) in present and (kind, name) not in {(k, n) for _, k, n, o in tpl if o}:
            FAILURES.append("templates/%s: %s %s is off by default but in install.yaml" % (fname, kind, name))
    off = sorted((k, n) for _, k, n, o in tpl if not o)
    if ("ServiceMonitor", RELEASE_NAME) not in off:
        FAILURES.append("the ServiceMonitor template should be off by default: %s" % off)

    crds = {}
    d = os.path.join(ROOT, "crds")
    for f in sorted(os.listdir(d)):
        if f.endswith(".yaml"):
            with open(os.path.join(d, f)) as fh:
                c = yaml.safe_load(fh)
            crds[c["metadata"]["name"]] = c
    in_install = {o["metadata"]["name"]: o for o in objs if o["kind"] == "CustomResourceDefinition"}
    if in_install != crds:
        FAILURES.append("install.yaml CRDs differ from crds/ (%s vs %s)" % (sorted(in_install), sorted(crds)))

    if FAILURES:
        print("\n".join("FAIL: " + f for f in FAILURES))
        return 1
    print("ok: %d objects, %d template objects (%d off by default)" % (len(objs), len(tpl),
                                                                      sum(1 for t in tpl if not t[3])))
    return 0


if __name__ == "__main__":
    sys.exit(main())
