"""Object lifecycle semantics over raw HTTP: generation rules (spec changes bump it,
metadata and status changes do not; a CRD without a status subresource counts status as
spec), status subresource isolation both ways, finalizers (Terminating until the last
one goes, no new ones while deleting, a second DELETE is a no-op), DELETE preconditions,
and garbage-collection order: foreground waits only for blocking dependents and deletes
them before the owner, orphan strips only the deleted owner's reference, background
keeps a dependent while another owner lives and collects one whose owner uid is gone."""

from kubesim import KubeSim
from referee_lib import CM, RawWatch, create, expect_status, gone, poll

DEPLOYS = "/apis/apps/v1/namespaces/default/deployments"
WIDGETS = "/apis/example.com/v1/namespaces/default/widgets"
PLAIN = "/apis/example.com/v1/namespaces/default/plains"
MERGE = {"Content-Type": "application/merge-patch+json"}


def crd(plural, kind, status):
    version = {"name": "v1", "served": True, "storage": True,
               "schema": {"openAPIV3Schema": {"type": "object", "x-kubernetes-preserve-unknown-fields": True}}}
    if status:
        version["subresources"] = {"status": {}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": plural + ".example.com"},
            "spec": {"group": "example.com", "scope": "Namespaced",
                     "names": {"plural": plural, "singular": kind.lower(), "kind": kind},
                     "versions": [version]}}


def deployment(name, replicas=1):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}}}


def put(sim, path, obj):
    status, out = sim.request(path, "PUT", obj)
    assert status == 200, (path, status, out)
    return out


def patch(sim, path, body):
    status, out = sim.request(path, "PATCH", body, headers=MERGE)
    assert status == 200, (path, status, out)
    return out


def md(obj):
    return obj["metadata"]["generation"], obj["metadata"]["resourceVersion"]


def generation_and_status(sim):
    d = create(sim, DEPLOYS, deployment("gen"))
    p = DEPLOYS + "/gen"
    assert d["metadata"]["generation"] == 1
    assert d.get("status", {}) == {}, "create kept a client-supplied status"

    gen, rv = md(d)
    d["metadata"]["labels"] = {"x": "1"}
    d["metadata"]["annotations"] = {"note": "n"}
    d = put(sim, p, d)
    assert md(d)[0] == 1 and md(d)[1] != rv, "a metadata change bumped generation (or kept the version)"

    # Main endpoint: a status change is ignored (nothing changes at all here).
    rv = md(d)[1]
    d["status"] = {"replicas": 5, "readyReplicas": 5}
    d = put(sim, p, d)
    assert d.get("status", {}).get("readyReplicas") is None and md(d) == (1, rv), d.get("status")
    d = patch(sim, p, {"status": {"readyReplicas": 4}})
    assert d.get("status", {}).get("readyReplicas") is None and md(d) == (1, rv), d.get("status")

    # /status: status changes, spec and labels ignored, generation stays, version moves.
    d["status"] = {"replicas": 1, "readyReplicas": 1, "observedGeneration": 1}
    d["spec"]["replicas"] = 7
    s = put(sim, p + "/status", d)
    assert s["status"]["readyReplicas"] == 1 and s["spec"]["replicas"] == 1, s
    assert md(s)[0] == 1 and md(s)[1] != rv
    s = patch(sim, p + "/status", {"status": {"readyReplicas": 0}, "spec": {"replicas": 8}})
    assert s["status"]["readyReplicas"] == 0 and s["spec"]["replicas"] == 1 and md(s)[0] == 1, s

    # Spec change: generation 2, status kept.
    s["spec"]["replicas"] = 3
    d = put(sim, p, s)
    assert md(d)[0] == 2 and d["status"]["replicas"] == 1, d
    d = patch(sim, p, {"spec": {"template": {"spec": {"containers": [{"name": "c", "image": "busybox:1.37"}]}}}})
    assert md(d)[0] == 3, d["metadata"]
    # A patch that changes nothing: same version, same generation, no event.
    rv = md(d)[1]
    d = patch(sim, p, {"spec": {"replicas": 3}})
    assert md(d) == (3, rv), d["metadata"]

    # Kinds without generation (ConfigMap) never get one.
    c = create(sim, CM, {"metadata": {"name": "nogen"}, "data": {"a": "1"}})
    c = patch(sim, CM + "/nogen", {"data": {"a": "2"}})
    assert "generation" not in c["metadata"], c["metadata"]


