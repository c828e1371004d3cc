"""Discovery of a Kubernetes 1.32 server: kubectl api-resources, aggregated (v2, v2beta1)
and legacy discovery documents, the Python client's view of them.

The expected listing is `kubectl api-resources` of a default Kubernetes 1.32 cluster (GA
APIs only: alpha and beta APIs are off by default since 1.24), sorted by group then name as
kubectl prints it. Sources: the listings in kubernetes/website#35206 (core group, same short
names since 1.24) and kubernetes#128095 (admissionregistration.k8s.io/v1 policies, 1.30+),
the release-1.32 OpenAPI document (`api/openapi-spec/swagger.json`) for the group versions,
and ShortNames()/Categories() of k8s.io/kubernetes pkg/registry/*/*/storage (release-1.32).
kube-sim adds resource.k8s.io/v1beta1 (a cluster with DynamicResourceAllocation, as
NVIDIA's DRA driver needs) and ComputeDomain (that driver's CRD); they are checked apart.
"""
import json

from kubernetes import client

from kubesim import KubeSim

# NAME SHORTNAMES APIVERSION NAMESPACED KIND
KUBERNETES_1_32 = """
bindings - v1 true Binding
componentstatuses cs v1 false ComponentStatus
configmaps cm v1 true ConfigMap
endpoints ep v1 true Endpoints
events ev v1 true Event
limitranges limits v1 true LimitRange
namespaces ns v1 false Namespace
nodes no v1 false Node
persistentvolumeclaims pvc v1 true PersistentVolumeClaim
persistentvolumes pv v1 false PersistentVolume
pods po v1 true Pod
podtemplates - v1 true PodTemplate
replicationcontrollers rc v1 true ReplicationController
resourcequotas quota v1 true ResourceQuota
secrets - v1 true Secret
serviceaccounts sa v1 true ServiceAccount
services svc v1 true Service
mutatingwebhookconfigurations - admissionregistration.k8s.io/v1 false MutatingWebhookConfiguration
validatingadmissionpolicies - admissionregistration.k8s.io/v1 false ValidatingAdmissionPolicy
validatingadmissionpolicybindings - admissionregistration.k8s.io/v1 false ValidatingAdmissionPolicyBinding
validatingwebhookconfigurations - admissionregistration.k8s.io/v1 false ValidatingWebhookConfiguration
customresourcedefinitions crd,crds apiextensions.k8s.io/v1 false CustomResourceDefinition
apiservices - apiregistration.k8s.io/v1 false APIService
controllerrevisions - apps/v1 true ControllerRevision
daemonsets ds apps/v1 true DaemonSet
deployments deploy apps/v1 true Deployment
replicasets rs apps/v1 true ReplicaSet
statefulsets sts apps/v1 true StatefulSet
selfsubjectreviews - authentication.k8s.io/v1 false SelfSubjectReview
tokenreviews - authentication.k8s.io/v1 false TokenReview
localsubjectaccessreviews - authorization.k8s.io/v1 true LocalSubjectAccessReview
selfsubjectaccessreviews - authorization.k8s.io/v1 false SelfSubjectAccessReview
selfsubjectrulesreviews - authorization.k8s.io/v1 false SelfSubjectRulesReview
subjectaccessreviews - authorization.k8s.io/v1 false SubjectAccessReview
horizontalpodautoscalers hpa autoscaling/v2 true HorizontalPodAutoscaler
cronjobs cj batch/v1 true CronJob
jobs - batch/v1 true Job
certificatesigningrequests csr certificates.k8s.io/v1 false CertificateSigningRequest
leases - coordination.k8s.io/v1 true Lease
endpointslices - discovery.k8s.io/v1 true EndpointSlice
events ev events.k8s.io/v1 true Event
flowschemas - flowcontrol.apiserver.k8s.io/v1 false FlowSchema
prioritylevelconfigurations - flowcontrol.apiserver.k8s.io/v1 false PriorityLevelConfiguration
ingressclasses - networking.k8s.io/v1 false IngressClass
ingresses ing networking.k8s.io/v1 true Ingress
networkpolicies netpol networking.k8s.io/v1 true NetworkPolicy
runtimeclasses - node.k8s.io/v1 false RuntimeClass
poddisruptionbudgets pdb policy/v1 true PodDisruptionBudget
clusterrolebindings - rbac.authorization.k8s.io/v1 false ClusterRoleBinding
clusterroles - rbac.authorization.k8s.io/v1 false ClusterRole
rolebindings - rbac.authorization.k8s.io/v1 true RoleBinding
roles - rbac.authorization.k8s.io/v1 true Role
priorityclasses pc scheduling.k8s.io/v1 false PriorityClass
csidrivers - storage.k8s.io/v1 false CSIDriver
csinodes - storage.k8s.io/v1 false CSINode
csistoragecapacities - storage.k8s.io/v1 true CSIStorageCapacity
storageclasses sc storage.k8s.io/v1 false StorageClass
volumeattachments - storage.k8s.io/v1 false VolumeAttachment
"""

