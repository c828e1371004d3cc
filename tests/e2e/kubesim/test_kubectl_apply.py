"""kubectl v1.32 writes against kube-sim: client-side `apply -f` (create, unchanged,
configured, field removal) of built-in kinds, of the project's DGD CRD and a recipe DGD;
`apply --server-side` with and without `--force-conflicts`; `apply --dry-run=server`;
`create` of an existing object (AlreadyExists) and `replace` with a stale
resourceVersion (Conflict). kubectl's own output is the verdict."""
import json
import os

import yaml

from kubesim import KubeSim
from referee_lib import DGD_CRD, DGD_RECIPE, kubectl_fails

BUILTINS = """
apiVersion: v1
kind: ConfigMap
metadata: {name: app-config, labels: {app: web}}
data: {mode: fast, level: "3"}
---
apiVersion: v1
kind: Secret
metadata: {name: app-secret}
stringData: {password: hunter2}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: app}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: app}
rules:
- apiGroups: [""]
  resources: [configmaps]
  verbs: [get, list]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: app}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: app}
subjects:
- {kind: ServiceAccount, name: app, namespace: default}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports:
  - {name: http, port: 80, targetPort: 8080}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      serviceAccountName: app
      containers:
      - name: web
        image: nginx:1.25
        env:
        - {name: A, value: "1"}
        - {name: B, value: "2"}
"""

CREATED = [
    "configmap/app-config", "secret/app-secret", "serviceaccount/app", "role.rbac.authorization.k8s.io/app",
    "rolebinding.rbac.authorization.k8s.io/app", "service/web", "deployment.apps/web",
]


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def lines_of(out):
    return [l for l in out.strip().splitlines() if l]


def builtins(sim, d):
    f = write(os.path.join(d, "builtins.yaml"), BUILTINS)
    out = sim.kubectl("apply", "-f", f).stdout
    assert lines_of(out) == [n + " created" for n in CREATED], out
    uids = {n: sim.kubectl("get", n, "-o", "jsonpath={.metadata.uid}").stdout for n in CREATED}
    # Unchanged, except the Secret: its live object never carries stringData, so kubectl's
    # 3-way patch is never empty and it says "configured" (as on a real cluster:
    # kubernetes/kubernetes#87736).
    out = sim.kubectl("apply", "-f", f).stdout
    assert lines_of(out) == [n + (" configured" if n == "secret/app-secret" else " unchanged")
                             for n in CREATED], out

    # Change the ConfigMap, Secret, Role, Service and Deployment; drop a key and an env var.
    text = (BUILTINS.replace('{mode: fast, level: "3"}', "{mode: slow}")
            .replace("hunter2", "correct-horse")
            .replace("verbs: [get, list]", "verbs: [get, list, watch]")
            .replace("port: 80, targetPort: 8080", "port: 81, targetPort: 8080")
            .replace("image: nginx:1.25", "image: nginx:1.26")
            .replace('        - {name: B, value: "2"}\n', ""))
    write(f, text)
    out = sim.kubectl("apply", "-f", f).stdout
    changed = {"configmap/app-config", "secret/app-secret", "role.rbac.authorization.k8s.io/app", "service/web",
               "deployment.apps/web"}
    assert lines_of(out) == [n + (" configured" if n in changed else " unchanged") for n in CREATED], out

    cm = sim.kubectl_json("get", "cm", "app-config")
    assert cm["data"] == {"mode": "slow"}, cm["data"]           # "level" removed by the 3-way merge
    sec = sim.kubectl_json("get", "secret", "app-secret")
    assert sec["type"] == "Opaque" and "stringData" not in sec, sec
    assert sec["data"] == {"password": "Y29ycmVjdC1ob3JzZQ=="}, sec["data"]
    role = sim.kubectl_json("get", "role", "app")
    assert role["rules"][0]["verbs"] == ["get", "list", "watch"], role
    svc = sim.kubectl_json("get", "svc", "web")
    assert [(p["name"], p["port"], p["targetPort"], p["protocol"]) for p in svc["spec"]["ports"]] == \
        [("http", 81, 8080, "TCP")], svc["spec"]["ports"]
    dep = sim.kubectl_json("get", "deploy", "web")
    c = dep["spec"]["template"]["spec"]["containers"][0]
    assert c["image"] == "nginx:1.26" and c["env"] == [{"name": "A", "value": "1"}], c
    assert dep["metadata"]["generation"] == 2, dep["metadata"]
    for n in CREATED:
        assert sim.kubectl("get", n, "-o", "jsonpath={.metadata.uid}").stdout == uids[n], n
    last = json.loads(cm["metadata"]["annotations"]["kubectl.kubernetes.io/last-applied-configuration"])
    assert last["data"] == {"mode": "slow"}, last

    # kubectl created with POST ?fieldManager=kubectl-client-side-apply and updated built-ins
    # with strategic merge patches.
    log = [r for r in sim.requests() if r["userAgent"].startswith("kubectl")]
    creates = [r for r in log if r["verb"] == "create" and r["resource"] == "configmaps"]
    assert [r["code"] for r in creates] == [201], creates
    patches = {(r["resource"], r["contentType"].split(";")[0], r["code"]) for r in log if r["verb"] == "patch"}
    for res in ("configmaps", "secrets", "roles", "services", "deployments"):
        assert (res, "application/strategic-merge-patch+json", 200) in patches, (res, patches)