def custom_resources(sim):
    for plural, kind, status in (("widgets", "Widget", True), ("plains", "Plain", False)):
        create(sim, "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", crd(plural, kind, status))
    poll("CRD kinds to be served", lambda: sim.request(WIDGETS)[0] == 200 and sim.request(PLAIN)[0] == 200)

    w = create(sim, WIDGETS, {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"},
                              "spec": {"size": 1}, "status": {"phase": "Fake"}})
    assert "status" not in w and w["metadata"]["generation"] == 1, w
    w = patch(sim, WIDGETS + "/w", {"metadata": {"labels": {"a": "b"}}, "status": {"phase": "X"}})
    assert md(w)[0] == 1 and "status" not in w, w
    # /status of a custom resource ignores everything but status, labels included.
    w = patch(sim, WIDGETS + "/w/status", {"status": {"phase": "Ready"}, "spec": {"size": 9},
                                           "metadata": {"labels": {"a": "changed"}}})
    assert w["status"] == {"phase": "Ready"} and w["spec"] == {"size": 1}, w
    assert w["metadata"]["labels"] == {"a": "b"} and md(w)[0] == 1, w["metadata"]
    w = patch(sim, WIDGETS + "/w", {"spec": {"size": 2}})
    assert md(w)[0] == 2 and w["status"] == {"phase": "Ready"}, w
    # Custom resources refuse an unconditional PUT (no resourceVersion): 422 Invalid
    # "metadata.resourceVersion: Invalid value: 0x0: must be specified for an update".
    w.pop("metadata")
    w["metadata"] = {"name": "w"}
    status, body = sim.request(WIDGETS + "/w", "PUT", w)
    expect_status(status, body, 422, "Invalid", contains="must be specified for an update")

    # Without a status subresource, status is part of the object: stored on create, and a
    # status change bumps generation like any non-metadata change.
    pl = create(sim, PLAIN, {"apiVersion": "example.com/v1", "kind": "Plain", "metadata": {"name": "p"},
                             "spec": {"size": 1}, "status": {"phase": "Kept"}})
    assert pl["status"] == {"phase": "Kept"} and md(pl)[0] == 1, pl
    pl = patch(sim, PLAIN + "/p", {"status": {"phase": "Next"}})
    assert pl["status"] == {"phase": "Next"} and md(pl)[0] == 2, pl
    assert sim.request(PLAIN + "/p/status")[0] == 404


