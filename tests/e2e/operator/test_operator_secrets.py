"""Secrets stay secret: a graph's whole life under dgd-operator at trace level, with
recognisable values in the Hugging Face token Secret and in the operator's own
ServiceAccount token, and neither value anywhere the operator writes or shows.

The operator is installed as deploy/manifests/install.yaml says (its ServiceAccount, RBAC
and CRDs) and runs with a kubeconfig holding a token kube-sim issued for that
ServiceAccount (`kubectl create token`). The life: the recipe applied (download Job,
workers), Ready, the Serving check answered by the OpenAI stand-in through kube-sim's
service proxy, an engine edit rolled out, the token Secret rotated to a second value, a
replicas edit, then the DGD deleted and its children gone.

Searched for each value, raw and base64-encoded: the operator's log (trace, so every
level), every Event, every DGD status seen along the way, /metrics, and every object the
operator wrote (request log: its creates, updates and patches) as it stands before the
deletion. Where the operator's objects need the token they name the Secret
(secretKeyRef), which is checked too.
"""
import base64
import json
import os
import secrets
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "serving"))
from oplib import ROOT, OperatorEnv, condition, wait_until  # noqa: E402
from servinglib import Standin  # noqa: E402

NS = "dynamo"
RECIPE = "deepseek-v4.1-flash/vllm/disagg-h200-agentic"
SA_NS, SA = "dgd-system", "dgd-operator"
WRITES = {"create", "update", "patch"}


def forms(value):
    """The value and its base64 (a Secret's data, a copy in another Secret)."""
    return [value, base64.b64encode(value.encode()).decode()]


def leaks(text, values):
    return sorted({v for v in values for f in forms(v) if f in text})


def sa_kubeconfig(env, path):
    token = env.kubectl("create", "token", SA, "-n", SA_NS, "--duration", "2h").stdout.strip()
    assert token, "kubectl create token gave nothing"
    cfg = {"apiVersion": "v1", "kind": "Config", "current-context": "sa",
           "clusters": [{"name": "sim", "cluster": {"server": env.sim.url}}],
           "users": [{"name": "sa", "user": {"token": token}}],
           "contexts": [{"name": "sa", "context": {"cluster": "sim", "user": "sa", "namespace": SA_NS}}]}
    with open(path, "w") as f:
        json.dump(cfg, f)
    return token


def written_objects(env):
    """Every object the operator created, updated or patched that still exists, as JSON text."""
    seen, out = set(), []
    for r in env.sim.requests(since=0):
        if r.get("user") != "system:serviceaccount:%s:%s" % (SA_NS, SA) or r.get("verb") not in WRITES:
            continue
        if not (r.get("code") or 0) < 300 or not r.get("name"):
            continue
        group, version = r.get("group") or "", r.get("version") or "v1"
        base = "/api/" + version if not group else "/apis/%s/%s" % (group, version)
        path = base + ("/namespaces/%s" % r["namespace"] if r.get("namespace") else "") + "/%s/%s" % (
            r["resource"], r["name"])
        if path in seen:
            continue
        seen.add(path)
        status, obj = env.sim.request(path)
        if status == 200:
            out.append((path, json.dumps(obj)))
    return out