def crd_and_dgd(sim, d):
    out = sim.kubectl("apply", "-f", DGD_CRD).stdout
    assert out.strip() == "customresourcedefinition.apiextensions.k8s.io/dynamographdeployments.nvidia.com created", out
    sim.kubectl("wait", "--for=condition=Established", "--timeout=20s",
                "crd/dynamographdeployments.nvidia.com")
    out = sim.kubectl("apply", "-f", DGD_RECIPE).stdout
    name = "dsv41-flash-vllm-h200-agg-agentic"
    assert out.strip() == "dynamographdeployment.nvidia.com/%s created" % name, out
    dgd = sim.kubectl_json("get", "dgd", name)
    with open(DGD_RECIPE) as f:
        src = yaml.safe_load(f)
    assert dgd["spec"] == src["spec"], "the recipe's spec does not round-trip"
    assert dgd["metadata"]["generation"] == 1

    assert sim.kubectl("apply", "-f", DGD_RECIPE).stdout.strip() == \
        "dynamographdeployment.nvidia.com/%s unchanged" % name
    src["spec"]["components"][1]["replicas"] = 2
    f = write(os.path.join(d, "dgd.yaml"), yaml.safe_dump(src))
    assert sim.kubectl("apply", "-f", f).stdout.strip() == "dynamographdeployment.nvidia.com/%s configured" % name
    dgd = sim.kubectl_json("get", "dynamographdeployments.nvidia.com", name)
    assert dgd["spec"]["components"][1]["replicas"] == 2 and dgd["metadata"]["generation"] == 2, dgd["metadata"]
    # Custom resources are patched with JSON merge patches (no strategic merge for CRs).
    patches = [r for r in sim.requests() if r["verb"] == "patch" and r["resource"] == "dynamographdeployments"]
    assert patches and all(r["contentType"].startswith("application/merge-patch+json") for r in patches), patches

    # A field the schema does not know: kubectl's default strict validation surfaces the
    # server's strict decoding error and nothing is stored.
    bad = dict(src, metadata={"name": "bad"})
    bad["spec"] = dict(src["spec"], bogusField=1)
    f = write(os.path.join(d, "bad.yaml"), yaml.safe_dump(bad))
    kubectl_fails(sim, "apply", "-f", f, contains='unknown field "spec.bogusField"')
    assert sim.kubectl("get", "dgd", "bad", check=False).returncode != 0


