#!/usr/bin/python3
"""Renders deploy/helm/dgd-operator with a small, strict subset of Helm's template language.

Helm cannot be installed on the project's machines. The chart's templates are therefore
kept to a few constructs, and this file renders exactly those:

  {{ .Values.a.b }}  {{ .Release.Name }}  {{ .Release.Namespace }}  {{ .Chart.AppVersion }}
  {{ $.Values.x }}   {{ . }} (inside with/range)
  {{- if X }} {{- else if Y }} {{- else }} {{- end }}   {{- with X }} ... {{- else }} ... {{- end }}
  {{- range X }} ... {{- end }}   {{/* comment */}}   whitespace trimming with {{- and -}}
  functions: toYaml nindent indent quote default eq ne not and or empty, pipes (X | f a)

Anything else is an error, and so is a value a template reads that values.yaml lacks
(Helm would print nothing): that is how the tests prove every `.Values` path exists.
This is not Helm: docs/install.md says what is and is not checked.

  chart_render.py [--set path=value ...]            rendered manifests on stdout
  chart_render.py --write-install                    regenerates deploy/manifests/install.yaml
                                                     and copies crds/ into the chart
"""
import argparse
import os
import re
import sys

import yaml

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
CHART = os.path.join(ROOT, "deploy", "helm", "dgd-operator")
INSTALL_YAML = os.path.join(ROOT, "deploy", "manifests", "install.yaml")
RELEASE = {"Name": "dgd-operator", "Namespace": "dgd-system", "Service": "Helm", "IsInstall": True,
           "IsUpgrade": False}
# What install.yaml is: the chart's defaults plus these (Helm users get the namespace from
# --create-namespace instead).
INSTALL_SETS = ["createNamespace=true"]

# Helm's install order (pkg/releaseutil/kind_sorter.go); unknown kinds go last.
KIND_ORDER = ["Namespace", "NetworkPolicy", "ResourceQuota", "LimitRange", "PodSecurityPolicy",
              "PodDisruptionBudget", "ServiceAccount", "Secret", "SecretList", "ConfigMap", "StorageClass",
              "PersistentVolume", "PersistentVolumeClaim", "CustomResourceDefinition", "ClusterRole",
              "ClusterRoleList", "ClusterRoleBinding", "ClusterRoleBindingList", "Role", "RoleList",
              "RoleBinding", "RoleBindingList", "Service", "DaemonSet", "Pod", "ReplicationController",
              "ReplicaSet", "Deployment", "HorizontalPodAutoscaler", "StatefulSet", "Job", "CronJob",
              "IngressClass", "Ingress", "APIService"]


class TemplateError(Exception):
    pass


class Missing(Exception):
    """A field path that the data does not have."""


# -- parsing ------------------------------------------------------------------------------

ACTION = re.compile(r"\{\{(-\s)?(.*?)(\s-)?\}\}", re.S)


