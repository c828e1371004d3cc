"""Access reviews and impersonation as a Kubernetes 1.32 server answers them from RBAC:
SelfSubjectAccessReview, SubjectAccessReview, LocalSubjectAccessReview and
SelfSubjectRulesReview (authorization.k8s.io/v1, create only, never stored) with the RBAC
authorizer's reasons, and the Impersonate-User / Impersonate-Group headers (`kubectl --as`)
allowed by the `impersonate` verb, refused with the apiserver's 403.

kube-sim runs with --authorization-mode=RBAC over HTTPS: the admin certificate is
system:masters (always allowed, as by the real server's privileged-group authorizer), a
ServiceAccount acts through a TokenRequest token."""
import base64
import json
import ssl
import urllib.error
import urllib.request

from kubernetes import client
from kubernetes.client.rest import ApiException

from kubesim import KubeSim
from referee_lib import expect_status

SA = "system:serviceaccount:team:builder"
RBAC = """
apiVersion: v1
kind: Namespace
metadata: {name: team}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: builder, namespace: team}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: deployer, namespace: team}
rules:
- {apiGroups: [apps], resources: [deployments], verbs: [get, list, create]}
- {apiGroups: [apps], resources: [deployments/scale], verbs: [update]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: builder-deploys, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: deployer}
subjects: [{kind: ServiceAccount, name: builder}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: node-reader}
rules:
- {apiGroups: [""], resources: [nodes], verbs: [get, list, watch]}
- {nonResourceURLs: ["/metrics"], verbs: [get]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: auditors-read-nodes}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: node-reader}
subjects: [{kind: Group, name: auditors, apiGroup: rbac.authorization.k8s.io}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: impersonate-builder}
rules:
- {apiGroups: [""], resources: [serviceaccounts], verbs: [impersonate], resourceNames: [builder]}
- {apiGroups: [""], resources: [groups], verbs: [impersonate], resourceNames: [auditors]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: alice-impersonates}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: impersonate-builder}
subjects: [{kind: User, name: alice, apiGroup: rbac.authorization.k8s.io}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: dangling, namespace: team}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: missing}
subjects: [{kind: User, name: bob, apiGroup: rbac.authorization.k8s.io}]
"""

AUTHZ = "/apis/authorization.k8s.io/v1"


def sar(user=None, groups=None, **attrs):
    spec = {"resourceAttributes": attrs} if "path" not in attrs else {"nonResourceAttributes": attrs}
    if user:
        spec["user"] = user
    if groups:
        spec["groups"] = groups
    return {"apiVersion": "authorization.k8s.io/v1", "kind": "SubjectAccessReview", "spec": spec}


def call(sim, path, method="GET", body=None, headers=None):
    """HTTP to kube-sim; with an Authorization header, over TLS without the admin's client
    certificate (a certificate wins over a bearer token, as on a real server)."""
    headers = dict(headers or {})
    if "Authorization" not in headers:
        return sim.request(path, method, body, headers=headers)
    ca = base64.b64decode(sim._config["clusters"][0]["cluster"]["certificate-authority-data"]).decode()
    data = None
    if body is not None:
        data = json.dumps(body).encode()
        headers["Content-Type"] = "application/json"
    req = urllib.request.Request(sim.url + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30, context=ssl.create_default_context(cadata=ca)) as resp:
            status, raw = resp.status, resp.read()
    except urllib.error.HTTPError as e:
        status, raw = e.code, e.read()
    return status, json.loads(raw) if raw else None


def review(sim, path, body, headers=None):
    status, out = call(sim, path, "POST", body, headers=headers)
    assert status == 201, (path, status, out)
    assert out["kind"] == body["kind"] and out["metadata"] == {"creationTimestamp": None}, out
    return out["status"]


