"""The Python `kubernetes` client's writes and reads against kube-sim: 409 on a stale
replace (typed and custom objects), patches of /status (typed client: strategic merge;
custom objects: merge patch), server-side apply through the dynamic client (create,
conflict 409 with FieldManagerConflict causes, force), pagination with `_continue`, and
label / field selectors."""
import json

from kubernetes import client, dynamic
from kubernetes.client.rest import ApiException

from kubesim import KubeSim
from referee_lib import DGD_CRD, poll

NS = "default"


def deployment(name, replicas=1):
    return client.V1Deployment(
        metadata=client.V1ObjectMeta(name=name),
        spec=client.V1DeploymentSpec(
            replicas=replicas,
            selector=client.V1LabelSelector(match_labels={"app": name}),
            template=client.V1PodTemplateSpec(
                metadata=client.V1ObjectMeta(labels={"app": name}),
                spec=client.V1PodSpec(containers=[client.V1Container(name="c", image="busybox:1.36")]))))


def expect_api_error(fn, status, reason):
    try:
        fn()
    except ApiException as e:
        assert e.status == status, (e.status, e.body)
        body = json.loads(e.body)
        assert body["kind"] == "Status" and body["reason"] == reason and body["code"] == status, body
        return body
    raise AssertionError("expected %d %s" % (status, reason))


def stale_replace(apps, custom):
    d = apps.create_namespaced_deployment(NS, deployment("stale", 1))
    fresh = apps.read_namespaced_deployment("stale", NS)
    fresh.spec.replicas = 2
    apps.replace_namespaced_deployment("stale", NS, fresh)
    d.spec.replicas = 3                                      # d carries the creation's version
    body = expect_api_error(lambda: apps.replace_namespaced_deployment("stale", NS, d), 409, "Conflict")
    assert body["message"] == ('Operation cannot be fulfilled on deployments.apps "stale": the object has been '
                               'modified; please apply your changes to the latest version and try again'), body
    assert body["details"] == {"name": "stale", "group": "apps", "kind": "deployments"}, body["details"]
    assert apps.read_namespaced_deployment("stale", NS).spec.replicas == 2

    g = custom.create_namespaced_custom_object("nvidia.com", "v1beta1", NS, "dynamographdeployments", {
        "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment", "metadata": {"name": "g"},
        "spec": {"backendFramework": "vllm"}})
    custom.patch_namespaced_custom_object("nvidia.com", "v1beta1", NS, "dynamographdeployments", "g",
                                          {"spec": {"backendFramework": "sglang"}})
    g["spec"]["backendFramework"] = "trtllm"
    body = expect_api_error(lambda: custom.replace_namespaced_custom_object(
        "nvidia.com", "v1beta1", NS, "dynamographdeployments", "g", g), 409, "Conflict")
    assert 'dynamographdeployments.nvidia.com "g"' in body["message"], body


def status_patches(apps, custom):
    before = apps.read_namespaced_deployment("stale", NS)
    out = apps.patch_namespaced_deployment_status("stale", NS, {
        "status": {"replicas": 2, "readyReplicas": 2, "observedGeneration": before.metadata.generation,
                   "conditions": [{"type": "Available", "status": "True", "reason": "MinimumReplicasAvailable",
                                   "message": "ok"}]},
        "spec": {"replicas": 7}})
    assert out.status.ready_replicas == 2 and out.status.conditions[0].type == "Available"
    assert out.spec.replicas == before.spec.replicas and out.metadata.generation == before.metadata.generation
    # A second status patch merges into the first (strategic merge: conditions by type).
    out = apps.patch_namespaced_deployment_status("stale", NS, {"status": {"conditions": [
        {"type": "Progressing", "status": "True", "reason": "NewReplicaSetAvailable", "message": "ok"}]}})
    assert sorted(c.type for c in out.status.conditions) == ["Available", "Progressing"], out.status.conditions

    out = custom.patch_namespaced_custom_object_status("nvidia.com", "v1beta1", NS, "dynamographdeployments", "g", {
        "status": {"conditions": [{"type": "Ready", "status": "True", "reason": "Up", "message": "ok",
                                   "lastTransitionTime": "2026-01-01T00:00:00Z"}]}})
    assert out["status"]["conditions"][0]["status"] == "True", out
    assert out["metadata"]["generation"] == 2                # create=1, the spec patch above=2
    got = custom.get_namespaced_custom_object_status("nvidia.com", "v1beta1", NS, "dynamographdeployments", "g")
    assert got["status"]["conditions"][0]["type"] == "Ready" and got["spec"]["backendFramework"] == "sglang", got