def main():
    hf_tokens = ["hf_leakprobe" + secrets.token_hex(12), "hf_leakprobe" + secrets.token_hex(12)]
    statuses = []
    with Standin(mode="ready") as standin, OperatorEnv(profile="h200-4x", crds=False, start=False) as env:
        env.kubectl("apply", "-f", os.path.join(ROOT, "deploy", "manifests", "install.yaml"))
        env.kubectl("wait", "--for=condition=Established", "crd/dynamographdeployments.nvidia.com", "--timeout=60s")
        # --serving-check-via=apiserver-proxy needs services/proxy create (docs/install.md).
        env.kubectl("apply", "-f", "-", input=json.dumps({
            "apiVersion": "rbac.authorization.k8s.io/v1", "kind": "ClusterRole", "metadata": {"name": "dgd-operator-proxy"},
            "rules": [{"apiGroups": [""], "resources": ["services/proxy"], "verbs": ["create"]}]}))
        env.kubectl("create", "clusterrolebinding", "dgd-operator-proxy", "--clusterrole=dgd-operator-proxy",
                    "--serviceaccount=%s:%s" % (SA_NS, SA))
        sa_token = sa_kubeconfig(env, os.path.join(env.sim.dir, "operator.kubeconfig"))
        secret_values = hf_tokens + [sa_token]
        env.start_operator(kubeconfig=os.path.join(env.sim.dir, "operator.kubeconfig"), log_level="trace",
                           lease_namespace=SA_NS, extra=["--serving-check-via=apiserver-proxy"])

        def snapshot(what):
            d = env.dgd(name, NS) or {}
            statuses.append((what, json.dumps(d.get("status"))))
            return d

        # Create: download Job, workers, Ready, Serving.
        name = env.apply_recipe(RECIPE, NS, hf_token=hf_tokens[0])
        env.sim.admin("/sim/v1/services/proxy", "POST", {"namespace": NS, "name": name + "-frontend", "url": standin.url})
        env.wait_ready(name, NS)
        wait_until("Serving=True", lambda: (condition(snapshot("serving"), "Serving") or {}).get("status") == "True")
        jobs = env.items("jobs", NS)
        assert jobs, "no download Job"
        for job in jobs:
            for c in job["spec"]["template"]["spec"]["containers"]:
                for e in c.get("env") or []:
                    if e["name"] == "HF_TOKEN":
                        assert "value" not in e and e["valueFrom"]["secretKeyRef"]["name"] == "hf-token-secret", e
        snapshot("ready")

        # Edits: an engine flag (a rollout), the Secret rotated, replicas.
        gen = env.dgd(name, NS)["metadata"]["generation"]
        env.kubectl("patch", "dgd", name, "-n", NS, "--type=merge", "-p",
                    json.dumps({"spec": {"env": [{"name": "SECRETS_TEST_EDIT", "value": "1"}]}}))
        wait_until("generation %d observed" % (gen + 1),
                   lambda: (snapshot("edit").get("status") or {}).get("observedGeneration") == gen + 1)
        env.prepare_namespace(NS, hf_token=hf_tokens[1])
        env.kubectl("patch", "dgd", name, "-n", NS, "--type=json", "-p", json.dumps(
            [{"op": "replace", "path": "/spec/components/2/replicas", "value": 2}]))
        env.wait_ready(name, NS)
        snapshot("replicas")
        env.reconcile_now(name, NS)
        snapshot("at rest")

        # What the operator wrote, before the deletion takes it away.
        objects = written_objects(env)
        assert any("/deployments/" in p for p, _ in objects), [p for p, _ in objects]
        refs = [p for p, text in objects if '"secretKeyRef"' in text and "hf-token-secret" in text]
        assert refs, "no object names the token Secret"
        metrics = env.metrics_text()

        # Deletion.
        env.kubectl("delete", "dgd", name, "-n", NS, "--wait=false")
        wait_until("DGD gone", lambda: env.dgd(name, NS) is None, timeout=120)
        wait_until("children gone", lambda: not env.items("deployments", NS, "nvidia.com/dynamo-graph-deployment-name=" + name))
        env.stop_operator()

        events = json.dumps(env.items("events", NS)) + json.dumps(json.loads(
            env.kubectl("get", "events", "-A", "-o", "json").stdout))
        log = env.operator_log()
        assert "trace" in log or "debug" in log, "the operator did not log below info"
        found = {
            "operator log": leaks(log, secret_values),
            "Events": leaks(events, secret_values),
            "/metrics": leaks(metrics, secret_values),
        }
        for what, text in statuses:
            found["DGD status (%s)" % what] = leaks(text, secret_values)
        for path, text in objects:
            found["object " + path] = leaks(text, secret_values)
        bad = {k: ["the Hugging Face token" if v in hf_tokens else "the ServiceAccount token" for v in vs]
               for k, vs in found.items() if vs}
        assert not bad, "secret values found: %s" % json.dumps(bad, indent=1)
        print("searched: operator log (%d lines), %d DGD statuses, Events, /metrics, %d written objects" % (
            len(log.splitlines()), len(statuses), len(objects)))
    print("ok")


if __name__ == "__main__":
    main()