def main():
    with KubeSim(tls=True, extra_args=["--authorization-mode", "RBAC", "--token", "alice-token=alice",
                                       "--token", "carol-token=carol"]) as sim:
        sim.kubectl("apply", "-f", "-", input=RBAC)
        token = sim.admin("serviceaccount-tokens", "POST", {"namespace": "team", "name": "builder"})["token"]
        as_sa = {"Authorization": "Bearer " + token}

        # SubjectAccessReview (admin asks about others): allowed with the binding named, denied without reason.
        st = review(sim, AUTHZ + "/subjectaccessreviews",
                    sar(SA, ["system:serviceaccounts"], namespace="team", verb="create", group="apps",
                        resource="deployments"))
        assert st == {"allowed": True, "reason": 'RBAC: allowed by RoleBinding "builder-deploys/team" of Role '
                                                 '"deployer" to ServiceAccount "builder/team"'}, st
        st = review(sim, AUTHZ + "/subjectaccessreviews",
                    sar(SA, namespace="team", verb="delete", group="apps", resource="deployments", name="web"))
        assert st == {"allowed": False}, st
        st = review(sim, AUTHZ + "/subjectaccessreviews",
                    sar(SA, namespace="other", verb="get", group="apps", resource="deployments"))
        assert st == {"allowed": False}, st
        st = review(sim, AUTHZ + "/subjectaccessreviews",
                    sar(SA, namespace="team", verb="update", group="apps", resource="deployments", subresource="scale"))
        assert st["allowed"] is True, st
        st = review(sim, AUTHZ + "/subjectaccessreviews", sar("dave", ["auditors"], verb="list", resource="nodes"))
        assert st == {"allowed": True, "reason": 'RBAC: allowed by ClusterRoleBinding "auditors-read-nodes" of '
                                                 'ClusterRole "node-reader" to Group "auditors"'}, st
        st = review(sim, AUTHZ + "/subjectaccessreviews", sar("dave", ["auditors"], path="/metrics", verb="get"))
        assert st["allowed"] is True, st
        st = review(sim, AUTHZ + "/subjectaccessreviews", sar("dave", path="/metrics", verb="get"))
        assert st == {"allowed": False}, st
        # A binding to a missing role is the reason of a refusal.
        st = review(sim, AUTHZ + "/subjectaccessreviews", sar("bob", namespace="team", verb="get", resource="pods"))
        assert st == {"allowed": False, "reason": 'RBAC: role.rbac.authorization.k8s.io "missing" not found'}, st
        # system:masters is allowed by the privileged-group authorizer, which gives no reason.
        st = review(sim, AUTHZ + "/subjectaccessreviews", sar("root", ["system:masters"], verb="delete", resource="nodes"))
        assert st == {"allowed": True}, st
        # Validation, as ValidateSubjectAccessReviewSpec words it.
        status, out = sim.request(AUTHZ + "/subjectaccessreviews", "POST",
                                  sar(namespace="team", verb="get", resource="pods"))
        expect_status(status, out, 422, "Invalid",
                      'SubjectAccessReview.authorization.k8s.io "" is invalid: spec.user: Invalid value: "": '
                      'at least one of user or group must be specified')
        status, out = sim.request(AUTHZ + "/subjectaccessreviews", "POST",
                                  {"kind": "SubjectAccessReview", "apiVersion": "authorization.k8s.io/v1",
                                   "spec": {"user": "x"}})
        expect_status(status, out, 422, "Invalid", "spec.resourceAttributes: Invalid value: \"null\": exactly one of "
                                                   "nonResourceAttributes or resourceAttributes must be specified")
        # Never stored: no list, no get.
        status, out = sim.request(AUTHZ + "/subjectaccessreviews")
        expect_status(status, out, 405, "MethodNotAllowed")

        # SelfSubjectAccessReview by the ServiceAccount itself (allowed to it by system:basic-user).
        ssar = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                "spec": {"resourceAttributes": {"namespace": "team", "verb": "list", "group": "apps",
                                                "resource": "deployments"}}}
        st = review(sim, AUTHZ + "/selfsubjectaccessreviews", ssar, headers=as_sa)
        assert st["allowed"] is True and "RoleBinding \"builder-deploys/team\"" in st["reason"], st
        ssar["spec"]["resourceAttributes"]["verb"] = "delete"
        assert review(sim, AUTHZ + "/selfsubjectaccessreviews", ssar, headers=as_sa) == {"allowed": False}
        # The ServiceAccount may not ask about others.
        status, out = call(sim, AUTHZ + "/subjectaccessreviews", "POST",
                          sar("x", verb="get", resource="pods"), headers=as_sa)
        expect_status(status, out, 403, "Forbidden",
                      'subjectaccessreviews.authorization.k8s.io is forbidden: User "%s" cannot create resource '
                      '"subjectaccessreviews" in API group "authorization.k8s.io" at the cluster scope' % SA)

        # LocalSubjectAccessReview: the namespace of the URL is the question's.
        lsar = sar(SA, namespace="team", verb="get", group="apps", resource="deployments")
        lsar["kind"] = "LocalSubjectAccessReview"
        status, out = sim.request(AUTHZ + "/namespaces/team/localsubjectaccessreviews", "POST", lsar)
        assert status == 201 and out["status"]["allowed"] is True and out["metadata"]["namespace"] == "team", out
        status, out = sim.request(AUTHZ + "/namespaces/other/localsubjectaccessreviews", "POST", lsar)
        expect_status(status, out, 400, "BadRequest", "spec.resourceAttributes.namespace must match namespace: other")

        # SelfSubjectRulesReview: the rules RBAC gives in a namespace (kubectl auth can-i --list).
        ssrr = {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectRulesReview", "spec": {"namespace": "team"}}
        st = review(sim, AUTHZ + "/selfsubjectrulesreviews", ssrr, headers=as_sa)
        assert {"verbs": ["get", "list", "create"], "apiGroups": ["apps"], "resources": ["deployments"]} \
            in st["resourceRules"], st
        assert {"verbs": ["update"], "apiGroups": ["apps"], "resources": ["deployments/scale"]} in st["resourceRules"], st
        assert any("/api" in r["nonResourceURLs"] for r in st["nonResourceRules"]), st  # system:discovery
        assert st["incomplete"] is False, st
        st = review(sim, AUTHZ + "/selfsubjectrulesreviews", dict(ssrr, spec={"namespace": "default"}), headers=as_sa)
        assert not any("deployments" in r["resources"] for r in st["resourceRules"]), st
        status, out = call(sim, AUTHZ + "/selfsubjectrulesreviews", "POST", dict(ssrr, spec={}), headers=as_sa)
        expect_status(status, out, 400, "BadRequest", "no namespace on request")

        # The Python client's typed calls.
        api = client.AuthorizationV1Api(sim.python_client())
        out = api.create_subject_access_review(client.V1SubjectAccessReview(spec=client.V1SubjectAccessReviewSpec(
            user=SA, resource_attributes=client.V1ResourceAttributes(
                namespace="team", verb="create", group="apps", resource="deployments"))))
        assert out.status.allowed and "builder-deploys" in out.status.reason, out.status
        out = api.create_self_subject_access_review(client.V1SelfSubjectAccessReview(
            spec=client.V1SelfSubjectAccessReviewSpec(resource_attributes=client.V1ResourceAttributes(
                verb="delete", resource="nodes"))))
        assert out.status.allowed is True, out.status  # the admin certificate

        # Impersonation: the admin may; alice only as the ServiceAccount and group she is given.
        st = review(sim, AUTHZ + "/selfsubjectaccessreviews",
                    {"apiVersion": "authorization.k8s.io/v1", "kind": "SelfSubjectAccessReview",
                     "spec": {"resourceAttributes": {"namespace": "team", "verb": "create", "group": "apps",
                                                     "resource": "deployments"}}},
                    headers={"Impersonate-User": SA})
        assert st["allowed"] is True, st
        status, who = call(sim, "/apis/authentication.k8s.io/v1/selfsubjectreviews", "POST",
                          {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"},
                          headers={"Authorization": "Bearer alice-token", "Impersonate-User": SA})
        assert status == 201, who
        assert who["status"]["userInfo"] == {"username": SA, "groups": [
            "system:serviceaccounts", "system:serviceaccounts:team", "system:authenticated"]}, who
        status, out = call(sim, "/apis/apps/v1/namespaces/team/deployments", headers={
            "Authorization": "Bearer alice-token", "Impersonate-User": SA})
        assert status == 200 and out["kind"] == "DeploymentList", out
        status, out = call(sim, "/api/v1/nodes", headers={
            "Authorization": "Bearer alice-token", "Impersonate-User": SA, "Impersonate-Group": "auditors"})
        assert status == 200 and out["kind"] == "NodeList", out
        status, out = call(sim, "/api/v1/nodes", headers={
            "Authorization": "Bearer carol-token", "Impersonate-User": SA})
        expect_status(status, out, 403, "Forbidden",
                      'serviceaccounts "builder" is forbidden: User "carol" cannot impersonate resource '
                      '"serviceaccounts" in API group "" in the namespace "team"')
        status, out = call(sim, "/api/v1/nodes", headers={
            "Authorization": "Bearer alice-token", "Impersonate-User": "root"})
        expect_status(status, out, 403, "Forbidden",
                      'users "root" is forbidden: User "alice" cannot impersonate resource "users" in API group "" '
                      'at the cluster scope')
        status, out = call(sim, "/api/v1/nodes", headers={
            "Authorization": "Bearer alice-token", "Impersonate-User": SA, "Impersonate-Group": "system:masters"})
        expect_status(status, out, 403, "Forbidden",
                      'groups "system:masters" is forbidden: User "alice" cannot impersonate resource "groups"')

        # kubectl: --as and auth can-i (a SelfSubjectAccessReview as the impersonated user).
        # kubectl sends the review as protobuf (protobuf/protobuf_body.h).
        proc = sim.kubectl("auth", "can-i", "create", "deployments", "-n", "team", "--as", SA, check=False)
        assert proc.returncode == 0 and proc.stdout.strip() == "yes", (proc.stdout, proc.stderr)
        proc = sim.kubectl("auth", "can-i", "delete", "deployments", "-n", "team", "--as", SA, check=False)
        assert proc.returncode == 1 and proc.stdout.strip() == "no", (proc.stdout, proc.stderr)
        out = sim.kubectl("auth", "can-i", "--list", "-n", "team", "--as", SA).stdout
        assert "deployments.apps" in out, out
        out = sim.kubectl("get", "deployments", "-n", "team", "--as", SA, check=False)
        assert out.returncode == 0, out.stderr
        out = sim.kubectl("get", "secrets", "-n", "team", "--as", SA, check=False)
        assert out.returncode != 0 and 'cannot list resource "secrets"' in out.stderr, out.stderr
        try:
            client.CoreV1Api(sim.python_client()).list_node()
        except ApiException as e:  # the admin is never refused
            raise AssertionError(e)
    print("ok")


if __name__ == "__main__":
    main()
