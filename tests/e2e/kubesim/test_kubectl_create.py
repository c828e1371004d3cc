"""kubectl v1.32's generators against kube-sim: `kubectl create namespace|secret|configmap|
serviceaccount|deployment|job|role|rolebinding|clusterrole|clusterrolebinding|service|pdb|
priorityclass|quota`, `kubectl create token` and `kubectl auth can-i` send their objects as
Kubernetes protobuf (application/vnd.kubernetes.protobuf); each runs verbatim, the request
log shows the protobuf write, and the stored object (or the answer) is checked field by
field. Also: CBOR is 415 with the
media types the real server lists, a custom resource takes no protobuf (415), and a
malformed protobuf body is 400 with the protobuf serializer's words."""
import base64
import os

from kubesim import KubeSim
from referee_lib import SOURCE_DIR, expect_status, poll

NS = "llm-demo"
BODIES = os.path.join(SOURCE_DIR, "tests", "unit", "kubesim", "protobuf_bodies")


def run_create(sim, *args):
    """Runs kubectl; its write must have reached kube-sim as protobuf and been stored (201)."""
    since = last_seq(sim)
    out = sim.kubectl(*args).stdout
    # The log records a request once its answer is sent, so kubectl may be done first.
    writes = poll("the create of kubectl %s in the request log" % " ".join(args),
                  lambda: [r for r in sim.requests(since) if r["verb"] == "create"])
    assert all("application/vnd.kubernetes.protobuf" in r.get("contentType", "") for r in writes), writes
    assert [r["code"] for r in writes] == [201] * len(writes), writes
    return out


def last_seq(sim):
    items = sim.requests()
    return items[-1]["seq"] if items else 0


def get(sim, *args):
    return sim.kubectl_json("get", *args, "-o", "json")


def seed_page_commands(sim):
    # What the seed pages run, verbatim but for the values.
    assert run_create(sim, "create", "namespace", NS).strip() == "namespace/%s created" % NS
    ns = get(sim, "namespace", NS)
    assert ns["metadata"]["name"] == NS and ns["status"]["phase"] == "Active", ns
    assert ns["metadata"]["labels"] == {"kubernetes.io/metadata.name": NS}, ns
    token = "hf_SeCrEt+/=value"
    run_create(sim, "create", "secret", "generic", "hf-token-secret", "--from-literal=HF_TOKEN=" + token, "-n", NS)
    secret = get(sim, "secret", "hf-token-secret", "-n", NS)
    assert base64.b64decode(secret["data"]["HF_TOKEN"]).decode() == token, secret
    assert secret["type"] == "Opaque" and secret["metadata"]["namespace"] == NS, secret
    assert set(secret["data"]) == {"HF_TOKEN"}, secret


def config_and_accounts(sim):
    run_create(sim, "create", "configmap", "settings", "--from-literal=a=b", "--from-literal=empty=", "-n", NS)
    cm = get(sim, "configmap", "settings", "-n", NS)
    assert cm["data"] == {"a": "b", "empty": ""}, cm
    run_create(sim, "create", "serviceaccount", "runner", "-n", NS)
    sa = get(sim, "serviceaccount", "runner", "-n", NS)
    assert sa["metadata"]["name"] == "runner" and sa["metadata"]["namespace"] == NS, sa


def workloads(sim):
    run_create(sim, "create", "deployment", "web", "--image=nginx", "-n", NS)
    d = get(sim, "deployment", "web", "-n", NS)
    assert d["metadata"]["labels"] == {"app": "web"}, d
    assert d["spec"]["replicas"] == 1 and d["spec"]["selector"] == {"matchLabels": {"app": "web"}}, d
    template = d["spec"]["template"]
    assert template["metadata"]["labels"] == {"app": "web"}, template
    assert [(c["name"], c["image"]) for c in template["spec"]["containers"]] == [("nginx", "nginx")], template
    # replicas 0 is a pointer set to zero: kept, not defaulted to 1.
    run_create(sim, "create", "deployment", "idle", "--image=vllm/vllm-openai:v0.8.5", "--replicas=0",
               "--port=8000", "-n", NS)
    d = get(sim, "deployment", "idle", "-n", NS)
    assert d["spec"]["replicas"] == 0, d["spec"]
    c = d["spec"]["template"]["spec"]["containers"][0]
    assert c["image"] == "vllm/vllm-openai:v0.8.5" and c["ports"] == [{"containerPort": 8000, "protocol": "TCP"}], c
    run_create(sim, "create", "job", "warmup", "--image=busybox", "-n", NS, "--", "sh", "-c", "echo hi")
    job = get(sim, "job", "warmup", "-n", NS)
    spec = job["spec"]["template"]["spec"]
    assert spec["restartPolicy"] == "Never", spec
    assert [(c["name"], c["image"], c["command"]) for c in spec["containers"]] == \
        [("warmup", "busybox", ["sh", "-c", "echo hi"])], spec
    assert job["spec"]["backoffLimit"] == 6, job["spec"]


def services_and_budgets(sim):
    # IntOrString both ways: an int targetPort, a percentage minAvailable.
    run_create(sim, "create", "service", "clusterip", "web", "--tcp=80:8080", "-n", NS)
    svc = get(sim, "service", "web", "-n", NS)
    assert svc["spec"]["ports"] == [{"name": "80-8080", "port": 80, "protocol": "TCP", "targetPort": 8080}], svc
    assert svc["spec"]["selector"] == {"app": "web"}, svc
    run_create(sim, "create", "pdb", "web", "--selector=app=web", "--min-available=50%", "-n", NS)
    pdb = get(sim, "pdb", "web", "-n", NS)
    assert pdb["spec"] == {"minAvailable": "50%", "selector": {"matchLabels": {"app": "web"}}}, pdb


