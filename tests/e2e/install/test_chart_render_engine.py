#!/usr/bin/python3
"""chart-render behaves as Helm's engine on a small chart of its own, function by
function, with the outputs Helm gives:

- values: a values-file number is a float64, a --set integer an int64, --set-string a
  string; a user's null removes a default; later -f files win; a missing value renders
  as "" (not "<no value>"), and as an error with --strict;
- include (with a nested define), tpl (seeing .Values and the other templates), required
  and fail (Helm's "execution error at (file:line:col): message"), toYaml (quotes YAML 1.1
  strings, no trailing newline), fromYaml (an Error key on bad input), toJson, lookup
  (an empty map), .Files.Get / .Files.Glob, .Capabilities, .Release, .Chart;
- output: documents split on ---, ordered in Helm's install order, hooks after them,
  each under "# Source:"; NOTES.txt apart; files starting with _ not rendered.
"""
import os
import shutil
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import chart_lib  # noqa: E402

CHART_YAML = "apiVersion: v2\nname: probe\nversion: 1.2.3\nappVersion: \"4.5\"\nkubeVersion: \">=1.20.0-0\"\n"
VALUES = "num: 1\nkeep: kept\ngone: default\nnested: {a: 1, b: 2}\nlabels: {}\nname: world\n"
TEMPLATES = {
    "_helpers.tpl": '{{- define "probe.inner" -}}inner-{{ . }}{{- end }}\n'
                    '{{- define "probe.outer" -}}outer({{ include "probe.inner" . }}){{- end }}\n',
    "b-config.yaml": """apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .Release.Name }}-cfg
  namespace: {{ .Release.Namespace }}
data:
  kinds: "{{ kindOf .Values.num }} {{ kindOf .Values.setnum }} {{ kindOf .Values.setstr }}"
  num: "{{ .Values.num }}"
  big: "{{ .Values.big }}"
  gone: "{{ .Values.gone }}|{{ .Values.keep }}"
  nested: {{ toJson .Values.nested | quote }}
  missing: "[{{ .Values.nothing }}]"
  include: {{ include "probe.outer" "x" | quote }}
  tpl: {{ tpl "hello {{ .Values.name }} {{ include \\"probe.inner\\" 1 }}" . | quote }}
  lookup: {{ lookup "v1" "Secret" "ns" "name" | toJson | quote }}
  fromYaml: {{ (fromYaml "a: [") | keys | toJson | quote }}
  file: {{ .Files.Get "files/a.txt" | trim | quote }}
  glob: "{{ range $p, $_ := .Files.Glob "files/*.txt" }}{{ $p }} {{ end }}"
  caps: "{{ .Capabilities.KubeVersion.Version }} {{ .Capabilities.APIVersions.Has "apps/v1" }} {{ .Chart.Name }}-{{ .Chart.Version }}-{{ .Chart.AppVersion }}"
  labels: |
    {{- toYaml .Values.labels | nindent 4 }}
""",
    "a-deploy.yaml": "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: d\n---\n"
                     "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: sa\n",
    "c-hook.yaml": "apiVersion: v1\nkind: Pod\nmetadata:\n  name: t\n  annotations:\n    helm.sh/hook: test\n",
    "d-empty.yaml": "{{- if false }}\nkind: Nothing\n{{- end }}\n",
    "NOTES.txt": "notes for {{ .Release.Name }}\n",
}


def make_chart(root, extra=None):
    chart = os.path.join(root, "probe")
    os.makedirs(os.path.join(chart, "templates"))
    os.makedirs(os.path.join(chart, "files"))
    for name, text in [("Chart.yaml", CHART_YAML), ("values.yaml", VALUES), ("files/a.txt", "A\n"),
                       ("files/b.txt", "B\n"), ("files/c.dat", "C\n")]:
        with open(os.path.join(chart, name), "w") as f:
            f.write(text)
    for name, text in dict(TEMPLATES, **(extra or {})).items():
        with open(os.path.join(chart, "templates", name), "w") as f:
            f.write(text)
    return chart


def main():
    failures = []

    def check(cond, msg):
        if not cond:
            failures.append(msg)

    work = tempfile.mkdtemp()
    try:
        chart = make_chart(os.path.join(work, "ok"))
        values = "gone: null\nnested: {b: 3}\nbig: 20250101\nlabels: {a: \"y\", b: \"1234e56\", c: \"on\"}\n"
        rc, out, err = chart_lib.run("template", chart=chart, value_texts=["nested: {a: 0}\n", values],
                                     sets=["setnum=42", "name=set"], release="rel", namespace="ns",
                                     extra=["--set-string", "setstr=7"])
        check(rc == 0, "render failed: %s" % err)
        import yaml
        docs = [d for d in yaml.safe_load_all(out) if d]
        sources = [line for line in out.splitlines() if line.startswith("# Source:")]
        check([d["kind"] for d in docs] == ["ServiceAccount", "ConfigMap", "Deployment", "Pod"],
              "install order with the hook last: %s" % [d["kind"] for d in docs])
        check(sources == ["# Source: probe/templates/a-deploy.yaml", "# Source: probe/templates/b-config.yaml",
                          "# Source: probe/templates/a-deploy.yaml", "# Source: probe/templates/c-hook.yaml"],
              "sources %s" % sources)
        check(out.startswith("---\n# Source: probe/templates/a-deploy.yaml\napiVersion: v1\nkind: ServiceAccount"),
              "document format:\n" + out[:200])
        data = docs[1]["data"]
        want = {
            "kinds": "float64 int64 string", "num": "1", "big": "2.0250101e+07", "gone": "|kept",
            "nested": '{"a":0,"b":3}', "missing": "[]", "include": "outer(inner-x)", "tpl": "hello set inner-1",
            "lookup": "{}", "fromYaml": '["Error"]', "file": "A", "glob": "files/a.txt files/b.txt ",
            "caps": "v1.32.0 true probe-1.2.3-4.5", "labels": 'a: "y"\nb: "1234e56"\nc: "on"\n',
        }
        for k, v in want.items():
            check(data.get(k) == v, "%s: %r, Helm gives %r" % (k, data.get(k), v))
        check("kind: Nothing" not in out and "notes for" not in out, "empty or NOTES documents in the output")
        rc, notes, _ = chart_lib.run("notes", chart=chart, release="rel")
        check(notes == "notes for rel\n", "notes %r" % notes)

        rc, _, err = chart_lib.run("template", "--strict", chart=chart)
        check(rc == 1 and 'map has no entry for key "setnum"' in err, "--strict: %d %s" % (rc, err))

        for name, text, message in [
            ("required", '{{ required "probe.thing is required" .Values.thing }}',
             "Error: execution error at (probe/templates/x.yaml:1:3): probe.thing is required"),
            ("fail", '\n{{- fail "no way" }}', "Error: execution error at (probe/templates/x.yaml:2:4): no way"),
            ("parse", "{{ if }}", "Error: parse error at (probe/templates/x.yaml:1): missing value for if"),
        ]:
            chart = make_chart(os.path.join(work, name), {"x.yaml": text})
            rc, _, err = chart_lib.run("template", chart=chart)
            check(rc == 1 and err.strip() == message, "%s: %d %r, Helm says %r" % (name, rc, err.strip(), message))
    finally:
        shutil.rmtree(work)
    if failures:
        print("\n".join("FAIL: " + f for f in failures))
        return 1
    print("ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
