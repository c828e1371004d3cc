"""kubectl v1.32 modifications against kube-sim: `label`, `annotate`, `patch --type
merge|json|strategic` (and what each does to a list), `patch --subresource=status`,
`scale deployment` (through the scale subresource), `wait --for=condition=...` with the
condition set through /status, and `wait --for=delete` held by a finalizer."""
import json

from kubesim import KubeSim
from referee_lib import DGD_CRD, Background, kubectl_fails, poll

DEPLOY = """
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - name: web
        image: nginx:1.25
        env: [{name: A, value: "1"}, {name: B, value: "2"}]
        ports: [{containerPort: 80}]
      - name: side
        image: busybox:1.36
"""
CM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cfg}\ndata: {k: v, drop: me}\n"


def get(sim, *args):
    return sim.kubectl_json("get", *args)


def labels_and_annotations(sim):
    sim.kubectl("apply", "-f", "-", input=CM)
    assert sim.kubectl("label", "cm", "cfg", "team=a", "tier=x").stdout.strip() == "configmap/cfg labeled"
    kubectl_fails(sim, "label", "cm", "cfg", "team=b", contains="'team' already has a value (a), and "
                                                                 "--overwrite is false")
    sim.kubectl("label", "cm", "cfg", "team=b", "--overwrite")
    sim.kubectl("label", "cm", "cfg", "tier-")
    assert get(sim, "cm", "cfg")["metadata"]["labels"] == {"team": "b"}
    assert sim.kubectl("get", "cm", "-l", "team=b", "-o", "name").stdout.split() == ["configmap/cfg"]
    assert sim.kubectl("get", "cm", "-l", "tier", "-o", "name").stdout.split() == []

    assert sim.kubectl("annotate", "cm", "cfg", "note=hello world").stdout.strip() == "configmap/cfg annotated"
    kubectl_fails(sim, "annotate", "cm", "cfg", "note=other", contains="--overwrite is false")
    sim.kubectl("annotate", "cm", "cfg", "note-")
    ann = get(sim, "cm", "cfg")["metadata"].get("annotations", {})
    assert "note" not in ann and "kubectl.kubernetes.io/last-applied-configuration" in ann, ann


