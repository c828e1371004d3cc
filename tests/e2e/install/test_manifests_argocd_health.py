#!/usr/bin/python3
"""The Argo CD health check of docs/gitops.md (deploy/gitops/argocd-health.lua), run by
Lua 5.1 (the language Argo CD's gopher-lua speaks) on DGDs the operator really wrote:

- the doc's block is the file, character for character;
- a recipe DGD the operator brought to Ready (its real status) is Healthy; the same object
  with a spec change the operator has not observed yet is Progressing; a fresh DGD without
  status is Progressing; SpecValid=False is Degraded with its message; Ready=False is
  Progressing with the operator's message; Serving=False is Degraded; a DGD being deleted
  is Progressing.
"""
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "operator"))
from oplib import ROOT, OperatorEnv, condition, wait_until  # noqa: E402

LUA = os.path.join(ROOT, "deploy", "gitops", "argocd-health.lua")


def lua_literal(v):
    if v is None:
        return "nil"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        return repr(v)
    if isinstance(v, str):
        return '"%s"' % "".join("\\%03d" % ord(c) if c in '"\\\n\r' or ord(c) < 32 else c for c in v)
    if isinstance(v, list):
        return "{" + ", ".join(lua_literal(x) for x in v) + "}"
    return "{" + ", ".join("[%s] = %s" % (lua_literal(k), lua_literal(x)) for k, x in v.items()) + "}"


def health(obj):
    script = ("obj = %s\nlocal hs = assert(loadfile(%s))()\nio.write(hs.status, '\\n', tostring(hs.message))\n"
              % (lua_literal(obj), lua_literal(LUA)))
    p = subprocess.run(["lua5.1", "-"], input=script, capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, "lua failed: %s" % p.stderr
    status, _, message = p.stdout.partition("\n")
    return status, message


def with_condition(obj, ctype, status, reason="", message=""):
    o = copy.deepcopy(obj)
    conds = [c for c in o["status"]["conditions"] if c["type"] != ctype]
    if status is not None:
        conds.append({"type": ctype, "status": status, "reason": reason, "message": message})
    o["status"]["conditions"] = conds
    return o


def main():
    assert shutil.which("lua5.1"), "lua5.1 is missing: run scripts/install-deps.sh"
    with open(os.path.join(ROOT, "docs", "gitops.md")) as f:
        doc = f.read()
    m = re.search(r"resource\.customizations\.health\.nvidia\.com_DynamoGraphDeployment: \|\n(.*?)\n```", doc, re.S)
    assert m, "docs/gitops.md: the argocd-cm health block is gone"
    with open(LUA) as f:
        assert textwrap.dedent(m.group(1)) + "\n" == f.read(), "docs/gitops.md and %s differ" % LUA

    with OperatorEnv("h200-4x") as env:
        name = env.apply_recipe("deepseek-v4.1-flash/vllm/agg-h200-agentic", "dynamo")
        env.wait_ready(name, "dynamo")
        live = env.dgd(name, "dynamo")
        assert condition(live, "Ready")["status"] == "True"
        healthy = with_condition(live, "Serving", None)  # the serving check is judged separately below
        status, msg = health(healthy)
        assert status == "Healthy", (status, msg, live["status"])

        fresh = copy.deepcopy(live)
        del fresh["status"]
        assert health(fresh)[0] == "Progressing"

        ahead = copy.deepcopy(healthy)
        ahead["metadata"]["generation"] = live["status"]["observedGeneration"] + 1
        status, msg = health(ahead)
        assert status == "Progressing" and str(ahead["metadata"]["generation"]) in msg, (status, msg)

        invalid = with_condition(healthy, "SpecValid", "False", "InvalidSpec",
                                 "spec.components[1].replicas: must be >= 0")
        invalid = with_condition(invalid, "Ready", "False", "InvalidSpec", "spec is invalid")
        assert health(invalid) == ("Degraded", "spec.components[1].replicas: must be >= 0"), health(invalid)

        rolling = with_condition(healthy, "Ready", "False", "ComponentsNotReady", "waiting for: VllmWorker 2/4")
        assert health(rolling) == ("Progressing", "waiting for: VllmWorker 2/4"), health(rolling)

        not_serving = with_condition(healthy, "Serving", "False", "EmptyContent", "HTTP 200 with empty content")
        assert health(not_serving) == ("Degraded", "EmptyContent: HTTP 200 with empty content"), health(not_serving)

        deleting = copy.deepcopy(healthy)
        deleting["metadata"]["deletionTimestamp"] = "2026-11-30T10:00:00Z"
        assert health(deleting)[0] == "Progressing"

        # A real spec edit: until the operator observes it, Argo CD must not call it Healthy.
        env.kubectl("patch", "dgd", name, "-n", "dynamo", "--type=merge", "-p",
                    json.dumps({"spec": {"annotations": {"example.com/touched": "1"}}}))
        edited = env.dgd(name, "dynamo")
        if edited["status"]["observedGeneration"] < edited["metadata"]["generation"]:
            assert health(with_condition(edited, "Serving", None))[0] == "Progressing"
        def observed():
            d = env.dgd(name, "dynamo")
            ok = d["status"].get("observedGeneration") == d["metadata"]["generation"] and \
                (condition(d, "Ready") or {}).get("status") == "True"
            return d if ok else None
        edited = wait_until("the operator to observe the edit", observed, timeout=120)
        assert health(with_condition(edited, "Serving", None))[0] == "Healthy"
    print("ok")


if __name__ == "__main__":
    main()