def finalizers(sim):
    p = CM + "/fin"
    create(sim, CM, {"metadata": {"name": "fin", "finalizers": ["a.example.com/x", "b.example.com/y"]}})
    rv = sim.admin("state")["resourceVersion"]
    w = RawWatch(sim, CM + "?watch=true&fieldSelector=metadata.name%3Dfin&resourceVersion=" + rv)
    try:
        status, obj = sim.request(p, "DELETE")
        assert status == 200 and obj["metadata"]["deletionTimestamp"], (status, obj)
        assert obj["metadata"]["deletionGracePeriodSeconds"] == 0, obj["metadata"]
        status, again = sim.request(p, "DELETE")
        assert status == 200 and again["metadata"]["deletionTimestamp"] == obj["metadata"]["deletionTimestamp"]
        assert sim.request(p)[0] == 200, "an object with finalizers vanished on DELETE"
        # No new finalizers while terminating.
        status, body = sim.request(p, "PATCH", {"metadata": {"finalizers": ["a.example.com/x", "b.example.com/y",
                                                                             "c.example.com/z"]}}, headers=MERGE)
        expect_status(status, body, 422, "Invalid", contains="no new finalizers can be added if the object is being"
                                                             " deleted")
        # Other changes are still allowed; removing one finalizer keeps it Terminating.
        obj = patch(sim, p, {"metadata": {"finalizers": ["b.example.com/y"]}})
        assert obj["metadata"]["deletionTimestamp"] and sim.request(p)[0] == 200
        status, out = sim.request(p, "PATCH", {"metadata": {"finalizers": None}}, headers=MERGE)
        assert status == 200, out
        assert gone(sim, p)
        evs = w.wait_for("DELETED event", lambda e: e if e and e[-1]["type"] == "DELETED" else None)
        # DELETE sets deletionTimestamp (MODIFIED); the second DELETE changes nothing; removing
        # one finalizer is a MODIFIED; removing the last one deletes at once: no MODIFIED for
        # it, and DELETED carries the last stored state (as the apiserver's errEmptiedFinalizers).
        assert [e["type"] for e in evs] == ["MODIFIED", "MODIFIED", "DELETED"], [e["type"] for e in evs]
        assert evs[0]["object"]["metadata"]["deletionTimestamp"], evs[0]
        assert evs[2]["object"]["metadata"]["finalizers"] == ["b.example.com/y"], evs[2]
        assert int(evs[2]["object"]["metadata"]["resourceVersion"]) > int(evs[1]["object"]["metadata"]
                                                                            ["resourceVersion"]), evs
    finally:
        w.close()

    # Preconditions: a wrong uid or resourceVersion is 409 and deletes nothing.
    c = create(sim, CM, {"metadata": {"name": "pre"}})
    status, body = sim.request(CM + "/pre", "DELETE", {"preconditions": {"uid": "not-the-uid"}})
    expect_status(status, body, 409, "Conflict", contains="Precondition failed: UID in precondition: not-the-uid")
    status, body = sim.request(CM + "/pre", "DELETE", {"preconditions": {"resourceVersion": "1"}})
    expect_status(status, body, 409, "Conflict")
    status, _ = sim.request(CM + "/pre", "DELETE", {"preconditions": {"uid": c["metadata"]["uid"]}})
    assert status == 200 and gone(sim, CM + "/pre")


def owner_ref(obj, block=None, controller=None):
    ref = {"apiVersion": obj["apiVersion"] if "apiVersion" in obj else "v1", "kind": obj.get("kind", "ConfigMap"),
           "name": obj["metadata"]["name"], "uid": obj["metadata"]["uid"]}
    if block is not None:
        ref["blockOwnerDeletion"] = block
    if controller is not None:
        ref["controller"] = controller
    return ref


def cmobj(name, refs=(), finalizers=()):
    return {"apiVersion": "v1", "kind": "ConfigMap",
            "metadata": {"name": name, "ownerReferences": list(refs), "finalizers": list(finalizers)}}


def gc_foreground(sim):
    owner = create(sim, CM, cmobj("fg-owner"))
    rv = sim.admin("state")["resourceVersion"]
    create(sim, CM, cmobj("fg-block", [owner_ref(owner, block=True)], finalizers=["example.com/hold"]))
    create(sim, CM, cmobj("fg-block2", [owner_ref(owner, block=True)]))
    create(sim, CM, cmobj("fg-free", [owner_ref(owner, block=False)], finalizers=["example.com/hold"]))
    w = RawWatch(sim, CM + "?watch=true&resourceVersion=" + rv)
    try:
        status, obj = sim.request(CM + "/fg-owner", "DELETE", {"propagationPolicy": "Foreground"})
        assert status == 200 and obj["metadata"]["deletionTimestamp"], obj
        assert obj["metadata"]["finalizers"] == ["foregroundDeletion"], obj["metadata"]
        # Every dependent is being deleted; the blocking one held by its finalizer keeps the owner.
        poll("dependents to be deleted", lambda: gone(sim, CM + "/fg-block2") and
             sim.request(CM + "/fg-block")[1]["metadata"].get("deletionTimestamp") and
             sim.request(CM + "/fg-free")[1]["metadata"].get("deletionTimestamp"))
        assert sim.request(CM + "/fg-owner")[0] == 200, "owner went while a blocking dependent exists"
        # Release the non-blocking one first: the owner must still wait.
        patch(sim, CM + "/fg-free", {"metadata": {"finalizers": None}})
        poll("fg-free to go", lambda: gone(sim, CM + "/fg-free"))
        assert sim.request(CM + "/fg-owner")[0] == 200
        patch(sim, CM + "/fg-block", {"metadata": {"finalizers": None}})
        poll("the owner to go after its blocking dependents", lambda: gone(sim, CM + "/fg-owner"))
        evs = w.wait_for("owner DELETED", lambda e: e if any(x["type"] == "DELETED" and
                                                             x["object"]["metadata"]["name"] == "fg-owner"
                                                             for x in e) else None)
        order = [x["object"]["metadata"]["name"] for x in evs if x["type"] == "DELETED"]
        assert order[-1] == "fg-owner" and set(order[:-1]) == {"fg-block", "fg-block2", "fg-free"}, order
    finally:
        w.close()

    # Foreground with a non-blocking dependent held by a finalizer: the owner does not wait.
    owner = create(sim, CM, cmobj("fg2-owner"))
    create(sim, CM, cmobj("fg2-free", [owner_ref(owner)], finalizers=["example.com/hold"]))
    sim.request(CM + "/fg2-owner", "DELETE", {"propagationPolicy": "Foreground"})
    poll("an owner with only non-blocking dependents to go", lambda: gone(sim, CM + "/fg2-owner"))
    assert sim.request(CM + "/fg2-free")[1]["metadata"].get("deletionTimestamp")
    patch(sim, CM + "/fg2-free", {"metadata": {"finalizers": None}})


