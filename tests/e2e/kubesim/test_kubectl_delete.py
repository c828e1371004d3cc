"""kubectl v1.32 deletion against kube-sim: `delete --cascade=background|foreground|orphan`
with the dependents (ReplicaSets and Pods carrying ownerReferences) checked afterwards,
`describe` showing the core/v1 Events of an object, and `delete namespace` removing its
contents (and refusing new content while it terminates)."""
import json

from kubesim import KubeSim
from referee_lib import kubectl_fails, poll

HOLD = "example.com/hold"


def deployment(name):
    return {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
            "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}}}


def owned_by(obj, block=True):
    return [{"apiVersion": obj["apiVersion"], "kind": obj["kind"], "name": obj["metadata"]["name"],
             "uid": obj["metadata"]["uid"], "controller": True, "blockOwnerDeletion": block}]


def family(sim, name, rs_finalizers=()):
    """A Deployment, its ReplicaSet and the ReplicaSet's Pod, linked by ownerReferences."""
    sim.kubectl("apply", "-f", "-", input=json.dumps(deployment(name)))
    dep = sim.kubectl_json("get", "deploy", name)
    rs = {"apiVersion": "apps/v1", "kind": "ReplicaSet",
          "metadata": {"name": name + "-rs", "ownerReferences": owned_by(dep), "finalizers": list(rs_finalizers)},
          "spec": {"replicas": 1, "selector": {"matchLabels": {"app": name}},
                   "template": deployment(name)["spec"]["template"]}}
    sim.kubectl("create", "-f", "-", input=json.dumps(rs))
    rs = sim.kubectl_json("get", "rs", name + "-rs")
    pod = {"apiVersion": "v1", "kind": "Pod",
           "metadata": {"name": name + "-pod", "labels": {"app": name}, "ownerReferences": owned_by(rs)},
           "spec": {"containers": [{"name": "c", "image": "busybox:1.36"}]}}
    sim.kubectl("create", "-f", "-", input=json.dumps(pod))
    return dep, rs


def exists(sim, *what):
    return sim.kubectl("get", *what, check=False).returncode == 0


def cascade(sim):
    # Background: the owner goes at once, the GC removes the dependents afterwards.
    family(sim, "bg")
    out = sim.kubectl("delete", "deploy", "bg", "--cascade=background").stdout
    assert out.strip() == 'deployment.apps "bg" deleted', out
    assert not exists(sim, "deploy", "bg")
    poll("background GC of bg's ReplicaSet and Pod",
         lambda: not exists(sim, "rs", "bg-rs") and not exists(sim, "pod", "bg-pod"))

    # Foreground: the owner stays (deletionTimestamp + foregroundDeletion) while a blocking
    # dependent exists; the dependents are deleted first, then the owner.
    family(sim, "fg", rs_finalizers=[HOLD])
    sim.kubectl("delete", "deploy", "fg", "--cascade=foreground", "--wait=false")
    dep = sim.kubectl_json("get", "deploy", "fg")
    assert dep["metadata"].get("deletionTimestamp") and "foregroundDeletion" in dep["metadata"]["finalizers"], \
        dep["metadata"]
    poll("the ReplicaSet to be deleted (pod gone, finalizer holding it)",
         lambda: not exists(sim, "pod", "fg-pod") and sim.kubectl_json("get", "rs", "fg-rs")["metadata"]
         .get("deletionTimestamp"))
    assert exists(sim, "deploy", "fg"), "the owner went before its blocking dependent"
    sim.kubectl("patch", "rs", "fg-rs", "--type=json", "-p", '[{"op":"remove","path":"/metadata/finalizers"}]')
    poll("the foreground owner to go after its dependents",
         lambda: not exists(sim, "rs", "fg-rs") and not exists(sim, "deploy", "fg"))

    # Orphan: the owner goes, the dependents stay without their ownerReferences.
    family(sim, "or")
    out = sim.kubectl("delete", "deploy", "or", "--cascade=orphan").stdout
    assert out.strip() == 'deployment.apps "or" deleted', out
    poll("the orphaning owner to go", lambda: not exists(sim, "deploy", "or"))
    rs = sim.kubectl_json("get", "rs", "or-rs")
    assert not rs["metadata"].get("ownerReferences"), rs["metadata"]
    pod = sim.kubectl_json("get", "pod", "or-pod")
    assert pod["metadata"]["ownerReferences"][0]["uid"] == rs["metadata"]["uid"], "the Pod's own owner was touched"
    # And they were not collected later either: the GC had its chance while the owner went.
    sim.kubectl("delete", "rs", "or-rs")                  # background: now the pod goes
    poll("the orphaned ReplicaSet's pod to be collected", lambda: not exists(sim, "pod", "or-pod"))

    bodies = [r for r in sim.requests() if r["verb"] == "delete" and r["resource"] == "deployments"]
    assert [r["code"] for r in bodies] == [200, 200, 200], bodies


def describe_events(sim):
    sim.kubectl("apply", "-f", "-", input=json.dumps(deployment("described")))
    dep = sim.kubectl_json("get", "deploy", "described")
    for i, (typ, reason, msg) in enumerate([("Normal", "ScalingReplicaSet", "Scaled up replica set described-1 to 1"),
                                           ("Warning", "FailedCreate", "quota exceeded for described")]):
        ev = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "described.%d" % i},
              "involvedObject": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "described",
                                 "namespace": "default", "uid": dep["metadata"]["uid"]},
              "type": typ, "reason": reason, "message": msg, "count": 1,
              "source": {"component": "deployment-controller"},
              "firstTimestamp": "2026-01-01T00:00:00Z", "lastTimestamp": "2026-01-01T00:00:00Z"}
        sim.kubectl("create", "-f", "-", input=json.dumps(ev))
    # An event of another object must not show up.
    other = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "other.0"},
             "involvedObject": {"apiVersion": "apps/v1", "kind": "Deployment", "name": "other",
                                "namespace": "default", "uid": "0000"},
             "type": "Normal", "reason": "Unrelated", "message": "not mine", "source": {"component": "x"}}
    sim.kubectl("create", "-f", "-", input=json.dumps(other))

    out = sim.kubectl("describe", "deploy", "described").stdout
    assert "Name:" in out and "described" in out and "Replicas:" in out, out
    events = out[out.index("Events:"):]
    assert "ScalingReplicaSet" in events and "Scaled up replica set described-1 to 1" in events, events
    assert "FailedCreate" in events and "quota exceeded for described" in events, events
    assert "deployment-controller" in events and "Unrelated" not in events, events
    lists = [r for r in sim.requests() if r["resource"] == "events" and r["verb"] == "list"]
    assert lists and all(r["code"] == 200 for r in lists), lists
    out = sim.kubectl("get", "events", "--field-selector", "involvedObject.name=described", "-o", "name").stdout
    assert sorted(out.split()) == ["event/described.0", "event/described.1"], out