def server_side(sim, d):
    cm = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa}\ndata: {owner: first, keep: x}\n"
    out = sim.kubectl("apply", "--server-side", "-f", "-", input=cm).stdout
    assert out.strip() == "configmap/ssa serverside-applied", out
    obj = sim.kubectl_json("get", "cm", "ssa", "--show-managed-fields")
    mf = obj["metadata"]["managedFields"]
    assert [(m["manager"], m["operation"]) for m in mf] == [("kubectl", "Apply")], mf
    assert set(mf[0]["fieldsV1"]["f:data"]) == {"f:owner", "f:keep"}, mf

    # Another manager disagreeing on a field the first owns: a conflict, nothing changes.
    other = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: ssa}\ndata: {owner: second}\n"
    err = kubectl_fails(sim, "apply", "--server-side", "--field-manager=other", "-f", "-", input=other,
                        contains=['Apply failed with 1 conflict: conflict with "kubectl"', ".data.owner",
                                  "--force-conflicts"])
    assert "serverside-applied" not in err
    assert sim.kubectl("get", "cm", "ssa", "-o", "jsonpath={.data.owner}").stdout == "first"

    # --force-conflicts takes the field over.
    out = sim.kubectl("apply", "--server-side", "--force-conflicts", "--field-manager=other", "-f", "-",
                      input=other).stdout
    assert out.strip() == "configmap/ssa serverside-applied", out
    obj = sim.kubectl_json("get", "cm", "ssa", "--show-managed-fields")
    assert obj["data"] == {"owner": "second", "keep": "x"}, obj["data"]
    owners = {m["manager"]: set(m["fieldsV1"].get("f:data", {})) for m in obj["metadata"]["managedFields"]}
    assert owners == {"kubectl": {"f:keep"}, "other": {"f:owner"}}, owners
    forced = [r for r in sim.requests() if r["verb"] == "patch" and r["resource"] == "configmaps"
              and r["contentType"].startswith("application/apply-patch+yaml")]
    assert forced and forced[-1]["code"] == 200 and forced[-2]["code"] == 409, forced

    # Server-side apply of a Deployment creates it (201) with the server's defaults.
    dep = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: ssa-dep}\nspec:\n"
           "  selector: {matchLabels: {app: s}}\n  template:\n    metadata: {labels: {app: s}}\n"
           "    spec: {containers: [{name: c, image: busybox:1.36}]}\n")
    assert sim.kubectl("apply", "--server-side", "-f", "-", input=dep).stdout.strip() == \
        "deployment.apps/ssa-dep serverside-applied"
    assert sim.kubectl("get", "deploy", "ssa-dep", "-o", "jsonpath={.spec.replicas}").stdout == "1"


def dry_run(sim, d):
    new = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: dry}\ndata: {k: v}\n"
    rv0 = sim.admin("state")["resourceVersion"]
    out = sim.kubectl("apply", "--dry-run=server", "-f", "-", input=new).stdout
    assert out.strip() == "configmap/dry created (server dry run)", out
    assert sim.kubectl("get", "cm", "dry", check=False).returncode != 0, "dry run stored the object"
    assert sim.admin("state")["resourceVersion"] == rv0, "a dry run wrote to the store"
    assert [r["code"] for r in sim.requests() if r["verb"] == "create" and r["name"] in ("", "dry")
            and r["resource"] == "configmaps"][-1] == 201
    sim.kubectl("apply", "-f", "-", input=new)
    rv = sim.kubectl("get", "cm", "dry", "-o", "jsonpath={.metadata.resourceVersion}").stdout
    out = sim.kubectl("apply", "--dry-run=server", "-f", "-", input=new.replace("{k: v}", "{k: w}")).stdout
    assert out.strip() == "configmap/dry configured (server dry run)", out
    got = sim.kubectl_json("get", "cm", "dry")
    assert got["data"] == {"k": "v"} and got["metadata"]["resourceVersion"] == rv, got


def create_and_replace(sim, d):
    f = write(os.path.join(d, "exists.yaml"), "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: exists}\n"
                                              "data: {k: v}\n")
    assert sim.kubectl("create", "-f", f).stdout.strip() == "configmap/exists created"
    kubectl_fails(sim, "create", "-f", f,
                  contains='Error from server (AlreadyExists): error when creating "%s": '
                           'configmaps "exists" already exists' % f)

    stale = os.path.join(d, "stale.yaml")
    write(stale, sim.kubectl("get", "cm", "exists", "-o", "yaml").stdout.replace("k: v", "k: stale"))
    sim.kubectl("label", "cm", "exists", "touched=yes")        # moves resourceVersion on
    kubectl_fails(sim, "replace", "-f", stale,
                  contains='Error from server (Conflict): error when replacing "%s": Operation cannot be '
                           'fulfilled on configmaps "exists": the object has been modified; please apply '
                           'your changes to the latest version and try again' % stale)
    assert sim.kubectl("get", "cm", "exists", "-o", "jsonpath={.data.k}").stdout == "v"
    # The same replace with the current version goes through.
    fresh = sim.kubectl("get", "cm", "exists", "-o", "yaml").stdout.replace("k: v", "k: fresh")
    assert sim.kubectl("replace", "-f", "-", input=fresh).stdout.strip() == "configmap/exists replaced"
    assert sim.kubectl("get", "cm", "exists", "-o", "jsonpath={.data.k}").stdout == "fresh"


def main():
    with KubeSim() as sim:
        builtins(sim, sim.dir)
        crd_and_dgd(sim, sim.dir)
        server_side(sim, sim.dir)
        dry_run(sim, sim.dir)
        create_and_replace(sim, sim.dir)
    print("kubectl apply matrix: ok")


if __name__ == "__main__":
    main()
