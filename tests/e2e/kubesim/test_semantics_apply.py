"""Server-side apply semantics over raw HTTP (what kubectl does not show): two appliers
sharing an object, managedFields contents (manager, operation, apiVersion, time,
FieldsV1 with f:/k: keys), shared ownership of equal values, conflicts with Apply and
Update managers (409 + FieldManagerConflict causes), force, removal of a field only
when its last owner stops applying it, associative lists merged by key, and the
request errors (no fieldManager, managedFields in the body), and list and map semantics
read from Kubernetes' OpenAPI document (atomic LabelSelector and tolerations, ports keyed
by containerPort and the defaulted protocol, finalizers as a set), and applies to the
status subresource."""
import json

from kubesim import KubeSim
from referee_lib import CM, expect_status

APPLY = {"Content-Type": "application/apply-patch+yaml"}
DEPLOYS = "/apis/apps/v1/namespaces/default/deployments"


def apply(sim, path, body, manager, force=False):
    q = "?fieldManager=%s%s" % (manager, "&force=true" if force else "")
    return sim.request(path + q, "PATCH", json.dumps(body), headers=APPLY)


def ok(result, code=200):
    status, obj = result
    assert status == code, (status, obj)
    return obj


def owners(obj):
    """{manager: (operation, set of data keys it owns)} for a ConfigMap ("." entries aside)."""
    return {m["manager"]: (m["operation"], set(m.get("fieldsV1", {}).get("f:data", {})) - {"."})
            for m in obj["metadata"].get("managedFields", [])}


def cm(**data):
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "shared"}, "data": data}


def two_managers(sim):
    p = CM + "/shared"
    obj = ok(apply(sim, p, cm(a="1", b="2"), "alpha"), 201)       # apply creates: 201
    mf = obj["metadata"]["managedFields"]
    assert len(mf) == 1, mf
    e = mf[0]
    assert (e["manager"], e["operation"], e["apiVersion"], e["fieldsType"]) == ("alpha", "Apply", "v1", "FieldsV1"), e
    assert e["time"].endswith("Z") and "subresource" not in e, e
    # An Apply owns the leaves it sent (a map itself gets no "." entry, unlike Update sets).
    assert e["fieldsV1"] == {"f:data": {"f:a": {}, "f:b": {}}}, e["fieldsV1"]

    obj = ok(apply(sim, p, cm(c="3"), "beta"))
    assert obj["data"] == {"a": "1", "b": "2", "c": "3"}, obj["data"]
    assert owners(obj) == {"alpha": ("Apply", {"f:a", "f:b"}), "beta": ("Apply", {"f:c"})}, owners(obj)

    # Same value: no conflict, shared ownership.
    obj = ok(apply(sim, p, cm(c="3", a="1"), "beta"))
    assert owners(obj)["beta"][1] == {"f:a", "f:c"}, owners(obj)
    # alpha stops applying "a": beta still owns it, so it stays.
    obj = ok(apply(sim, p, cm(b="2"), "alpha"))
    assert obj["data"] == {"a": "1", "b": "2", "c": "3"}, obj["data"]
    assert owners(obj)["alpha"][1] == {"f:b"}, owners(obj)
    # beta stops applying "a" too: now nobody owns it and it goes.
    obj = ok(apply(sim, p, cm(c="3"), "beta"))
    assert obj["data"] == {"b": "2", "c": "3"}, obj["data"]

    # A different value for a field another applier owns: 409, nothing changes.
    rv = obj["metadata"]["resourceVersion"]
    status, body = apply(sim, p, cm(b="other"), "beta")
    expect_status(status, body, 409, "Conflict", contains='Apply failed with 1 conflict: conflict with "alpha": .data.b')
    assert body["details"]["causes"] == [{"reason": "FieldManagerConflict", "message": 'conflict with "alpha"',
                                          "field": ".data.b"}], body["details"]
    assert ok(sim.request(p))["metadata"]["resourceVersion"] == rv


