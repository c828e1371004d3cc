"""/openapi/v2 and /openapi/v3 as a 1.32 API server publishes them, and what kubectl does
with them: `kubectl explain` of built-in kinds and of the project's CRD prints the real fields
and descriptions; the v3 discovery document points at per-group-version documents by hash,
with ETag, 304 and a redirect for a stale hash; CRD definitions appear and disappear with
the CRD."""
import json
import os
import urllib.error
import urllib.request

import yaml

from kubesim import KubeSim

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
INSTALL = os.path.join(ROOT, "deploy", "manifests", "install.yaml")


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


def get(sim, path, headers=None):
    """(status, headers, raw body) without following redirects."""
    opener = urllib.request.build_opener(NoRedirect)
    req = urllib.request.Request(sim.url + path, headers=headers or {})
    try:
        with opener.open(req, timeout=30) as resp:
            return resp.status, resp.headers, resp.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def explain(sim):
    out = sim.kubectl("explain", "deployment.spec.strategy").stdout
    for want in ("KIND:       Deployment", "FIELD: strategy <DeploymentStrategy>",
                 "The deployment strategy to use to replace existing pods with new ones.",
                 "rollingUpdate\t<RollingUpdateDeployment>", "type\t<string>",
                 'Type of deployment. Can be "Recreate" or "RollingUpdate".'):
        assert want in out, (want, out)
    out = sim.kubectl("explain", "pods.spec.containers.imagePullPolicy").stdout
    assert "FIELD: imagePullPolicy <string>" in out and "Image pull policy. One of Always, Never, IfNotPresent." in out, out


