#!/usr/bin/python3
"""What `kubectl get dgd`, `kubectl get dgd -o wide`, `kubectl dgd get` and
`kubectl dgd status` show a user, with the real kubectl against kube-sim and the operator.

- A DGD that names only a recipe (no spec.backendFramework) shows READY True, REASON
  AllComponentsReady, SERVING as its Serving condition, and BACKEND vllm (the engine the
  operator resolved from the recipe, status.backendFramework); `-o wide` adds RECIPE and
  STATUS (the Ready message).
- A DGD whose recipe does not exist shows READY False, REASON InvalidSpec, no BACKEND.
- `kubectl dgd get` prints what `kubectl get dgd` prints, `-o wide` included.
- `kubectl dgd status` prints the engine, recipe, conditions and components, and exits 0
  for the Ready DGD, 1 for the invalid one, 2 for one that does not exist.
"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from oplib import OperatorEnv, condition, wait_until  # noqa: E402

NS = "dynamo"
RECIPE = "deepseek-v4.1-flash/vllm/agg-h200-agentic"
BY_RECIPE = """apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: by-recipe
spec:
  recipe: %s
""" % RECIPE
NO_SUCH_RECIPE = """apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: no-such-recipe
spec:
  recipe: deepseek-v4.1-flash/vllm/no-such-target
"""


def table(text, key="NAME"):
    """Rows of an aligned table as {column: cell}, cut at the header's column starts, by `key`."""
    lines = [l for l in text.splitlines() if l.strip()]
    head = lines[0]
    starts = [i for i, ch in enumerate(head) if ch != " " and (i == 0 or head[i - 1] == " ")]
    names = head.split()
    rows = {}
    for line in lines[1:]:
        cells = [line[a:b].strip() for a, b in zip(starts, starts[1:] + [None])]
        row = dict(zip(names, cells))
        rows[row[key]] = row
    return names, rows


def plugin_env(env):
    """kubectl finds `kubectl dgd` as kubectl-dgd on PATH (the build links it to dgdctl)."""
    dgdctl = os.environ.get("DGDCTL") or os.path.join(os.environ.get("DGD_BUILD_DIR", "build"), "dgdctl")
    plugin_dir = os.path.dirname(os.path.abspath(dgdctl))
    assert os.path.exists(os.path.join(plugin_dir, "kubectl-dgd")), "kubectl-dgd is not next to " + dgdctl
    return dict(env.sim.env(), PATH=plugin_dir + os.pathsep + os.environ.get("PATH", ""))


def kubectl_dgd(env, *args):
    return subprocess.run(["kubectl", "dgd"] + list(args), env=plugin_env(env), capture_output=True, text=True,
                          timeout=60)


def main():
    with OperatorEnv("h200-4x") as env:
        env.prepare_namespace(NS)
        env.kubectl("apply", "-n", NS, "-f", "-", input=BY_RECIPE)
        env.kubectl("apply", "-n", NS, "-f", "-", input=NO_SUCH_RECIPE)
        env.wait_ready("by-recipe", NS)
        # Serving is reported once Ready holds (kube-sim runs no model: it ends False).
        wait_until("Serving condition of by-recipe", lambda: condition(env.dgd("by-recipe", NS), "Serving"))
        wait_until("SpecValid=False on no-such-recipe",
                   lambda: (condition(env.dgd("no-such-recipe", NS), "SpecValid") or {}).get("status") == "False")

        good = env.dgd("by-recipe", NS)
        assert "backendFramework" not in good["spec"], good["spec"]
        assert good["status"].get("backendFramework") == "vllm", good["status"]
        serving = condition(good, "Serving")["status"]
        ready_message = condition(good, "Ready")["message"]

        names, rows = table(env.kubectl("get", "dgd", "-n", NS).stdout)
        assert names == ["NAME", "READY", "REASON", "SERVING", "BACKEND", "AGE"], names
        r = rows["by-recipe"]
        assert (r["READY"], r["REASON"], r["SERVING"], r["BACKEND"]) == ("True", "AllComponentsReady", serving,
                                                                         "vllm"), r
        bad = rows["no-such-recipe"]
        assert (bad["READY"], bad["REASON"]) == ("False", "InvalidSpec"), bad
        assert bad["BACKEND"] in ("", "<none>"), bad

        wide = env.kubectl("get", "dgd", "-n", NS, "-o", "wide").stdout
        names, rows = table(wide)
        assert names == ["NAME", "READY", "REASON", "SERVING", "BACKEND", "RECIPE", "STATUS", "AGE"], names
        r = rows["by-recipe"]
        assert r["RECIPE"] == RECIPE and r["STATUS"] == ready_message, r
        assert rows["no-such-recipe"]["RECIPE"] == "deepseek-v4.1-flash/vllm/no-such-target", rows

        # The plugin's table is kubectl's (the AGE column may tick between the two calls).
        p = kubectl_dgd(env, "get", "-n", NS, "-o", "wide")
        assert p.returncode == 0, p.stderr
        plugin_names, plugin_rows = table(p.stdout)
        assert plugin_names == names, plugin_names
        for name, row in rows.items():
            assert {k: v for k, v in plugin_rows[name].items() if k != "AGE"} == \
                {k: v for k, v in row.items() if k != "AGE"}, (plugin_rows, rows)
        p = kubectl_dgd(env, "get", "by-recipe", "-n", NS, "-o", "jsonpath={.status.backendFramework}")
        assert p.returncode == 0 and p.stdout == "vllm", (p.returncode, p.stdout, p.stderr)

        p = kubectl_dgd(env, "status", "by-recipe", "-n", NS)
        assert p.returncode == 0, (p.returncode, p.stdout, p.stderr)
        lines = p.stdout.splitlines()
        assert lines[0] == "DynamoGraphDeployment %s/by-recipe" % NS, lines
        assert "  recipe:     " + RECIPE in lines and "  backend:    vllm" in lines, lines
        first = lines.index(next(l for l in lines if l.startswith("CONDITION")))
        last = lines.index("", first)
        cond_names, conds = table("\n".join(lines[first:last]), key="CONDITION")
        assert cond_names == ["CONDITION", "STATUS", "REASON", "MESSAGE"], cond_names
        assert conds["Ready"]["STATUS"] == "True" and conds["Ready"]["MESSAGE"] == ready_message, conds
        assert conds["Serving"]["STATUS"] == serving, conds
        assert any(l.split()[:1] == ["COMPONENT"] for l in lines), lines

        p = kubectl_dgd(env, "status", "no-such-recipe", "-n", NS)
        assert p.returncode == 1, (p.returncode, p.stdout, p.stderr)
        assert "InvalidSpec" in p.stdout and "  backend:    -" in p.stdout.splitlines(), p.stdout

        p = kubectl_dgd(env, "status", "absent", "-n", NS)
        assert p.returncode == 2 and "absent" in p.stderr and "not found" in p.stderr, (p.returncode, p.stderr)
    print("kubectl dgd views: ok")


if __name__ == "__main__":
    main()