def rbac(sim):
    run_create(sim, "create", "role", "reader", "--verb=get,list", "--resource=pods,deployments.apps", "-n", NS)
    role = get(sim, "role", "reader", "-n", NS)
    assert role["rules"] == [{"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]},
                             {"apiGroups": ["apps"], "resources": ["deployments"], "verbs": ["get", "list"]}], role
    run_create(sim, "create", "rolebinding", "reader", "--role=reader", "--serviceaccount=%s:runner" % NS,
               "--user=alice", "-n", NS)
    rb = get(sim, "rolebinding", "reader", "-n", NS)
    assert rb["roleRef"] == {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": "reader"}, rb
    assert sorted(rb["subjects"], key=lambda s: s["kind"]) == [
        {"kind": "ServiceAccount", "name": "runner", "namespace": NS},
        {"apiGroup": "rbac.authorization.k8s.io", "kind": "User", "name": "alice"}], rb
    run_create(sim, "create", "clusterrole", "deploy-getter", "--verb=get", "--resource=deployments.apps",
               "--resource-name=web")
    cr = get(sim, "clusterrole", "deploy-getter")
    assert cr["rules"] == [{"apiGroups": ["apps"], "resourceNames": ["web"], "resources": ["deployments"],
                            "verbs": ["get"]}], cr
    run_create(sim, "create", "clusterrolebinding", "deploy-getter", "--clusterrole=deploy-getter", "--group=ops")
    crb = get(sim, "clusterrolebinding", "deploy-getter")
    assert crb["subjects"] == [{"apiGroup": "rbac.authorization.k8s.io", "kind": "Group", "name": "ops"}], crb


def tokens(sim):
    since = last_seq(sim)
    token = sim.kubectl("create", "token", "runner", "-n", NS, "--duration=1h").stdout.strip()
    assert token.count(".") == 2, token
    writes = poll("the TokenRequest in the request log",
                  lambda: [r for r in sim.requests(since) if r["subresource"] == "token"])
    assert [(r["code"], "protobuf" in r.get("contentType", "")) for r in writes] == [(201, True)], writes


def scheduling_quota_and_reviews(sim):
    run_create(sim, "create", "priorityclass", "high", "--value=1000", "--description=top")
    pc = get(sim, "priorityclass", "high")
    assert pc["value"] == 1000 and pc["description"] == "top", pc
    run_create(sim, "create", "quota", "limits", "--hard=cpu=1,memory=1Gi,pods=2", "-n", NS)
    q = get(sim, "quota", "limits", "-n", NS)
    assert q["spec"]["hard"] == {"cpu": "1", "memory": "1Gi", "pods": "2"}, q
    # A SelfSubjectAccessReview: the admin may, a ServiceAccount without bindings may not.
    assert run_create(sim, "auth", "can-i", "get", "pods", "-n", NS).strip() == "yes"
    proc = sim.kubectl("auth", "can-i", "get", "secrets", "-n", NS, "--as",
                       "system:serviceaccount:%s:runner" % NS, check=False)
    assert proc.returncode == 1 and proc.stdout.strip() == "no", (proc.stdout, proc.stderr)
    proc = sim.kubectl("auth", "can-i", "get", "pods", "-n", NS, "--as",
                       "system:serviceaccount:%s:runner" % NS, check=False)
    assert proc.returncode == 0 and proc.stdout.strip() == "yes", (proc.stdout, proc.stderr)


def refused_bodies(sim):
    namespace_pb = open(os.path.join(BODIES, "namespace.pb"), "rb").read()
    status, body = sim.request("/api/v1/namespaces/%s/configmaps" % NS, "POST", b"\xa1\x61\x61\x61\x62",
                               {"Content-Type": "application/cbor"})
    expect_status(status, body, 415, "UnsupportedMediaType",
                  "the body of the request was in an unknown format - accepted media types include: "
                  "application/json, application/yaml, application/vnd.kubernetes.protobuf")
    status, body = sim.request("/apis/resource.nvidia.com/v1beta1/namespaces/%s/computedomains" % NS, "POST",
                               namespace_pb, {"Content-Type": "application/vnd.kubernetes.protobuf"})
    expect_status(status, body, 415, "UnsupportedMediaType",
                  "the body of the request was in an unknown format - accepted media types include: "
                  "application/json, application/yaml")
    assert not body["message"].endswith("protobuf"), body
    status, body = sim.request("/api/v1/namespaces", "POST", b'{"kind":"Namespace"}',
                               {"Content-Type": "application/vnd.kubernetes.protobuf"})
    expect_status(status, body, 400, "BadRequest",
                  "provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]")
    status, body = sim.request("/api/v1/namespaces", "POST", namespace_pb[:20],
                               {"Content-Type": "application/vnd.kubernetes.protobuf"})
    expect_status(status, body, 400, "BadRequest")
    # kubectl's own Namespace body, posted raw: created as `kubectl create namespace ns1` would.
    status, body = sim.request("/api/v1/namespaces", "POST", namespace_pb,
                               {"Content-Type": "application/vnd.kubernetes.protobuf"})
    assert status == 201 and body["metadata"]["name"] == "ns1", (status, body)


def main():
    with KubeSim() as sim:
        seed_page_commands(sim)
        config_and_accounts(sim)
        workloads(sim)
        services_and_budgets(sim)
        rbac(sim)
        tokens(sim)
        scheduling_quota_and_reviews(sim)
        refused_bodies(sim)
    print("ok")


if __name__ == "__main__":
    main()