def explain_crd(sim):
    sim.kubectl("apply", "-f", INSTALL)
    crd = next(d for d in yaml.safe_load_all(open(INSTALL))
               if d and d["kind"] == "CustomResourceDefinition" and d["spec"]["names"]["kind"] == "DynamoGraphDeployment")
    version = next(v for v in crd["spec"]["versions"] if v["storage"])
    components = version["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["components"]
    sim.kubectl("api-resources")  # discovery after the CRD, as a user's next command would have it
    out = sim.kubectl("explain", "dgd.spec.components").stdout
    assert "KIND:       DynamoGraphDeployment" in out and "FIELD: components <[]Object>" in out, out
    assert components["description"] in out.replace("\n    ", " "), out
    for field in components["items"]["properties"]:
        assert "\n  %s\t<" % field in out, (field, out)
    return crd, version["name"]


def v2(sim, crd, version):
    group, kind = crd["spec"]["group"], crd["spec"]["names"]["kind"]
    name = ".".join(reversed(group.split("."))) + "." + version + "." + kind
    status, _, raw = get(sim, "/openapi/v2", {"Accept": "application/json"})
    assert status == 200
    doc = json.loads(raw)
    assert doc["swagger"] == "2.0" and "io.k8s.api.apps.v1.Deployment" in doc["definitions"]
    d = doc["definitions"][name]
    assert d["x-kubernetes-group-version-kind"] == [{"group": group, "kind": kind, "version": version}], d
    assert d["properties"]["metadata"] == {"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}
    assert set(crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]) <= set(d["properties"])
    path = "/apis/%s/%s/namespaces/{namespace}/%s/{name}" % (group, version, crd["spec"]["names"]["plural"])
    patch = doc["paths"][path]["patch"]
    assert patch["x-kubernetes-group-version-kind"] == {"group": group, "kind": kind, "version": version}
    assert "application/strategic-merge-patch+json" not in patch["consumes"], patch["consumes"]
    # kubectl asks for protobuf only: kube-sim has no protobuf encoder and answers an empty
    # (valid) protobuf document, which kubectl reads as "no schemas".
    status, headers, raw = get(sim, "/openapi/v2", {"Accept": "application/com.github.proto-openapi.spec.v2@v1.0+protobuf"})
    assert status == 200 and raw == b"" and headers["Content-Type"] == "application/octet-stream"
    return name


def v3(sim, crd, version, definition):
    group = crd["spec"]["group"]
    status, _, raw = get(sim, "/openapi/v3")
    paths = json.loads(raw)["paths"]
    for key in ("api/v1", "apis/apps/v1", "apis/%s/%s" % (group, version)):
        assert paths[key]["serverRelativeURL"].startswith("/openapi/v3/%s?hash=" % key), paths.get(key)
    url = paths["apis/apps/v1"]["serverRelativeURL"]
    digest = url.split("hash=")[1]
    assert len(digest) == 128 and digest == digest.upper(), digest   # SHA-512, upper-case hex
    status, headers, raw = get(sim, url)
    assert status == 200 and headers["Etag"] == '"%s"' % digest, (status, dict(headers))
    doc = json.loads(raw)
    assert doc["openapi"].startswith("3.") and "#/definitions/" not in raw.decode()
    patch = doc["paths"]["/apis/apps/v1/namespaces/{namespace}/deployments/{name}"]["patch"]
    assert "application/strategic-merge-patch+json" in patch["requestBody"]["content"], patch["requestBody"]
    assert any(p["name"] == "fieldValidation" and p["in"] == "query" for p in patch["parameters"]), patch["parameters"]
    spec = doc["components"]["schemas"]["io.k8s.api.apps.v1.DeploymentSpec"]["properties"]["strategy"]
    assert spec["allOf"] == [{"$ref": "#/components/schemas/io.k8s.api.apps.v1.DeploymentStrategy"}], spec
    # Conditional GET and a stale hash.
    status, _, raw = get(sim, url, {"If-None-Match": '"%s"' % digest})
    assert status == 304 and raw == b"", status
    status, headers, _ = get(sim, "/openapi/v3/apis/apps/v1?hash=0000")
    assert status == 301 and headers["Location"] == url, (status, dict(headers))
    status, _, _ = get(sim, "/openapi/v3/apis/no.such.group/v1")
    assert status == 404
    # The CRD's group-version document carries its kind.
    status, _, raw = get(sim, paths["apis/%s/%s" % (group, version)]["serverRelativeURL"])
    crd_doc = json.loads(raw)
    assert crd_doc["components"]["schemas"][definition]["x-kubernetes-group-version-kind"][0]["group"] == group
    # Deleting the CRD takes its kind out of the group-version document, which stays while
    # another CRD of the install (the scaling adapter's) serves the group-version...
    sim.kubectl("delete", "crd", crd["metadata"]["name"])
    paths = json.loads(get(sim, "/openapi/v3")[2])["paths"]
    if "apis/%s/%s" % (group, version) in paths:
        status, _, raw = get(sim, paths["apis/%s/%s" % (group, version)]["serverRelativeURL"])
        assert status == 200 and definition not in json.loads(raw)["components"]["schemas"]
    # ...and deleting every CRD of the group-version takes the document away.
    others = [d["metadata"]["name"] for d in yaml.safe_load_all(open(INSTALL))
              if d and d["kind"] == "CustomResourceDefinition" and d["spec"]["group"] == group
              and any(v["name"] == version for v in d["spec"]["versions"])
              and d["metadata"]["name"] != crd["metadata"]["name"]]
    if others:
        sim.kubectl("delete", "crd", *others)
    paths = json.loads(get(sim, "/openapi/v3")[2])["paths"]
    assert "apis/%s/%s" % (group, version) not in paths, sorted(paths)
    assert definition not in json.loads(get(sim, "/openapi/v2", {"Accept": "application/json"})[2])["definitions"]


def main():
    with KubeSim(tls=False) as sim:
        explain(sim)
        crd, version = explain_crd(sim)
        definition = v2(sim, crd, version)
        v3(sim, crd, version, definition)
    print("ok")


if __name__ == "__main__":
    main()