def patches(sim):
    # merge: maps merge, null deletes.
    out = sim.kubectl("patch", "cm", "cfg", "--type=merge", "-p", '{"data":{"k":"v2","drop":null}}').stdout
    assert out.strip() == "configmap/cfg patched", out
    assert get(sim, "cm", "cfg")["data"] == {"k": "v2"}
    # A patch that changes nothing leaves the object (and its resourceVersion) alone.
    rv = get(sim, "cm", "cfg")["metadata"]["resourceVersion"]
    out = sim.kubectl("patch", "cm", "cfg", "--type=merge", "-p", '{"data":{"k":"v2"}}').stdout
    assert out.strip() == "configmap/cfg patched (no change)", out
    assert get(sim, "cm", "cfg")["metadata"]["resourceVersion"] == rv

    # json: operations, and a failed `test` is 422 with nothing changed.
    sim.kubectl("patch", "cm", "cfg", "--type=json", "-p",
                '[{"op":"add","path":"/data/n","value":"1"},{"op":"replace","path":"/data/k","value":"v3"}]')
    assert get(sim, "cm", "cfg")["data"] == {"k": "v3", "n": "1"}
    kubectl_fails(sim, "patch", "cm", "cfg", "--type=json", "-p",
                  '[{"op":"test","path":"/data/k","value":"nope"},{"op":"remove","path":"/data/n"}]',
                  contains="The request is invalid")
    assert get(sim, "cm", "cfg")["data"] == {"k": "v3", "n": "1"}

    # strategic (kubectl's default for built-ins): containers merge by name, env by name.
    sim.kubectl("apply", "-f", "-", input=DEPLOY)
    out = sim.kubectl("patch", "deploy", "web", "-p", json.dumps({"spec": {"template": {"spec": {"containers": [
        {"name": "side", "image": "busybox:1.37"},
        {"name": "web", "env": [{"name": "B", "value": "20"}, {"name": "C", "value": "3"}]}]}}}})).stdout
    assert out.strip() == "deployment.apps/web patched", out
    dep = get(sim, "deploy", "web")
    cs = {c["name"]: c for c in dep["spec"]["template"]["spec"]["containers"]}
    assert set(cs) == {"web", "side"}, cs
    assert cs["side"]["image"] == "busybox:1.37" and cs["web"]["image"] == "nginx:1.25", cs
    assert {e["name"]: e["value"] for e in cs["web"]["env"]} == {"A": "1", "B": "20", "C": "3"}, cs["web"]["env"]
    assert cs["web"]["ports"] == [{"containerPort": 80, "protocol": "TCP"}], cs["web"]["ports"]
    assert dep["metadata"]["generation"] == 2, dep["metadata"]
    # strategic $patch: delete removes one item by its key.
    sim.kubectl("patch", "deploy", "web", "--type=strategic", "-p", json.dumps({"spec": {"template": {"spec": {
        "containers": [{"name": "side", "$patch": "delete"}]}}}}))
    assert [c["name"] for c in get(sim, "deploy", "web")["spec"]["template"]["spec"]["containers"]] == ["web"]
    # merge on the same list replaces it whole.
    sim.kubectl("patch", "deploy", "web", "--type=merge", "-p", json.dumps({"spec": {"template": {"spec": {
        "containers": [{"name": "only", "image": "busybox:1.36"}]}}}}))
    assert [c["name"] for c in get(sim, "deploy", "web")["spec"]["template"]["spec"]["containers"]] == ["only"]

    # A strategic patch of a custom resource: 415 with the server's message.
    sim.kubectl("apply", "-f", DGD_CRD)
    sim.kubectl("wait", "--for=condition=Established", "crd/dynamographdeployments.nvidia.com")
    sim.kubectl("apply", "-f", "-", input="apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\n"
                                          "metadata: {name: g}\nspec: {backendFramework: vllm}\n")
    kubectl_fails(sim, "patch", "dgd", "g", "-p", '{"spec":{"backendFramework":"sglang"}}',
                  contains=["application/strategic-merge-patch+json is not supported",
                            "accepted media types include: application/json-patch+json, "
                            "application/merge-patch+json, application/apply-patch+yaml"])
    sim.kubectl("patch", "dgd", "g", "--type=merge", "-p", '{"spec":{"backendFramework":"sglang"}}')
    assert get(sim, "dgd", "g")["spec"]["backendFramework"] == "sglang"
    seen = {(r["resource"], r["contentType"].split(";")[0], r["code"]) for r in sim.requests() if r["verb"] == "patch"}
    for want in [("deployments", "application/strategic-merge-patch+json", 200),
                 ("configmaps", "application/json-patch+json", 422),
                 ("dynamographdeployments", "application/strategic-merge-patch+json", 415)]:
        assert want in seen, (want, seen)


def status_subresource(sim):
    before = get(sim, "deploy", "web")
    out = sim.kubectl("patch", "deploy", "web", "--subresource=status", "--type=merge", "-p",
                      '{"status":{"replicas":2,"readyReplicas":1},"spec":{"replicas":9}}').stdout
    assert out.strip() == "deployment.apps/web patched", out
    after = get(sim, "deploy", "web")
    assert after["status"]["readyReplicas"] == 1 and after["status"]["replicas"] == 2, after["status"]
    assert after["spec"]["replicas"] == before["spec"]["replicas"], "a /status patch changed the spec"
    assert after["metadata"]["generation"] == before["metadata"]["generation"], "a /status patch bumped generation"
    assert after["metadata"]["resourceVersion"] != before["metadata"]["resourceVersion"]
    log = [r for r in sim.requests() if r["verb"] == "patch" and r["resource"] == "deployments"]
    assert log[-1]["subresource"] == "status" and log[-1]["code"] == 200, log[-1]


