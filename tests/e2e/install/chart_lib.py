"""The Helm chart deploy/helm/dgd-operator rendered by deploy/tools/chart-render (Go's
text/template, sprig and Helm's own functions; built once per process with Debian's Go in
GOPATH mode, Go's build cache making it quick after the first time).

    text = template(values={"replicaCount": 1}, sets=["watchNamespace=team-a"])
    objs = objects(...)                # the documents, parsed
    rc, out, err = run("template", ...)  # anything, unchecked
"""
import atexit
import json
import os
import shutil
import subprocess
import tempfile

import yaml

ROOT = os.environ.get("DGD_SOURCE_DIR") or os.path.abspath(
    os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".."))
CHART = os.path.join(ROOT, "deploy", "helm", "dgd-operator")
BUILD = os.path.join(ROOT, "deploy", "tools", "chart-render", "build.sh")
_binary = None


def binary():
    global _binary
    if _binary is None:
        work = tempfile.mkdtemp(prefix="chart-render-")
        atexit.register(shutil.rmtree, work, True)
        out = os.path.join(work, "chart-render")
        p = subprocess.run(["bash", BUILD, out], capture_output=True, text=True, timeout=900)
        if p.returncode != 0:
            raise RuntimeError("building chart-render failed:\n" + p.stdout + p.stderr)
        _binary = out
    return _binary


def _args(values=None, sets=(), release=None, namespace=None, extra=(), value_texts=()):
    """Flags for values given as dicts (written as JSON: every value keeps its JSON type),
    as raw YAML texts (read exactly as a user's values file), and as --set."""
    args = []
    tmp = []
    for v in ([values] if values is not None else []) + list(value_texts):
        f = tempfile.NamedTemporaryFile("w", suffix=".yaml", delete=False)
        f.write(v if isinstance(v, str) else json.dumps(v))
        f.close()
        tmp.append(f.name)
        args += ["-f", f.name]
    for s in sets:
        args += ["--set", s]
    if release:
        args += ["--release-name", release]
    if namespace:
        args += ["--namespace", namespace]
    return args + list(extra), tmp


def run(command, *rest, chart=CHART, **kw):
    args, tmp = _args(**kw)
    try:
        p = subprocess.run([binary(), command] + args + list(rest) + ([chart] if chart else []),
                           capture_output=True, text=True, timeout=120)
    finally:
        for t in tmp:
            os.unlink(t)
    return p.returncode, p.stdout, p.stderr


def template(strict=True, **kw):
    """The rendered manifests (helm template's text); raises with chart-render's message."""
    extra = list(kw.pop("extra", ()))
    if strict:
        extra.append("--strict")
    rc, out, err = run("template", extra=extra, **kw)
    if rc != 0:
        raise AssertionError("chart-render template failed (%d): %s" % (rc, err))
    return out


def objects(**kw):
    return [d for d in yaml.safe_load_all(template(**kw)) if d]


def refusal(**kw):
    """chart-render's error for values the chart must refuse (fails if it renders)."""
    rc, out, err = run("template", **kw)
    if rc == 0:
        raise AssertionError("the chart rendered values it should refuse: %r" % (kw,))
    return err


def notes(**kw):
    rc, out, err = run("notes", **kw)
    if rc != 0:
        raise AssertionError("chart-render notes failed (%d): %s" % (rc, err))
    return out


def install_yaml_text():
    p = subprocess.run([binary(), "install-yaml", ROOT], capture_output=True, text=True, timeout=120)
    if p.returncode != 0:
        raise AssertionError("chart-render install-yaml failed: %s" % p.stderr)
    return p.stdout


def load_chart():
    with open(os.path.join(CHART, "Chart.yaml")) as f:
        meta = yaml.safe_load(f)
    with open(os.path.join(CHART, "values.yaml")) as f:
        values = yaml.safe_load(f)
    return meta, values


def find(objs, kind, name=None):
    return [o for o in objs if o["kind"] == kind and (name is None or o["metadata"]["name"] == name)]