def server_side_apply(api_client):
    dyn = dynamic.DynamicClient(api_client)
    cms = dyn.resources.get(api_version="v1", kind="ConfigMap")
    manifest = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "ssa", "namespace": NS},
                "data": {"a": "1", "b": "2"}}

    def apply(body, **kw):
        # Client 22.x sends an apply-patch body only when it is already serialized (JSON is YAML).
        return dyn.server_side_apply(cms, body=json.dumps(body), name="ssa", namespace=NS, **kw).to_dict()

    out = apply(manifest, field_manager="py-one")
    assert out["data"] == {"a": "1", "b": "2"}
    mf = [(m["manager"], m["operation"]) for m in out["metadata"]["managedFields"]]
    assert mf == [("py-one", "Apply")], mf

    try:
        apply({**manifest, "data": {"a": "other"}}, field_manager="py-two")
        raise AssertionError("conflicting apply succeeded")
    except dynamic.exceptions.ConflictError as e:
        body = json.loads(e.body)
        assert body["reason"] == "Conflict" and body["code"] == 409, body
        causes = body["details"]["causes"]
        assert causes == [{"reason": "FieldManagerConflict", "message": 'conflict with "py-one"',
                           "field": ".data.a"}], causes
        assert body["message"].startswith("Apply failed with 1 conflict"), body["message"]

    out = apply({**manifest, "data": {"a": "other"}}, field_manager="py-two", force_conflicts=True)
    assert out["data"] == {"a": "other", "b": "2"}, out["data"]
    # py-one stops applying "b": nobody else owns it, so it goes.
    out = apply({**manifest, "data": {}}, field_manager="py-one")
    assert out["data"] == {"a": "other"}, out["data"]


def pagination_and_selectors(core):
    for i in range(7):
        core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(
            name="page-%d" % i, labels={"set": "page", "parity": "even" if i % 2 == 0 else "odd"})))
    seen, token, rvs, pages = [], None, set(), 0
    while True:
        kw = {"limit": 3, "label_selector": "set=page"}
        if token:
            kw["_continue"] = token
        page = core.list_namespaced_config_map(NS, **kw)
        pages += 1
        seen += [i.metadata.name for i in page.items]
        rvs.add(page.metadata.resource_version)
        if pages == 1:
            # A write between pages does not show up: every page is the first page's snapshot.
            core.create_namespaced_config_map(NS, client.V1ConfigMap(metadata=client.V1ObjectMeta(
                name="page-late", labels={"set": "page"})))
        token = page.metadata._continue
        if not token:
            break
        assert page.metadata.remaining_item_count is None or page.metadata.remaining_item_count > 0
    assert seen == ["page-%d" % i for i in range(7)] and pages == 3, (seen, pages)
    assert len(rvs) == 1, rvs

    def names(**kw):
        return sorted(i.metadata.name for i in core.list_namespaced_config_map(NS, **kw).items)

    assert names(label_selector="parity=odd") == ["page-1", "page-3", "page-5"]
    assert names(label_selector="set=page,parity!=odd") == ["page-0", "page-2", "page-4", "page-6", "page-late"]
    assert names(label_selector="parity in (odd),set") == ["page-1", "page-3", "page-5"]
    assert names(label_selector="set,!parity") == ["page-late"]
    assert names(field_selector="metadata.name=page-3") == ["page-3"]
    assert names(field_selector="metadata.name!=page-3", label_selector="parity=odd") == ["page-1", "page-5"]
    assert core.list_config_map_for_all_namespaces(field_selector="metadata.namespace=kube-system").items == []
    expect_api_error(lambda: core.list_namespaced_config_map(NS, label_selector="parity in (odd"), 400, "BadRequest")
    expect_api_error(lambda: core.list_namespaced_config_map(NS, field_selector="data.x=1"), 400, "BadRequest")


def main():
    with KubeSim() as sim:
        api_client = sim.python_client()
        sim.kubectl("apply", "-f", DGD_CRD)
        poll("the DGD kind to be served",
             lambda: sim.request("/apis/nvidia.com/v1beta1/namespaces/default/dynamographdeployments")[0] == 200)
        apps = client.AppsV1Api(api_client)
        custom = client.CustomObjectsApi(api_client)
        stale_replace(apps, custom)
        status_patches(apps, custom)
        server_side_apply(api_client)
        pagination_and_selectors(client.CoreV1Api(api_client))
        ua = {r["userAgent"].split("/")[0] for r in sim.requests() if r["verb"] in ("patch", "update", "create")}
        assert "OpenAPI-Generator" in ua, ua                  # the writes above were the Python client's
    print("python writes: ok")


if __name__ == "__main__":
    main()
