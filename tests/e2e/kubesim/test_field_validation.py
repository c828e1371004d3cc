"""fieldValidation of built-in kinds against Kubernetes' 1.32 OpenAPI document, at every
depth: unknown and duplicate fields under Strict (400), Warn (a `Warning` header per field,
the field dropped; the default without the parameter) and Ignore (dropped silently); values
of the wrong type as the API server's Go decoder words them, on create, update, every patch
type and server-side apply. The real kubectl is the client where it has a say."""
import json
import os
import tempfile
import time
import urllib.error
import urllib.request

from kubesim import KubeSim
from referee_lib import kubectl_fails

APPS = "/apis/apps/v1/namespaces/default/deployments"
TYPO = "spec.template.spec.containers[0].imagePullPolicyy"
TYPO_REFUSED = ('Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: '
                'unknown field "%s"' % TYPO)

DEPLOYMENT_YAML = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 1
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
      - name: main
        image: nginx:1.27
        imagePullPolicyy: Always
"""


def deployment(name, **spec_extra):
    spec = {"replicas": 1, "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}},
                         "spec": {"containers": [{"name": "main", "image": "nginx:1.27"}]}}}
    spec.update(spec_extra)
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name}, "spec": spec}


def call(sim, path, method="GET", body=None, content_type="application/json"):
    """(status, JSON body, Warning headers) of one request."""
    data = None
    if body is not None:
        data = (body if isinstance(body, str) else json.dumps(body)).encode()
    req = urllib.request.Request(sim.url + path, data=data, method=method,
                                 headers={"Content-Type": content_type} if data is not None else {})
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            status, raw, headers = resp.status, resp.read(), resp.headers
    except urllib.error.HTTPError as e:
        status, raw, headers = e.code, e.read(), e.headers
    return status, (json.loads(raw) if raw else None), headers.get_all("Warning") or []


def expect_status(got, code, message):
    status, body, _ = got
    assert status == code, (status, body)
    assert body["message"] == message, (body["message"], message)


def kubectl_validation(sim, d):
    f = os.path.join(d, "dep.yaml")
    with open(f, "w") as fh:
        fh.write(DEPLOYMENT_YAML)
    # kubectl's default --validate=strict: the server's words, nothing stored.
    err = kubectl_fails(sim, "apply", "-f", f)
    assert err.strip() == 'Error from server (BadRequest): error when creating "%s": %s' % (f, TYPO_REFUSED), err
    assert sim.kubectl("get", "deploy", "web", check=False).returncode != 0
    # --validate=warn: created, kubectl shows the server's warning, the field is not stored.
    proc = sim.kubectl("apply", "--validate=warn", "-f", f)
    assert proc.stdout.strip() == "deployment.apps/web created", proc.stdout
    assert 'Warning: unknown field "%s"' % TYPO in proc.stderr, proc.stderr
    container = sim.kubectl_json("get", "deploy", "web")["spec"]["template"]["spec"]["containers"][0]
    assert "imagePullPolicyy" not in container and container["imagePullPolicy"] == "IfNotPresent", container
    # --validate=false sends Ignore: dropped without a word.
    sim.kubectl("delete", "deploy", "web")
    proc = sim.kubectl("apply", "--validate=false", "-f", f)
    assert "Warning" not in proc.stderr, proc.stderr
    assert "imagePullPolicyy" not in json.dumps(sim.kubectl_json("get", "deploy", "web")["spec"])
    # Server-side apply: structured-merge-diff refuses the field whatever the directive.
    err = kubectl_fails(sim, "apply", "--server-side", "-f", f)
    assert err.strip() == ('Error from server: failed to create typed patch object (default/web; apps/v1, '
                           'Kind=Deployment): .spec.template.spec.containers[name="main"].imagePullPolicyy: '
                           'field not declared in schema'), err


def directives(sim):
    start = sim.requests()[-1]["seq"]
    bad = deployment("d1")
    bad["spec"]["template"]["spec"]["containers"][0]["imagePullPolicyy"] = "Always"
    expect_status(call(sim, APPS + "?fieldValidation=Strict", "POST", bad), 400, TYPO_REFUSED)
    # No parameter: Warn, the API server's default.
    status, body, warnings = call(sim, APPS, "POST", bad)
    assert status == 201 and warnings == ['299 - "unknown field \\"%s\\""' % TYPO], (status, warnings)
    assert "imagePullPolicyy" not in json.dumps(body), body
    bad["metadata"]["name"] = "d2"
    status, body, warnings = call(sim, APPS + "?fieldValidation=Ignore", "POST", bad)
    assert status == 201 and warnings == [], (status, warnings)
    assert "imagePullPolicyy" not in json.dumps(body), body
    # The request log keeps the warnings a write was answered with. A request is logged
    # after its answer is sent: poll until the last one is there.
    deadline = time.time() + 10
    while True:
        logged = [r for r in sim.requests(since=start) if r["verb"] == "create" and r["resource"] == "deployments"]
        if [r["code"] for r in logged] == [400, 201, 201] or time.time() > deadline:
            break
        time.sleep(0.05)
    assert [r.get("warnings") for r in logged] == [None, ['unknown field "%s"' % TYPO], None], logged


def several_fields(sim):
    # The conformance test's body: errors in document order, duplicates too.
    text = """{"apiVersion": "apps/v1", "kind": "Deployment",
      "metadata": {"name": "my-dep", "labels": {"app": "nginx"}},
      "spec": {"unknownField": "foo", "replicas": 2, "replicas": 3,
        "selector": {"matchLabels": {"app": "nginx"}},
        "template": {"metadata": {"labels": {"app": "nginx"}},
          "spec": {"containers": [{"name": "nginx", "image": "nginx:latest"}]}}}}"""
    expect_status(call(sim, APPS + "?fieldValidation=Strict", "POST", text), 400,
                  'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: '
                  'unknown field "spec.unknownField", duplicate field "spec.replicas"')
    status, body, warnings = call(sim, APPS + "?fieldValidation=Warn", "POST", text)
    assert status == 201 and body["spec"]["replicas"] == 3, body["spec"]   # the last duplicate wins
    assert warnings == ['299 - "unknown field \\"spec.unknownField\\""', '299 - "duplicate field \\"spec.replicas\\""'], warnings
    meta = deployment("meta")
    meta["metadata"]["unknownMeta"] = "foo"
    meta["spec"]["template"]["spec"]["volumes"] = [{"name": "v", "emptyDir": {"medium": "", "sizeLimitt": "1Gi"}}]
    meta["spec"]["template"]["metadata"]["labelz"] = {"a": "b"}
    expect_status(call(sim, APPS + "?fieldValidation=Strict", "POST", meta), 400,
                  'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: '
                  'unknown field "metadata.unknownMeta", unknown field "spec.template.metadata.labelz", '
                  'unknown field "spec.template.spec.volumes[0].emptyDir.sizeLimitt"')
    # Values the schema leaves open keep every field: a CRD schema's `default` (apiextensions
    # JSON); the schema itself (JSONSchemaProps) is a struct like any other.
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "widgets.example.com"},
           "spec": {"group": "example.com", "scope": "Namespaced",
                    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
                    "versions": [{"name": "v1", "served": True, "storage": True, "schema": {"openAPIV3Schema": {
                        "type": "object", "properties": {"spec": {
                            "type": "object", "x-kubernetes-preserve-unknown-fields": True,
                            "default": {"anything": {"nested": [1, "two"]}}}}}}}]}}
    crds = "/apis/apiextensions.k8s.io/v1/customresourcedefinitions"
    typo = json.loads(json.dumps(crd))
    typo["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["tpye"] = "object"
    expect_status(call(sim, crds + "?fieldValidation=Strict", "POST", typo), 400,
                  'CustomResourceDefinition in version "v1" cannot be handled as a CustomResourceDefinition: strict '
                  'decoding error: unknown field "spec.versions[0].schema.openAPIV3Schema.properties.spec.tpye"')
    status, body, _ = call(sim, crds + "?fieldValidation=Strict", "POST", crd)
    assert status == 201, body
    spec = body["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    assert spec["default"] == {"anything": {"nested": [1, "two"]}}, spec


def types(sim):
    prefix = 'Deployment in version "v1" cannot be handled as a Deployment: '
    cases = [
        ({"replicas": "3"}, "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32"),
        ({"replicas": 1.5}, "json: cannot unmarshal number 1.5 into Go struct field DeploymentSpec.spec.replicas of type int32"),
        ({"replicas": 3000000000},
         "json: cannot unmarshal number 3000000000 into Go struct field DeploymentSpec.spec.replicas of type int32"),
        ({"paused": "yes"}, "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.paused of type bool"),
        ({"strategy": []}, "json: cannot unmarshal array into Go struct field DeploymentSpec.spec.strategy of type v1.DeploymentStrategy"),
        ({"strategy": {"rollingUpdate": {"maxSurge": True}}}, "json: cannot unmarshal bool into Go value of type int32"),
        ({"template": {"metadata": {"labels": {"app": 7}}}},
         "json: cannot unmarshal number into Go struct field ObjectMeta.spec.template.metadata.labels of type string"),
    ]
    for extra, message in cases:
        expect_status(call(sim, APPS + "?fieldValidation=Strict", "POST", deployment("t", **extra)), 400, prefix + message)
    containers = deployment("t")
    containers["spec"]["template"]["spec"]["containers"] = {"name": "main"}
    expect_status(call(sim, APPS, "POST", containers), 400, prefix +
                  "json: cannot unmarshal object into Go struct field PodSpec.spec.template.spec.containers of type []v1.Container")
    port = deployment("t")
    port["spec"]["template"]["spec"]["containers"][0]["ports"] = [{"containerPort": "80"}]
    expect_status(call(sim, APPS, "POST", port), 400, prefix + "json: cannot unmarshal string into Go struct field "
                  "ContainerPort.spec.template.spec.containers.ports.containerPort of type int32")
    cm = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "cm"}, "data": {"n": 1}}
    expect_status(call(sim, "/api/v1/namespaces/default/configmaps", "POST", cm), 400,
                  'ConfigMap in version "v1" cannot be handled as a ConfigMap: json: cannot unmarshal number into '
                  "Go struct field ConfigMap.data of type string")
    # What the types allow: int-or-string either way, quantities as numbers, null anywhere.
    ok = deployment("typed-ok", strategy={"rollingUpdate": {"maxSurge": 1, "maxUnavailable": "10%"}},
                    minReadySeconds=None)
    ok["spec"]["template"]["spec"]["containers"][0]["resources"] = {"limits": {"cpu": 2, "memory": "1Gi"}}
    status, body, _ = call(sim, APPS + "?fieldValidation=Strict", "POST", ok)
    assert status == 201, body
    assert body["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["cpu"] == "2", body


def update_and_patches(sim):
    status, dep, _ = call(sim, APPS + "?fieldValidation=Strict", "POST", deployment("p"))
    assert status == 201, dep
    # PUT: the create's words.
    dep["spec"]["template"]["spec"]["containers"][0]["imagePullPolicyy"] = "Always"
    expect_status(call(sim, APPS + "/p?fieldValidation=Strict", "PUT", dep), 400, TYPO_REFUSED)
    status, body, warnings = call(sim, APPS + "/p", "PUT", dep)
    assert status == 200 and len(warnings) == 1 and "imagePullPolicyy" not in json.dumps(body), (status, warnings)
    # Merge, JSON and strategic merge patches: the patched object is decoded; strict errors
    # carry no kind prefix.
    merge = {"spec": {"template": {"spec": {"containers": [{"name": "main", "image": "nginx:1.27",
                                                            "imagePullPolicyy": "Always"}]}}}}
    expect_status(call(sim, APPS + "/p?fieldValidation=Strict", "PATCH", merge, "application/merge-patch+json"), 400,
                  'strict decoding error: unknown field "%s"' % TYPO)
    jp = [{"op": "add", "path": "/spec/progressDeadlineSecondz", "value": 5}]
    status, body, warnings = call(sim, APPS + "/p", "PATCH", jp, "application/json-patch+json")
    assert status == 200 and warnings == ['299 - "unknown field \\"spec.progressDeadlineSecondz\\""'], (status, warnings)
    assert "progressDeadlineSecondz" not in body["spec"], body["spec"]
    smp = {"spec": {"template": {"spec": {"containers": [{"name": "main", "imagePullPolicyy": "Always"}]}}}}
    expect_status(call(sim, APPS + "/p?fieldValidation=Strict", "PATCH", smp, "application/strategic-merge-patch+json"),
                  400, 'strict decoding error: unknown field "%s"' % TYPO)
    # Wrong types in a patch: 422 on the field "patch", in the patch reader's words.
    expect_status(call(sim, APPS + "/p", "PATCH", {"spec": {"replicas": "x"}}, "application/strategic-merge-patch+json"),
                  422, ' "" is invalid: patch: Invalid value: "map[spec:map[replicas:x]]": cannot convert string to int32')
    status, body, _ = call(sim, APPS + "/p", "PATCH", {"spec": {"replicas": "x"}}, "application/merge-patch+json")
    assert status == 422 and body["details"]["causes"][0]["field"] == "patch", body
    assert body["message"].endswith(": json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas "
                                    "of type int32"), body["message"]
    # The status subresource decodes the whole body too.
    status, cur, _ = call(sim, APPS + "/p")
    cur.setdefault("status", {})["readyReplicaz"] = 1
    expect_status(call(sim, APPS + "/p/status?fieldValidation=Strict", "PUT", cur), 400,
                  'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: '
                  'unknown field "status.readyReplicaz"')
    # Server-side apply, wrong type: structured-merge-diff's words, 500 as Kubernetes 1.32 answers.
    apply = deployment("p", replicas="two")
    status, body, _ = call(sim, APPS + "/p?fieldManager=t&fieldValidation=Ignore", "PATCH", apply,
                           "application/apply-patch+yaml")
    assert status == 500 and "reason" not in body, body
    assert body["message"] == ("failed to create typed patch object (default/p; apps/v1, Kind=Deployment): "
                               ".spec.replicas: expected numeric (int or float), got string"), body


def main():
    with KubeSim(tls=False) as sim, tempfile.TemporaryDirectory() as d:
        kubectl_validation(sim, d)
        directives(sim)
        several_fields(sim)
        types(sim)
        update_and_patches(sim)
    print("ok")


if __name__ == "__main__":
    main()