KUBE_SIM_EXTRAS = """
deviceclasses - resource.k8s.io/v1beta1 false DeviceClass
resourceclaims - resource.k8s.io/v1beta1 true ResourceClaim
resourceclaimtemplates - resource.k8s.io/v1beta1 true ResourceClaimTemplate
resourceslices - resource.k8s.io/v1beta1 false ResourceSlice
computedomains - resource.nvidia.com/v1beta1 true ComputeDomain
"""


def rows(text):
    return [tuple(line.split()) for line in text.strip().splitlines()]


def api_resources(sim):
    out = sim.kubectl("api-resources", "--no-headers").stdout
    got = []
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4:  # no short names
            f.insert(1, "-")
        got.append(tuple(f))
    return got


def aggregated(sim, path, version):
    accept = "application/json;g=apidiscovery.k8s.io;v=%s;as=APIGroupDiscoveryList,application/json" % version
    status, body = sim.request(path, headers={"Accept": accept})
    assert status == 200 and body["kind"] == "APIGroupDiscoveryList", (status, body)
    assert body["apiVersion"] == "apidiscovery.k8s.io/" + version, body["apiVersion"]
    return body


def aggregated_view(doc):
    """{(group, version, resource): facts} of an APIGroupDiscoveryList, as legacy discovery says them."""
    out = {}
    for g in doc["items"]:
        group = g["metadata"].get("name", "")
        for v in g["versions"]:
            for r in v["resources"]:
                kind = r["responseKind"]["kind"]
                subs = {}
                for s in r.get("subresources", []):
                    rk = s["responseKind"]
                    subs[s["subresource"]] = (rk.get("group") or group, rk.get("version") or v["version"],
                                              rk["kind"], tuple(s["verbs"]))
                out[(group, v["version"], r["resource"])] = (
                    r["scope"] == "Namespaced", kind, tuple(r["verbs"]), tuple(r.get("shortNames", [])),
                    tuple(r.get("categories", [])), r.get("singularResource"), subs)
    return out


def legacy_view(sim):
    out = {}
    status, core = sim.request("/api")
    assert status == 200 and core["kind"] == "APIVersions", core
    gvs = [("", v) for v in core["versions"]]
    status, groups = sim.request("/apis")
    assert status == 200 and groups["kind"] == "APIGroupList", groups
    for g in groups["groups"]:
        gvs += [(g["name"], v["version"]) for v in g["versions"]]
    for group, version in gvs:
        status, lst = sim.request(("/apis/%s/%s" % (group, version)) if group else "/api/" + version)
        assert status == 200 and lst["kind"] == "APIResourceList", (group, version, lst)
        top = {}
        for r in lst["resources"]:
            if "/" in r["name"]:
                continue
            top[r["name"]] = [r["namespaced"], r["kind"], tuple(r["verbs"]), tuple(r.get("shortNames", [])),
                              tuple(r.get("categories", [])), r["singularName"], {}]
        for r in lst["resources"]:
            if "/" not in r["name"]:
                continue
            parent, sub = r["name"].split("/", 1)
            assert r["namespaced"] == top[parent][0], r
            top[parent][6][sub] = (r.get("group", group), r.get("version", version), r["kind"], tuple(r["verbs"]))
        for name, facts in top.items():
            out[(group, version, name)] = tuple(facts)
    return out