def conflicts_and_force(sim):
    p = CM + "/forced"
    base = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "forced"}}
    ok(apply(sim, p, dict(base, data={"x": "1", "y": "2"}), "owner"), 201)
    status, body = apply(sim, p, dict(base, data={"x": "9", "y": "9"}), "thief")
    expect_status(status, body, 409, "Conflict", contains="Apply failed with 2 conflicts")
    assert sorted(c["field"] for c in body["details"]["causes"]) == [".data.x", ".data.y"], body
    assert {c["reason"] for c in body["details"]["causes"]} == {"FieldManagerConflict"}, body

    obj = ok(apply(sim, p, dict(base, data={"x": "9"}), "thief", force=True))
    assert obj["data"] == {"x": "9", "y": "2"}, obj["data"]
    assert owners(obj) == {"owner": ("Apply", {"f:y"}), "thief": ("Apply", {"f:x"})}, owners(obj)

    # An Update (merge patch) never conflicts: it takes the field over as an Update manager...
    status, obj = sim.request(p + "?fieldManager=editor", "PATCH", {"data": {"y": "3"}},
                              headers={"Content-Type": "application/merge-patch+json"})
    assert status == 200 and obj["data"]["y"] == "3", obj
    assert owners(obj)["editor"] == ("Update", {"f:y"}), owners(obj)
    assert "owner" not in owners(obj), "a manager left owning nothing keeps its entry: %s" % owners(obj)
    # ...so the original applier re-applying its value now conflicts with the Update manager.
    status, body = apply(sim, p, dict(base, data={"y": "2"}), "owner")
    expect_status(status, body, 409, "Conflict", contains='conflict with "editor" using v1')
    # Non-apply writes without fieldManager are attributed to the user agent's first word.
    status, obj = sim.request(p, "PATCH", {"data": {"z": "1"}}, headers={"Content-Type": "application/merge-patch+json",
                                                                          "User-Agent": "mytool/1.0 (linux)"})
    assert status == 200 and owners(obj)["mytool"] == ("Update", {"f:z"}), owners(obj)


def associative_lists(sim):
    """Built-in lists with merge keys are per-item owned: k:{"name":...} entries."""
    p = DEPLOYS + "/ssa"

    def dep(containers):
        return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "ssa"},
                "spec": {"selector": {"matchLabels": {"app": "ssa"}},
                         "template": {"metadata": {"labels": {"app": "ssa"}},
                                      "spec": {"containers": containers}}}}

    ok(apply(sim, p, dep([{"name": "main", "image": "a:1"}, {"name": "side", "image": "b:1"}]), "ctl"), 201)
    # Another manager adds its own container: merged by name, not replacing the list.
    obj = ok(apply(sim, p, dep([{"name": "extra", "image": "c:1"}]), "other"))
    names = [c["name"] for c in obj["spec"]["template"]["spec"]["containers"]]
    assert sorted(names) == ["extra", "main", "side"], names
    fields = {m["manager"]: m["fieldsV1"] for m in obj["metadata"]["managedFields"]}
    ctl_containers = fields["ctl"]["f:spec"]["f:template"]["f:spec"]["f:containers"]
    assert set(ctl_containers) == {'k:{"name":"main"}', 'k:{"name":"side"}'}, ctl_containers
    assert set(ctl_containers['k:{"name":"main"}']) >= {"f:name", "f:image"}, ctl_containers
    # ctl drops "side": removed (nobody else owns it); "extra" stays (other owns it).
    obj = ok(apply(sim, p, dep([{"name": "main", "image": "a:2"}]), "ctl"))
    cs = {c["name"]: c["image"] for c in obj["spec"]["template"]["spec"]["containers"]}
    assert cs == {"main": "a:2", "extra": "c:1"}, cs
    assert obj["metadata"]["generation"] == 3, obj["metadata"]
    # Defaults filled by the server are not owned by the applier and survive its applies.
    assert obj["spec"]["replicas"] == 1 and obj["spec"]["revisionHistoryLimit"] == 10, obj["spec"]
    assert "f:replicas" not in fields["ctl"]["f:spec"], fields["ctl"]["f:spec"]