def parse(text, name):
    """Template text -> list of nodes: str | ("act", expr) | ("if", [(expr, body)], else)
    | ("with", expr, body, else) | ("range", expr, body)."""
    pieces = []  # ("text", s) | ("act", expr)
    pos = 0
    for m in ACTION.finditer(text):
        pieces.append(["text", text[pos:m.start()]])
        if m.group(1) and pieces[-1][1]:
            pieces[-1][1] = pieces[-1][1].rstrip()
        pieces.append(["act", m.group(2).strip(), bool(m.group(3)), text.count("\n", 0, m.start()) + 1])
        pos = m.end()
    pieces.append(["text", text[pos:]])
    for i, p in enumerate(pieces):  # right trims
        if p[0] == "act" and p[2] and i + 1 < len(pieces):
            pieces[i + 1][1] = pieces[i + 1][1].lstrip()

    def block(i, stop):
        nodes = []
        while i < len(pieces):
            p = pieces[i]
            if p[0] == "text":
                if p[1]:
                    nodes.append(p[1])
                i += 1
                continue
            expr, line = p[1], p[3]
            where = "%s:%d" % (name, line)
            word = expr.split(None, 1)[0] if expr else ""
            if expr.startswith("/*"):
                if not expr.endswith("*/"):
                    raise TemplateError(where + ": unterminated comment")
                i += 1
            elif word in ("end", "else"):
                if word not in stop:
                    raise TemplateError("%s: unexpected {{ %s }}" % (where, expr))
                return nodes, i
            elif word == "if":
                branches, els = [], None
                cond = expr[2:].strip()
                while True:
                    body, i = block(i + 1, ("end", "else"))
                    branches.append((cond, body, where))
                    e = pieces[i][1]
                    if e == "end":
                        break
                    if e.startswith("else if "):
                        cond = e[len("else if "):].strip()
                        continue
                    if e != "else":
                        raise TemplateError("%s: unsupported {{ %s }}" % (where, e))
                    els, i = block(i + 1, ("end",))
                    break
                nodes.append(("if", branches, els))
                i += 1
            elif word in ("with", "range"):
                arg = expr[len(word):].strip()
                body, i = block(i + 1, ("end", "else"))
                els = None
                if pieces[i][1] == "else":
                    els, i = block(i + 1, ("end",))
                elif pieces[i][1] != "end":
                    raise TemplateError("%s: unsupported {{ %s }}" % (where, pieces[i][1]))
                nodes.append((word, arg, body, els, where))
                i += 1
            elif word in ("define", "template", "include", "block", "tpl", "lookup", "required"):
                raise TemplateError("%s: {{ %s }} is outside the chart's template subset" % (where, word))
            else:
                nodes.append(("act", expr, where))
                i += 1
        if stop:
            raise TemplateError("%s: missing {{ end }}" % name)
        return nodes, i

    nodes, _ = block(0, ())
    return nodes


# -- evaluation -----------------------------------------------------------------------------

TOKEN = re.compile(r'\s*("(?:[^"\\]|\\.)*"|\(|\)|\||[^\s()|]+)')


def tokenize(expr, where):
    out, pos = [], 0
    expr = expr.rstrip()
    while pos < len(expr):
        m = TOKEN.match(expr, pos)
        if not m:
            raise TemplateError("%s: cannot read %r" % (where, expr[pos:]))
        out.append(m.group(1))
        pos = m.end()
    return out


def truthy(v):
    """Go template truth: false, 0, nil and empty strings, lists and maps are false."""
    if v is None or isinstance(v, bool):
        return bool(v)
    if isinstance(v, (int, float)):
        return v != 0
    if isinstance(v, (str, list, dict)):
        return len(v) > 0
    return True


def go_str(v):
    if v is True:
        return "true"
    if v is False:
        return "false"
    if v is None:
        return ""
    if isinstance(v, (dict, list)):
        raise TemplateError("a map or list printed without toYaml: %r" % (v,))
    return str(v)


def to_yaml(v):
    if v is None:
        return "null"
    return yaml.safe_dump(v, default_flow_style=False, sort_keys=True).rstrip("\n")


def fn_indent(n, s):
    pad = " " * int(n)
    return "\n".join(pad + line for line in go_str(s).split("\n"))


FUNCS = {
    "toYaml": to_yaml,
    "indent": fn_indent,
    "nindent": lambda n, s: "\n" + fn_indent(n, s),
    "quote": lambda v: '"' + go_str(v).replace("\\", "\\\\").replace('"', '\\"') + '"',
    "default": lambda d, v=None: v if truthy(v) else d,
    "eq": lambda a, b: a == b,
    "ne": lambda a, b: a != b,
    "not": lambda v: not truthy(v),
    "and": lambda *a: next((x for x in a if not truthy(x)), a[-1]),
    "or": lambda *a: next((x for x in a if truthy(x)), a[-1]),
    "empty": lambda v: not truthy(v),
}