def gc_orphan_and_background(sim):
    a = create(sim, CM, cmobj("owner-a"))
    b = create(sim, CM, cmobj("owner-b"))
    create(sim, CM, cmobj("dep", [owner_ref(a, controller=True), owner_ref(b)]))
    status, obj = sim.request(CM + "/owner-a", "DELETE", {"propagationPolicy": "Orphan"})
    assert status == 200, obj
    poll("the orphaning owner to go", lambda: gone(sim, CM + "/owner-a"))
    dep = sim.request(CM + "/dep")[1]
    assert [r["name"] for r in dep["metadata"]["ownerReferences"]] == ["owner-b"], dep["metadata"]
    # orphanDependents=true (the legacy flag) means the same.
    c = create(sim, CM, cmobj("owner-c"))
    create(sim, CM, cmobj("dep-c", [owner_ref(c)]))
    assert sim.request(CM + "/owner-c?orphanDependents=true", "DELETE")[0] == 200
    poll("owner-c to go", lambda: gone(sim, CM + "/owner-c"))
    assert not sim.request(CM + "/dep-c")[1]["metadata"].get("ownerReferences")

    # Background: with owner-b gone too, dep has no live owner left and is collected.
    assert sim.request(CM + "/owner-b", "DELETE")[0] == 200
    poll("dep to be collected", lambda: gone(sim, CM + "/dep"))
    assert sim.request(CM + "/dep-c")[0] == 200, "an orphaned dependent was collected"

    # A dependent whose owner uid does not exist (same name, different uid) is collected.
    create(sim, CM, cmobj("recreated"))
    stale = {"metadata": {"name": "recreated", "uid": "00000000-0000-0000-0000-000000000000"}}
    create(sim, CM, cmobj("dep-stale", [owner_ref(stale)]))
    poll("a dependent of a uid that is gone to be collected", lambda: gone(sim, CM + "/dep-stale"))
    assert sim.request(CM + "/recreated")[0] == 200

    # Deployments and their ReplicaSets: the everyday background cascade.
    d = create(sim, DEPLOYS, deployment("bg"))
    rs = deployment("bg-rs")
    rs.update(kind="ReplicaSet")
    rs["metadata"]["ownerReferences"] = [owner_ref(d, block=True, controller=True)]
    rs["spec"]["selector"] = d["spec"]["selector"]
    rs["spec"]["template"] = d["spec"]["template"]
    create(sim, "/apis/apps/v1/namespaces/default/replicasets", rs)
    assert sim.request(DEPLOYS + "/bg", "DELETE")[0] == 200
    poll("the ReplicaSet to be collected", lambda: gone(sim, "/apis/apps/v1/namespaces/default/replicasets/bg-rs"))


def main():
    with KubeSim() as sim:
        generation_and_status(sim)
        custom_resources(sim)
        finalizers(sim)
        gc_foreground(sim)
        gc_orphan_and_background(sim)
        assert sim.proc.poll() is None
    print("lifecycle semantics: ok")


if __name__ == "__main__":
    main()
