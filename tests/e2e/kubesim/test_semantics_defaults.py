"""What a client reads back that it did not send, checked against the real apiserver's
behaviour (and docs/kube-sim.md's promises): canonical resource quantities, the
defaults filled on Deployments, Pods (and their templates), Services, Jobs, Secrets,
Namespaces and PVCs, the QoS class computed on create, generateName."""
import re

from kubesim import KubeSim
from referee_lib import create

NS = "/api/v1/namespaces/default"
APPS = "/apis/apps/v1/namespaces/default"

# (sent, read back): apimachinery's canonical forms.
QUANTITIES = [
    ("0.5", "500m"), ("1024Mi", "1Gi"), ("1000m", "1"), ("1.5", "1500m"), ("0.1", "100m"), ("1e3", "1e3"),
    ("2000M", "2G"), ("129e6", "129e6"), ("1.5e3", "1500"), ("128974848", "128974848"), ("100Gi", "100Gi"), ("0", "0"),
    ("1536Mi", "1536Mi"), ("2048Ki", "2Mi"), ("4", "4"),
]


def container(name="c", image="busybox:1.36", **extra):
    c = {"name": name, "image": image}
    c.update(extra)
    return c


def quantities(sim):
    res = {"requests": {"k%d" % i: q for i, (q, _) in enumerate(QUANTITIES)}}
    res["requests"]["cpu"] = "0.25"
    res["limits"] = {"cpu": "0.5", "memory": "1024Mi", "nvidia.com/gpu": "4"}
    # An extended resource needs a limit equal to its request (ValidateContainerResourceRequirements).
    pod = create(sim, NS + "/pods", {"metadata": {"name": "q"}, "spec": {"containers": [
        container(resources={"requests": {"cpu": "0.25", "memory": "512Mi", "example.com/x": "1000m"},
                             "limits": {"cpu": "0.5", "memory": "1024Mi", "nvidia.com/gpu": "4",
                                        "example.com/x": "1"}})]}})
    r = pod["spec"]["containers"][0]["resources"]
    assert r["requests"] == {"cpu": "250m", "memory": "512Mi", "example.com/x": "1",
                             "nvidia.com/gpu": "4"}, r            # gpu request copied from its limit
    assert r["limits"] == {"cpu": "500m", "memory": "1Gi", "nvidia.com/gpu": "4", "example.com/x": "1"}, r
    assert pod["status"]["qosClass"] == "Burstable", pod["status"]

    # Every sample through a PVC request (storage) and a Deployment template.
    for i, (sent, want) in enumerate(QUANTITIES):
        if sent == "0":
            continue    # a claim of zero bytes is refused: must be greater than zero
        pvc = create(sim, NS + "/persistentvolumeclaims", {"metadata": {"name": "pvc-%d" % i}, "spec": {
            "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": sent}}}})
        got = pvc["spec"]["resources"]["requests"]["storage"]
        assert got == want, (sent, got, want)
    dep = create(sim, APPS + "/deployments", {"metadata": {"name": "qd"}, "spec": {
        "selector": {"matchLabels": {"a": "qd"}},
        "template": {"metadata": {"labels": {"a": "qd"}}, "spec": {"containers": [
            container(resources={"requests": {"memory": s for s, _ in QUANTITIES[1:2]}, "limits": {"cpu": "1000m"}})
        ]}}}})
    r = dep["spec"]["template"]["spec"]["containers"][0]["resources"]
    assert r == {"requests": {"memory": "1Gi"}, "limits": {"cpu": "1"}}, r    # templates: no request copying
    # A later write compares canonical forms: sending "1Gi" for a stored "1Gi" is no change.
    dep["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["memory"] = "1024Mi"
    status, again = sim.request(APPS + "/deployments/qd", "PUT", dep)
    assert status == 200 and again["metadata"]["resourceVersion"] == dep["metadata"]["resourceVersion"], again
    # An invalid quantity fails decoding (Quantity.UnmarshalJSON): 400, before any validation.
    status, body = sim.request(NS + "/pods", "POST", {"metadata": {"name": "bad"}, "spec": {"containers": [
        container(resources={"requests": {"cpu": "lots"}})]}})
    assert status == 400 and body["reason"] == "BadRequest", body
    assert body["message"] == ('Pod in version "v1" cannot be handled as a Pod: quantities must match the regular '
                               "expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"), body
    status, body = sim.request(NS + "/pods", "POST", {"metadata": {"name": "bad"}, "spec": {"containers": [
        container(resources={"requests": {"memory": "192i"}})]}})
    assert status == 400 and body["message"] == (
        'Pod in version "v1" cannot be handled as a Pod: unable to parse quantity\'s suffix'), body


def qos(sim):
    cases = [("guaranteed", {"limits": {"cpu": "0.5", "memory": "1Gi"}}, "Guaranteed"),
             ("guaranteed2", {"limits": {"cpu": "500m", "memory": "1024Mi"},
                              "requests": {"cpu": "0.5", "memory": "1Gi"}}, "Guaranteed"),
             ("burstable", {"requests": {"cpu": "100m"}}, "Burstable"),
             ("burstable2", {"limits": {"cpu": "1"}}, "Burstable"),
             ("besteffort", {}, "BestEffort"),
             ("gpuonly", {"limits": {"nvidia.com/gpu": "1"}}, "BestEffort")]
    for name, res, want in cases:
        pod = create(sim, NS + "/pods", {"metadata": {"name": name}, "spec": {"containers": [container(
            resources=res)]}})
        assert pod["status"] == {"phase": "Pending", "qosClass": want}, (name, pod["status"])


def pod_defaults(sim):
    pod = create(sim, NS + "/pods", {"metadata": {"name": "d"}, "spec": {
        "containers": [container("a", "nginx", ports=[{"containerPort": 80}],
                                 env=[{"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}}],
                                 readinessProbe={"httpGet": {"path": "/", "port": 80}}),
                       container("b", "nginx:latest"), container("c", "nginx:1.25")],
        "volumes": [{"name": "cfg", "configMap": {"name": "x"}}, {"name": "s", "secret": {"secretName": "y"}}]}})
    s = pod["spec"]
    for k, v in {"restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
                 "securityContext": {}, "schedulerName": "default-scheduler", "enableServiceLinks": True,
                 "priority": 0, "preemptionPolicy": "PreemptLowerPriority", "serviceAccountName": "default",
                 "serviceAccount": "default"}.items():
        assert s.get(k) == v, (k, s.get(k))
    assert sorted((t["key"], t["effect"], t["operator"], t["tolerationSeconds"]) for t in s["tolerations"]) == [
        ("node.kubernetes.io/not-ready", "NoExecute", "Exists", 300),
        ("node.kubernetes.io/unreachable", "NoExecute", "Exists", 300)], s["tolerations"]
    cs = {c["name"]: c for c in s["containers"]}
    assert [cs[n]["imagePullPolicy"] for n in "abc"] == ["Always", "Always", "IfNotPresent"], cs
    for c in cs.values():
        assert c["terminationMessagePath"] == "/dev/termination-log" and c["terminationMessagePolicy"] == "File", c
        assert c["resources"] == {}, c
    a = cs["a"]
    assert a["ports"] == [{"containerPort": 80, "protocol": "TCP"}], a["ports"]
    assert a["env"][0]["valueFrom"]["fieldRef"] == {"apiVersion": "v1", "fieldPath": "spec.nodeName"}, a["env"]
    assert a["readinessProbe"] == {"httpGet": {"path": "/", "port": 80, "scheme": "HTTP"}, "timeoutSeconds": 1,
                                   "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3}, a
    vols = {v["name"]: v for v in s["volumes"]}
    assert vols["cfg"]["configMap"] == {"name": "x", "defaultMode": 420}, vols
    assert vols["s"]["secret"] == {"secretName": "y", "defaultMode": 420}, vols


def deployment_defaults(sim):
    dep = create(sim, APPS + "/deployments", {"metadata": {"name": "web"}, "spec": {
        "selector": {"matchLabels": {"app": "web"}},
        "template": {"metadata": {"labels": {"app": "web"}}, "spec": {"containers": [container()]}}}})
    s = dep["spec"]
    assert s["replicas"] == 1 and s["revisionHistoryLimit"] == 10 and s["progressDeadlineSeconds"] == 600, s
    assert s["strategy"] == {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%",
                                                                        "maxUnavailable": "25%"}}, s["strategy"]
    t = s["template"]
    assert t["metadata"] == {"creationTimestamp": None, "labels": {"app": "web"}}, t["metadata"]
    for k, v in {"restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
                 "securityContext": {}, "schedulerName": "default-scheduler"}.items():
        assert t["spec"].get(k) == v, (k, t["spec"].get(k))
    # Pod-only defaults stay out of templates.
    for k in ("enableServiceLinks", "priority", "tolerations", "serviceAccountName"):
        assert k not in t["spec"], k
    assert dep["metadata"]["generation"] == 1 and dep["status"] == {}, dep
    rs = create(sim, APPS + "/replicasets", {"metadata": {"name": "rs"}, "spec": {
        "selector": {"matchLabels": {"app": "rs"}},
        "template": {"metadata": {"labels": {"app": "rs"}}, "spec": {"containers": [container()]}}}})
    assert rs["spec"]["replicas"] == 1, rs["spec"]
    # Recreate strategy carries no rollingUpdate block.
    d2 = create(sim, APPS + "/deployments", {"metadata": {"name": "rec"}, "spec": {
        "strategy": {"type": "Recreate"}, "selector": {"matchLabels": {"app": "rec"}},
        "template": {"metadata": {"labels": {"app": "rec"}}, "spec": {"containers": [container()]}}}})
    assert d2["spec"]["strategy"] == {"type": "Recreate"}, d2["spec"]["strategy"]


def service_defaults(sim):
    svc = create(sim, NS + "/services", {"metadata": {"name": "web"}, "spec": {
        "selector": {"app": "web"}, "ports": [{"port": 80}]}})
    s = svc["spec"]
    assert re.fullmatch(r"10\.96\.\d+\.\d+", s["clusterIP"]) and s["clusterIPs"] == [s["clusterIP"]], s
    for k, v in {"type": "ClusterIP", "sessionAffinity": "None", "ipFamilies": ["IPv4"],
                 "ipFamilyPolicy": "SingleStack", "internalTrafficPolicy": "Cluster"}.items():
        assert s.get(k) == v, (k, s.get(k))
    assert s["ports"] == [{"port": 80, "protocol": "TCP", "targetPort": 80}], s["ports"]
    assert "externalTrafficPolicy" not in s and svc["status"] == {"loadBalancer": {}}, svc
    # The clusterIP survives an update that does not mention it.
    ip = s["clusterIP"]
    svc["spec"].pop("clusterIP")
    svc["spec"].pop("clusterIPs")
    svc["spec"]["ports"][0]["port"] = 81
    status, upd = sim.request(NS + "/services/web", "PUT", svc)
    assert status == 200 and upd["spec"]["clusterIP"] == ip and upd["spec"]["clusterIPs"] == [ip], upd

    np = create(sim, NS + "/services", {"metadata": {"name": "np"}, "spec": {
        "type": "NodePort", "selector": {"app": "web"}, "ports": [{"port": 80, "targetPort": "http"}]}})
    p = np["spec"]["ports"][0]
    assert 30000 <= p["nodePort"] <= 32767 and p["targetPort"] == "http", p
    assert np["spec"]["externalTrafficPolicy"] == "Cluster", np["spec"]
    headless = create(sim, NS + "/services", {"metadata": {"name": "hl"}, "spec": {
        "clusterIP": "None", "selector": {"app": "web"}, "ports": [{"port": 80}]}})
    assert headless["spec"]["clusterIP"] == "None", headless["spec"]


def other_defaults(sim):
    job = create(sim, "/apis/batch/v1/namespaces/default/jobs", {"metadata": {"name": "j"}, "spec": {
        "template": {"spec": {"restartPolicy": "Never", "containers": [container()]}}}})
    s = job["spec"]
    for k, v in {"completions": 1, "parallelism": 1, "backoffLimit": 6, "completionMode": "NonIndexed",
                 "suspend": False}.items():
        assert s.get(k) == v, (k, s.get(k))
    uid = job["metadata"]["uid"]
    assert s["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}, s["selector"]
    labels = s["template"]["metadata"]["labels"]
    assert labels["batch.kubernetes.io/job-name"] == "j" and labels["controller-uid"] == uid, labels
    status, body = sim.request("/apis/batch/v1/namespaces/default/jobs", "POST", {"metadata": {"name": "j2"},
                               "spec": {"template": {"spec": {"containers": [container()]}}}})
    assert status == 422 and "spec.template.spec.restartPolicy" in body["message"], body

    sec = create(sim, NS + "/secrets", {"metadata": {"name": "s"}, "stringData": {"k": "v"}})
    assert sec["type"] == "Opaque" and sec["data"] == {"k": "dg=="} and "stringData" not in sec, sec
    ns = create(sim, "/api/v1/namespaces", {"metadata": {"name": "fresh"}})
    assert ns["spec"] == {"finalizers": ["kubernetes"]} and ns["status"] == {"phase": "Active"}, ns
    assert ns["metadata"]["labels"] == {"kubernetes.io/metadata.name": "fresh"}, ns["metadata"]
    pvc = create(sim, NS + "/persistentvolumeclaims", {"metadata": {"name": "vol"}, "spec": {
        "accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}})
    assert pvc["spec"]["volumeMode"] == "Filesystem" and pvc["status"] == {"phase": "Pending"}, pvc

    gen = create(sim, NS + "/configmaps", {"metadata": {"generateName": "cfg-"}})
    assert re.fullmatch(r"cfg-[a-z0-9]{5}", gen["metadata"]["name"]), gen["metadata"]
    assert gen["metadata"]["generateName"] == "cfg-"
    md = gen["metadata"]
    assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", md["uid"]), md
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", md["creationTimestamp"]), md


def main():
    with KubeSim() as sim:
        quantities(sim)
        qos(sim)
        pod_defaults(sim)
        deployment_defaults(sim)
        service_defaults(sim)
        other_defaults(sim)
    print("server defaults: ok")


if __name__ == "__main__":
    main()