class Scope:
    def __init__(self, root, dot, variables, where):
        self.root, self.dot, self.vars, self.where = root, dot, variables, where

    def field(self, base, path, shown):
        cur = base
        for part in path:
            if not isinstance(cur, dict) or part not in cur:
                raise Missing("%s: %s is not set (values.yaml must define it)" % (self.where, shown))
            cur = cur[part]
        return cur

    def term(self, tok):
        if tok.startswith('"'):
            return bytes(tok[1:-1], "utf-8").decode("unicode_escape")
        if re.fullmatch(r"-?\d+", tok):
            return int(tok)
        if tok in ("true", "false"):
            return tok == "true"
        if tok == "nil":
            return None
        if tok == ".":
            return self.dot
        if tok.startswith("."):
            return self.field(self.dot, tok[1:].split("."), tok)
        if tok == "$":
            return self.root
        if tok.startswith("$."):
            return self.field(self.root, tok[2:].split("."), tok)
        raise TemplateError("%s: unsupported term %r" % (self.where, tok))

    def pipeline(self, toks):
        cmds, cur, depth = [], [], 0
        for t in toks:
            if t == "(":
                depth += 1
            elif t == ")":
                depth -= 1
            if t == "|" and depth == 0:
                cmds.append(cur)
                cur = []
            else:
                cur.append(t)
        cmds.append(cur)
        value, piped = None, False
        for cmd in cmds:
            if not cmd:
                raise TemplateError("%s: empty command in pipeline" % self.where)
            args = self.args(cmd[1:]) if cmd[0] in FUNCS else None
            if cmd[0] in FUNCS:
                if piped:
                    args.append(value)
                try:
                    value = FUNCS[cmd[0]](*args)
                except TypeError as e:
                    raise TemplateError("%s: %s: %s" % (self.where, cmd[0], e))
            else:
                if piped or len(cmd) != 1 and cmd[0] != "(":
                    raise TemplateError("%s: unknown function %r" % (self.where, cmd[0]))
                vals = self.args(cmd)
                if len(vals) != 1:
                    raise TemplateError("%s: cannot evaluate %r" % (self.where, " ".join(cmd)))
                value = vals[0]
            piped = True
        return value

    def args(self, toks):
        out, i = [], 0
        while i < len(toks):
            if toks[i] == "(":
                depth, j = 1, i + 1
                while depth:
                    if j >= len(toks):
                        raise TemplateError("%s: unbalanced (" % self.where)
                    depth += {"(": 1, ")": -1}.get(toks[j], 0)
                    j += 1
                out.append(self.pipeline(toks[i + 1:j - 1]))
                i = j
            else:
                out.append(self.term(toks[i]))
                i += 1
        return out

    def eval(self, expr):
        return self.pipeline(tokenize(expr, self.where))


def execute(nodes, scope, out):
    for n in nodes:
        if isinstance(n, str):
            out.append(n)
        elif n[0] == "act":
            scope.where = n[2]
            out.append(go_str(scope.eval(n[1])))
        elif n[0] == "if":
            for cond, body, where in n[1]:
                scope.where = where
                if truthy(scope.eval(cond)):
                    execute(body, scope, out)
                    break
            else:
                if n[2] is not None:
                    execute(n[2], scope, out)
        elif n[0] in ("with", "range"):
            _, arg, body, els, where = n
            scope.where = where
            var = None
            m = re.match(r"^(\$\w+)\s*:=\s*(.*)$", arg, re.S)
            if m:
                var, arg = m.group(1), m.group(2)
            value = scope.eval(arg)
            if not truthy(value):
                if els is not None:
                    execute(els, scope, out)
                continue
            items = [value] if n[0] == "with" else (value if isinstance(value, list) else
                                                    [value[k] for k in sorted(value)])
            for item in items:
                inner = Scope(scope.root, item, dict(scope.vars), where)
                if var:
                    inner.vars[var] = item
                execute(body, inner, out)


# -- chart ---------------------------------------------------------------------------------

def set_value(values, assignment):
    path, _, raw = assignment.partition("=")
    cur = values
    parts = path.split(".")
    for p in parts[:-1]:
        if not isinstance(cur.get(p), dict):
            raise TemplateError("--set %s: %s is not a map in values.yaml" % (assignment, p))
        cur = cur[p]
    if parts[-1] not in cur:
        raise TemplateError("--set %s: %s is not in values.yaml" % (assignment, path))
    cur[parts[-1]] = yaml.safe_load(raw) if raw != "" else ""