def schema_from_document(sim):
    """What the OpenAPI document says about a Deployment's fields shows in managedFields."""
    p = DEPLOYS + "/typed"
    body = {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "typed", "finalizers": ["example.com/keep"]},
            "spec": {"selector": {"matchLabels": {"app": "typed"}},
                     "template": {"metadata": {"labels": {"app": "typed"}},
                                  "spec": {"containers": [{"name": "main", "image": "a:1",
                                                           "ports": [{"containerPort": 80}]}],
                                           "tolerations": [{"key": "gpu", "operator": "Exists"}]}}}}
    obj = ok(apply(sim, p, body, "typer"), 201)
    f = {m["manager"]: m["fieldsV1"] for m in obj["metadata"]["managedFields"]}["typer"]
    # LabelSelector is an atomic struct: owned whole, no f:matchLabels below it.
    assert f["f:spec"]["f:selector"] == {}, f["f:spec"]["f:selector"]
    pod = f["f:spec"]["f:template"]["f:spec"]
    assert pod["f:tolerations"] == {}, pod  # an atomic list
    # Ports are keyed by containerPort and protocol; protocol is defaulted to TCP for the key.
    ports = pod["f:containers"]['k:{"name":"main"}']["f:ports"]
    assert set(ports) == {'k:{"containerPort":80,"protocol":"TCP"}'}, ports
    assert f["f:metadata"]["f:finalizers"] == {'v:"example.com/keep"': {}}, f["f:metadata"]
    # Another applier's tolerations conflict on the list as a whole.
    other = json.loads(json.dumps(body))
    other["spec"]["template"]["spec"] = {"tolerations": [{"key": "other", "operator": "Exists"}]}
    del other["spec"]["selector"]
    status, result = apply(sim, p, other, "rival")
    expect_status(status, result, 409, "Conflict")
    fields = [c["field"] for c in result["details"]["causes"]]
    assert fields == [".spec.template.spec.tolerations"], fields
    # Let the object go.
    ok(apply(sim, p, dict(body, metadata={"name": "typed", "finalizers": []}), "typer"))


def status_subresource(sim):
    """An apply to /status owns only .status, in an entry marked subresource: status."""
    crd = {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
           "metadata": {"name": "widgets.example.com"},
           "spec": {"group": "example.com", "scope": "Namespaced",
                    "names": {"plural": "widgets", "singular": "widget", "kind": "Widget", "listKind": "WidgetList"},
                    "versions": [{"name": "v1", "served": True, "storage": True, "subresources": {"status": {}},
                                  "schema": {"openAPIV3Schema": {"type": "object", "properties": {
                                      "spec": {"type": "object", "x-kubernetes-preserve-unknown-fields": True},
                                      "status": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}}}]}}
    ok(sim.request("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "POST", json.dumps(crd)), 201)
    p = "/apis/example.com/v1/namespaces/default/widgets/w"
    body = {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}, "spec": {"size": 1}}
    ok(apply(sim, p, dict(body, status={"phase": "ignored"}), "spec-owner"), 201)
    obj = ok(apply(sim, p + "/status", {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                                        "status": {"phase": "Ready"}}, "status-owner"))
    assert obj["status"] == {"phase": "Ready"}, obj.get("status")
    assert obj["spec"] == {"size": 1}, obj["spec"]
    entries = {m["manager"]: m for m in obj["metadata"]["managedFields"]}
    st = entries["status-owner"]
    assert st["operation"] == "Apply" and st.get("subresource") == "status", st
    assert st["fieldsV1"] == {"f:status": {"f:phase": {}}}, st["fieldsV1"]
    assert "subresource" not in entries["spec-owner"], entries["spec-owner"]
    assert "f:status" not in entries["spec-owner"]["fieldsV1"], entries["spec-owner"]


def request_errors(sim):
    status, body = sim.request(CM + "/noman", "PATCH", json.dumps(cm(a="1")), headers=APPLY)
    expect_status(status, body, 422, "Invalid", contains="fieldManager")
    with_mf = cm(a="1")
    with_mf["metadata"]["managedFields"] = [{"manager": "x", "operation": "Apply"}]
    status, body = apply(sim, CM + "/shared", with_mf, "alpha")
    expect_status(status, body, 400, "BadRequest", contains="metadata.managedFields must be nil")
    status, body = sim.request(CM + "/shared?fieldManager=x", "PATCH", b"a: [1", headers=APPLY)
    expect_status(status, body, 400, "BadRequest")
    # An apply whose name differs from the URL is refused.
    status, body = apply(sim, CM + "/shared", dict(cm(a="1"), metadata={"name": "elsewhere"}), "alpha")
    expect_status(status, body, 400, "BadRequest")
    # The server keeps serving and nothing above changed the object.
    obj = ok(sim.request(CM + "/shared"))
    assert obj["data"]["b"] == "2", obj["data"]


def main():
    with KubeSim() as sim:
        two_managers(sim)
        conflicts_and_force(sim)
        associative_lists(sim)
        schema_from_document(sim)
        status_subresource(sim)
        request_errors(sim)
    print("server-side apply semantics: ok")


if __name__ == "__main__":
    main()
