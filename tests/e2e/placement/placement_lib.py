"""Helpers of the placement end-to-end tests: `dgdctl plan` against the test's kube-sim,
the Placement condition, and where a DGD's pods run."""
import os
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "operator"))
from oplib import ROOT, OperatorEnv, condition, recipe_file, wait_until  # noqa: E402,F401

DGD_LABEL = "nvidia.com/dynamo-graph-deployment-name"
CLIQUE = "nvidia.com/gpu.clique"


def dgdctl():
    path = os.environ.get("DGDCTL") or os.path.join(ROOT, "build", "dgdctl")
    if not os.path.exists(path):
        raise RuntimeError("dgdctl not found: set DGDCTL")
    return path


def plan(env, dgd_file, ns="dynamo"):
    """Runs `dgdctl plan`; returns (exit code, stdout)."""
    p = subprocess.run([dgdctl(), "plan", "-f", dgd_file, "--kubeconfig", env.sim.kubeconfig, "-n", ns],
                       capture_output=True, text=True, timeout=120)
    sys.stdout.write("$ dgdctl plan -f %s\n%s%s" % (os.path.basename(dgd_file), p.stdout, p.stderr))
    return p.returncode, p.stdout


def plan_lines(stdout):
    """{"PrefillWorker[0]": "-> h200-1 ..." or "NO FIT ..."} from plan output."""
    out = {}
    for line in stdout.splitlines():
        parts = line.strip().split(None, 1)
        if len(parts) == 2 and parts[0].endswith("]"):
            out[parts[0]] = parts[1]
    return out


def placement(env, name, ns="dynamo"):
    d = env.dgd(name, ns)
    return condition(d, "Placement") if d else None


def wait_placement(env, name, status, ns="dynamo", timeout=120):
    return wait_until("Placement=%s on %s" % (status, name),
                      lambda: (lambda c: c if c and c["status"] == status else None)(placement(env, name, ns)),
                      timeout=timeout)


def pods_by_type(env, name, ns="dynamo"):
    out = {}
    for p in env.items("pods", ns, DGD_LABEL + "=" + name):
        if p["metadata"].get("deletionTimestamp"):
            continue
        out.setdefault(p["metadata"]["labels"]["nvidia.com/dynamo-component-type"], []).append(p)
    return out


def node_clique(env, node):
    n = env.get("node", node, "default")
    return n["metadata"].get("labels", {}).get(CLIQUE, "")