def main():
    with KubeSim() as sim:
        # 1. kubectl api-resources lists what a 1.32 server serves, with short names and scope.
        got = api_resources(sim)
        extras = set(rows(KUBE_SIM_EXTRAS))
        assert extras <= set(got), sorted(extras - set(got))
        missing = [r for r in rows(KUBERNETES_1_32) if r not in got]
        unexpected = [r for r in got if r not in set(rows(KUBERNETES_1_32)) | extras]
        assert not missing and not unexpected, ("missing", missing, "unexpected", unexpected)
        assert len(got) == len(set(got)), "a resource listed twice"

        # Short names and categories resolve through discovery.
        for short in ("sts", "ds", "hpa", "ing", "netpol", "pc", "sc", "pv", "cj", "quota", "limits", "ep"):
            sim.kubectl("get", short, "-A")
        sim.kubectl("get", "endpointslices.discovery.k8s.io", "-A")
        all_kinds = sim.kubectl("api-resources", "--categories=all", "-o", "name").stdout.split()
        assert sorted(all_kinds) == sorted([
            "pods", "replicationcontrollers", "services", "daemonsets.apps", "deployments.apps", "replicasets.apps",
            "statefulsets.apps", "horizontalpodautoscalers.autoscaling", "cronjobs.batch", "jobs.batch"]), all_kinds

        # 2. Aggregated v2 and v2beta1 and the legacy documents say the same.
        legacy = legacy_view(sim)
        for version in ("v2", "v2beta1"):
            agg = {}
            agg.update(aggregated_view(aggregated(sim, "/api", version)))
            agg.update(aggregated_view(aggregated(sim, "/apis", version)))
            assert agg.keys() == legacy.keys(), sorted(set(agg) ^ set(legacy))
            for key in agg:
                assert agg[key] == legacy[key], (version, key, agg[key], legacy[key])

        # Subresources and verbs from the OpenAPI document.
        pods = legacy[("", "v1", "pods")]
        assert pods[2] == ("create", "delete", "deletecollection", "get", "list", "patch", "update", "watch")
        assert pods[6]["eviction"] == ("policy", "v1", "Eviction", ("create",)), pods[6]
        assert pods[6]["exec"] == ("", "v1", "PodExecOptions", ("create", "get")), pods[6]
        assert pods[6]["log"] == ("", "v1", "Pod", ("get",)), pods[6]
        assert set(pods[6]) == {"attach", "binding", "ephemeralcontainers", "eviction", "exec", "log", "portforward",
                                "proxy", "resize", "status"}, sorted(pods[6])
        assert legacy[("", "v1", "namespaces")][2] == ("create", "delete", "get", "list", "patch", "update", "watch")
        assert legacy[("", "v1", "serviceaccounts")][6]["token"] == ("authentication.k8s.io", "v1", "TokenRequest",
                                                                     ("create",))
        assert legacy[("apps", "v1", "statefulsets")][6]["scale"] == ("autoscaling", "v1", "Scale",
                                                                      ("get", "patch", "update"))
        assert legacy[("authorization.k8s.io", "v1", "subjectaccessreviews")][2] == ("create",)
        assert legacy[("autoscaling", "v1", "horizontalpodautoscalers")][1] == "HorizontalPodAutoscaler"

        # Built-in kinds leave the response kind's group and version to the enclosing group
        # version (ConvertGroupVersionIntoToDiscovery), except a subresource answering with another.
        apps = [g for g in aggregated(sim, "/apis", "v2")["items"] if g["metadata"]["name"] == "apps"][0]
        deploy = [r for r in apps["versions"][0]["resources"] if r["resource"] == "deployments"][0]
        assert deploy["responseKind"] == {"group": "", "version": "", "kind": "Deployment"}, deploy
        scale = [s for s in deploy["subresources"] if s["subresource"] == "scale"][0]
        assert scale["responseKind"] == {"group": "autoscaling", "version": "v1", "kind": "Scale"}, scale

        # Preferred versions, and storageVersionHash as a 1.32 server computes it
        # (base64(sha256("group/version/Kind")[:8]); values as real servers report them).
        status, autoscaling = sim.request("/apis/autoscaling")
        assert autoscaling["preferredVersion"]["version"] == "v2", autoscaling
        assert [v["version"] for v in autoscaling["versions"]] == ["v2", "v1"], autoscaling
        hashes = {}
        for gv in ("/api/v1", "/apis/apps/v1", "/apis/autoscaling/v1", "/apis/autoscaling/v2"):
            for r in sim.request(gv)[1]["resources"]:
                hashes[(gv, r["name"])] = r.get("storageVersionHash")
        assert hashes[("/api/v1", "pods")] == "xPOwRZ+Yhw8=", hashes[("/api/v1", "pods")]
        assert hashes[("/api/v1", "configmaps")] == "qFsyl6wFWjQ=", hashes[("/api/v1", "configmaps")]
        assert hashes[("/apis/apps/v1", "deployments")] == "8aSe+NMegvE=", hashes[("/apis/apps/v1", "deployments")]
        # Both HPA versions are one storage (autoscaling/v2): one hash.
        assert hashes[("/apis/autoscaling/v1", "horizontalpodautoscalers")] == \
            hashes[("/apis/autoscaling/v2", "horizontalpodautoscalers")], hashes
        assert hashes[("/api/v1", "pods/status")] is None

        # 3. The Python client reads the same documents.
        api = sim.python_client()
        groups = {g.name: g for g in client.ApisApi(api).get_api_versions().groups}
        for g in ("apps", "autoscaling", "networking.k8s.io", "scheduling.k8s.io", "storage.k8s.io",
                  "discovery.k8s.io", "authorization.k8s.io", "admissionregistration.k8s.io", "policy"):
            assert g in groups, (g, sorted(groups))
        assert "v1beta1" not in [v.version for v in groups["admissionregistration.k8s.io"].versions]
        core = client.CoreV1Api(api).get_api_resources()
        names = {r.name: r for r in core.resources}
        assert names["persistentvolumes"].short_names == ["pv"] and not names["persistentvolumes"].namespaced
        nets = client.NetworkingV1Api(api).get_api_resources()
        assert {r.name for r in nets.resources} == {"ingressclasses", "ingresses", "ingresses/status", "networkpolicies"}

        # 4. A verb the resource does not have is 405, as a server without that route answers.
        status, body = sim.request("/api/v1/namespaces", "DELETE")
        assert status == 405 and body.get("reason") == "MethodNotAllowed", (status, body)
        status, body = sim.request("/apis/authorization.k8s.io/v1/subjectaccessreviews")
        assert status == 405 and body.get("reason") == "MethodNotAllowed", (status, body)
    print("ok")


if __name__ == "__main__":
    main()