def namespace_deletion(sim):
    ns = "team"
    sim.kubectl("apply", "-f", "-", input="apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}\n" % ns)
    sim.kubectl("apply", "-n", ns, "-f", "-", input=json.dumps(deployment("app")))
    sim.kubectl("apply", "-n", ns, "-f", "-", input="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n---\n"
                "apiVersion: v1\nkind: Secret\nmetadata: {name: s}\nstringData: {a: b}\n---\n"
                "apiVersion: v1\nkind: ServiceAccount\nmetadata: {name: robot}\n")
    # Something elsewhere with the same names must survive.
    sim.kubectl("apply", "-f", "-", input="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\n")
    out = sim.kubectl("delete", "namespace", ns).stdout          # waits until it is gone
    assert out.strip() == 'namespace "team" deleted', out
    assert not exists(sim, "ns", ns)
    for kind in ("deploy", "cm", "secret", "sa"):
        assert sim.kubectl("get", kind, "-n", ns, "-o", "name").stdout.strip() == "", kind
    assert exists(sim, "cm", "c")

    # Held open by a finalizer: the namespace is Terminating and refuses new content.
    sim.kubectl("apply", "-f", "-", input="apiVersion: v1\nkind: Namespace\nmetadata: {name: slow}\n")
    sim.kubectl("apply", "-n", "slow", "-f", "-",
                input="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: held, finalizers: [%s]}\n" % HOLD)
    sim.kubectl("delete", "namespace", "slow", "--wait=false")
    poll("namespace slow to be Terminating",
         lambda: sim.kubectl_json("get", "ns", "slow")["status"]["phase"] == "Terminating")
    kubectl_fails(sim, "create", "-n", "slow", "-f", "-",
                  input="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: late}\n",
                  contains=["Forbidden", "because it is being terminated"])
    sim.kubectl("patch", "-n", "slow", "cm", "held", "--type=merge", "-p", '{"metadata":{"finalizers":null}}')
    poll("namespace slow to go once its content is gone", lambda: not exists(sim, "ns", "slow"))


def main():
    with KubeSim() as sim:
        cascade(sim)
        describe_events(sim)
        namespace_deletion(sim)
    print("kubectl delete matrix: ok")


if __name__ == "__main__":
    main()
