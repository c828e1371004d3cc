"""Every object the project ships passes the API server's strict field validation: the
install manifest, the Helm chart, each of the 12 recipes' DGDs and every child object
`dgdctl render` makes of them, through server dry runs of `kubectl apply` (which sends
fieldValidation=Strict) and `kubectl apply --server-side`; and what the operator writes on a
simulated cluster: no write of its own earns a warning (it sends no fieldValidation, so the
server's default, Warn, would report an unknown field), and the status it writes fits the CRD
schema. A refusal names the object, the field and the server's message."""
import json
import os
import subprocess
import sys

import yaml

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "operator"))
from binaries import find_binary  # noqa: E402
from kubesim import KubeSim  # noqa: E402
from oplib import RECIPE_PROFILES, OperatorEnv, condition, recipe_dir  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
INSTALL = os.path.join(ROOT, "deploy", "manifests", "install.yaml")
DGDCTL = find_binary("DGDCTL", "dgdctl")


def run(*args, input=None):
    proc = subprocess.run(list(args), input=input, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, (args, proc.stderr)
    return proc.stdout


def dry_runs(sim, label, text, refusals):
    """Both kinds of apply as a server dry run; every refusal goes to `refusals`."""
    for mode in ([], ["--server-side", "--force-conflicts"]):
        proc = sim.kubectl("apply", "--dry-run=server", *mode, "-f", "-", input=text, check=False)
        for line in proc.stderr.splitlines():
            if line.startswith("Error") or "unknown field" in line or "field not declared" in line:
                refusals.append("%s (%s): %s" % (label, "server-side" if mode else "client-side", line))
        if proc.returncode != 0 and not proc.stderr:
            refusals.append("%s: kubectl failed without a message" % label)


def shipped_manifests(refusals):
    with KubeSim(tls=False) as sim:
        install = open(INSTALL).read()
        # A dry run of namespaced objects needs their namespace.
        namespaces = [d for d in yaml.safe_load_all(install) if d and d["kind"] == "Namespace"]
        assert namespaces
        sim.kubectl("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List", "items": namespaces}))
        dry_runs(sim, "deploy/manifests/install.yaml", install, refusals)
        sim.kubectl("apply", "-f", INSTALL)  # the CRDs and the namespace, for what follows
        sys.path.insert(0, os.path.join(ROOT, "tests", "e2e", "install"))
        import chart_lib
        chart = chart_lib.template()
        assert "kind: Deployment" in chart, chart[:200]
        dry_runs(sim, "deploy/helm/dgd-operator (chart-render)", chart, refusals)
        for recipe in sorted(RECIPE_PROFILES):
            dgd_text = sim.kubectl("kustomize", recipe_dir(recipe)).stdout
            dgd = yaml.safe_load(dgd_text)
            dry_runs(sim, recipe + " DGD", dgd_text, refusals)
            # The children name their DGD as owner: create it, so the references carry its uid.
            live = json.loads(sim.kubectl("apply", "-o", "json", "-f", "-", input=dgd_text).stdout)
            children = json.loads(run(DGDCTL, "render", "-f", "-", "-o", "json", input=dgd_text))
            assert children["items"], recipe
            for obj in children["items"]:
                for ref in obj["metadata"].get("ownerReferences", []):
                    if ref["kind"] == "DynamoGraphDeployment" and ref["name"] == dgd["metadata"]["name"]:
                        ref["uid"] = live["metadata"]["uid"]
            dry_runs(sim, recipe + " children", json.dumps(children), refusals)


def operator_writes(refusals):
    recipe = "deepseek-v4.1-flash/vllm/agg-h200-agentic"
    with OperatorEnv(profile=RECIPE_PROFILES[recipe]) as env:
        start = env.last_seq()
        name = env.apply_recipe(recipe, "shipped")
        env.wait_ready(name, "shipped")
        for r in env.operator_writes(since=start):
            for w in r.get("warnings", []):
                refusals.append("operator %s %s/%s %s: %s" % (r["verb"], r["resource"], r.get("subresource", ""),
                                                              r["name"], w))
        # The status as the operator wrote it, through the CRD schema with Strict: a create
        # (dry run) checks every field before it resets the status.
        dgd = env.dgd(name, "shipped")
        assert condition(dgd, "Ready")["status"] == "True", dgd["status"]
        probe = {"apiVersion": dgd["apiVersion"], "kind": dgd["kind"],
                 "metadata": {"name": name + "-status", "namespace": "shipped"},
                 "spec": dgd["spec"], "status": dgd["status"]}
        status, body = env.sim.request("/apis/nvidia.com/v1beta1/namespaces/shipped/dynamographdeployments"
                                       "?dryRun=All&fieldValidation=Strict", "POST", probe)
        if status != 201:
            refusals.append("operator-written DGD status: %s" % body.get("message"))


def main():
    refusals = []
    shipped_manifests(refusals)
    operator_writes(refusals)
    assert not refusals, "\n".join(refusals)
    print("ok")


if __name__ == "__main__":
    main()