def load_chart(chart=CHART):
    with open(os.path.join(chart, "Chart.yaml")) as f:
        meta = yaml.safe_load(f)
    with open(os.path.join(chart, "values.yaml")) as f:
        values = yaml.safe_load(f)
    return meta, values


def template_files(chart=CHART):
    d = os.path.join(chart, "templates")
    return sorted(f for f in os.listdir(d) if f.endswith(".yaml"))


def render(sets=(), chart=CHART, release=None):
    """Returns [(template file, document text, object)] in Helm's install order."""
    meta, values = load_chart(chart)
    for s in sets:
        set_value(values, s)
    chart_obj = {"Name": meta["name"], "Version": meta["version"], "AppVersion": meta.get("appVersion", "")}
    root = {"Values": values, "Release": dict(release or RELEASE), "Chart": chart_obj}
    docs = []
    for fname in template_files(chart):
        with open(os.path.join(chart, "templates", fname)) as f:
            text = f.read()
        nodes = parse(text, fname)
        out = []
        execute(nodes, Scope(root, root, {}, fname), out)
        rendered = "".join(out)
        for part in re.split(r"(?m)^---[ \t]*$", rendered):
            obj = yaml.safe_load(part)
            if obj is None:
                continue
            if not isinstance(obj, dict) or "kind" not in obj:
                raise TemplateError("%s: rendered a document that is not an object:\n%s" % (fname, part))
            docs.append((fname, part.strip("\n"), obj))

    def key(d):
        kind = d[2]["kind"]
        return (KIND_ORDER.index(kind) if kind in KIND_ORDER else len(KIND_ORDER), kind,
                d[2]["metadata"]["name"])
    return sorted(docs, key=key)


def crd_files():
    d = os.path.join(ROOT, "crds")
    return sorted(f for f in os.listdir(d) if f.endswith(".yaml"))


INSTALL_HEADER = """\
# dgd-operator, installed with one command:
#   kubectl apply -f deploy/manifests/install.yaml
# GENERATED by deploy/tools/chart_render.py --write-install: do not edit; edit the chart
# (deploy/helm/dgd-operator) or crds/ and regenerate. It is the chart's defaults (release
# "dgd-operator" in the namespace "dgd-system", plus the Namespace itself), preceded by the
# CRDs: tests/e2e/install/test_manifests_consistent.py fails when it differs. See docs/install.md.
"""


def install_yaml_text():
    parts = [INSTALL_HEADER]
    for f in crd_files():
        with open(os.path.join(ROOT, "crds", f)) as fh:
            parts.append("---\n# Source: crds/%s\n%s" % (f, fh.read().rstrip("\n") + "\n"))
    for fname, text, _ in render(INSTALL_SETS):
        parts.append("---\n# Source: dgd-operator/templates/%s\n%s\n" % (fname, text))
    return "".join(parts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--set", action="append", default=[], help="path=value (YAML), as helm --set")
    ap.add_argument("--write-install", action="store_true",
                    help="regenerate deploy/manifests/install.yaml and the chart's crds/")
    a = ap.parse_args()
    try:
        if a.write_install:
            os.makedirs(os.path.join(CHART, "crds"), exist_ok=True)
            for f in crd_files():
                with open(os.path.join(ROOT, "crds", f), "rb") as src:
                    data = src.read()
                with open(os.path.join(CHART, "crds", f), "wb") as dst:
                    dst.write(data)
            with open(INSTALL_YAML, "w") as f:
                f.write(install_yaml_text())
            print("wrote %s and %s/crds" % (os.path.relpath(INSTALL_YAML, ROOT), os.path.relpath(CHART, ROOT)))
            return 0
        for fname, text, _ in render(a.set):
            sys.stdout.write("---\n# Source: dgd-operator/templates/%s\n%s\n" % (fname, text))
    except (TemplateError, Missing) as e:
        sys.stderr.write("chart_render: %s\n" % e)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