def scale(sim):
    out = sim.kubectl("scale", "deployment", "web", "--replicas=5").stdout
    assert out.strip() == "deployment.apps/web scaled", out
    dep = get(sim, "deploy", "web")
    assert dep["spec"]["replicas"] == 5, dep["spec"]
    scale_writes = [r for r in sim.requests() if r["resource"] == "deployments" and r["subresource"] == "scale"
                    and r["verb"] in ("patch", "update")]
    assert scale_writes and scale_writes[-1]["code"] == 200, scale_writes
    kubectl_fails(sim, "scale", "deployment", "web", "--current-replicas=2", "--replicas=7",
                  contains="Expected replicas to be 2, was 5")
    assert get(sim, "deploy", "web")["spec"]["replicas"] == 5
    scale = json.loads(sim.kubectl("get", "--raw", "/apis/apps/v1/namespaces/default/deployments/web/scale").stdout)
    assert scale["kind"] == "Scale" and scale["apiVersion"] == "autoscaling/v1", scale
    assert scale["spec"]["replicas"] == 5 and scale["status"]["selector"] == "app=web", scale


def wait_condition(sim):
    """kubectl wait honours observedGeneration: the condition counts only once the status
    says it observed the current generation (which a status write must not move)."""
    gen = get(sim, "deploy", "web")["metadata"]["generation"]
    seq = sim.requests()[-1]["seq"]
    waiter = Background(sim, "wait", "--for=condition=Available", "deploy/web", "--timeout=40s")
    try:
        poll("kubectl wait's watch", lambda: [r for r in sim.requests(since=seq)
                                              if r["verb"] == "watch" and r["resource"] == "deployments"])
        assert waiter.proc.poll() is None, "kubectl wait ended before the condition was set"
        status = {"status": {"observedGeneration": gen, "conditions": [
            {"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
             "message": "ok", "lastUpdateTime": "2026-01-01T00:00:00Z",
             "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}
        sim.kubectl("patch", "deploy", "web", "--subresource=status", "--type=merge", "-p", json.dumps(status))
        poll("kubectl wait to return", lambda: waiter.proc.poll() is not None, timeout=30)
    finally:
        err = waiter.stop()
    assert waiter.proc.returncode == 0, err
    assert waiter.lines == ["deployment.apps/web condition met"], (waiter.lines, err)
    # Already met: returns at once.
    out = sim.kubectl("wait", "--for=condition=Available", "deploy/web", "--timeout=10s").stdout
    assert out.strip() == "deployment.apps/web condition met", out
    # jsonpath form.
    out = sim.kubectl("wait", "--for=jsonpath={.spec.replicas}=5", "deploy/web", "--timeout=10s").stdout
    assert out.strip() == "deployment.apps/web condition met", out


def wait_delete(sim):
    sim.kubectl("apply", "-f", "-", input="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: held, finalizers: "
                                          "[example.com/hold]}\ndata: {a: b}\n")
    out = sim.kubectl("delete", "cm", "held", "--wait=false").stdout
    assert out.strip() == 'configmap "held" deleted', out
    held = get(sim, "cm", "held")
    assert held["metadata"]["deletionTimestamp"], held["metadata"]
    seq = sim.requests()[-1]["seq"]
    waiter = Background(sim, "wait", "--for=delete", "cm/held", "--timeout=40s")
    try:
        poll("kubectl wait's watch", lambda: [r for r in sim.requests(since=seq)
                                              if r["verb"] == "watch" and r["resource"] == "configmaps"])
        assert waiter.proc.poll() is None, "kubectl wait --for=delete returned while a finalizer holds the object"
        sim.kubectl("patch", "cm", "held", "--type=json", "-p", '[{"op":"remove","path":"/metadata/finalizers"}]')
        poll("kubectl wait --for=delete to return", lambda: waiter.proc.poll() is not None, timeout=30)
    finally:
        err = waiter.stop()
    assert waiter.proc.returncode == 0, err
    assert waiter.lines == ["configmap/held condition met"], (waiter.lines, err)
    assert sim.kubectl("get", "cm", "held", check=False).returncode != 0


def main():
    with KubeSim() as sim:
        labels_and_annotations(sim)
        patches(sim)
        status_subresource(sim)
        scale(sim)
        wait_condition(sim)
        wait_delete(sim)
    print("kubectl modify matrix: ok")


if __name__ == "__main__":
    main()
