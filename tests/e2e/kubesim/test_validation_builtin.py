"""Validation of built-in kinds as a Kubernetes 1.32 API server does it.

Each rule is broken once and the answer must be the real server's: 422 Invalid,
details.causes with the real reason, field path and message, and the top-level
message in field.ErrorList format (`Deployment.apps "x" is invalid: <one>` or
`... is invalid: [<a>, <b>]`); the valid counterpart is accepted. The expected texts
are the ones Kubernetes' validators produce (pkg/apis/*/validation,
apimachinery/pkg/api/validation, apimachinery/pkg/util/validation). Clients: raw HTTP,
the Python `kubernetes` client and kubectl v1.32.
"""
import copy
import json

from kubernetes import client
from kubernetes.client.rest import ApiException

from kubesim import KubeSim
from referee_lib import kubectl_fails, poll

NS = "/api/v1/namespaces/default"
DEPLOY = "/apis/apps/v1/namespaces/default/deployments"
JOBS = "/apis/batch/v1/namespaces/default/jobs"
MERGE = {"Content-Type": "application/merge-patch+json"}

SUBDOMAIN = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', "
             "and must start and end with an alphanumeric character (e.g. 'example.com', regex used for "
             "validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')")
DNS1035 = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an "
           "alphabetic character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', "
           "regex used for validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")
NAME_PART = ("name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with "
             "an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for "
             "validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')")
LABEL_VALUE = ("a valid label must be an empty string or consist of alphanumeric characters, '-', '_' or '.', "
               "and must start and end with an alphanumeric character (e.g. 'MyValue',  or 'my_value',  or "
               "'12345', regex used for validation is '(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?')")
ENV_NAME = "a valid environment variable name must consist only of printable ASCII characters other than '='"
QUANTITY = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"
POD_UPDATE = ("pod updates may not change fields other than `spec.containers[*].image`,"
              "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions "
              "to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was "
              "previously negative)")
PVC_SPEC = "spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims"


def expected_message(qualified_kind, name, causes):
    """The Status message NewInvalid builds: ToAggregate drops repeated lines; one error
    has no brackets."""
    lines = []
    for _, field, message in causes:
        line = "%s: %s" % (field, message)
        if line not in lines:
            lines.append(line)
    body = lines[0] if len(lines) == 1 else "[" + ", ".join(lines) + "]"
    return '%s "%s" is invalid: %s' % (qualified_kind, name, body)


def expect_invalid(status, body, qualified_kind, name, causes):
    """422 Invalid carrying exactly `causes` [(reason, field, message)] in order."""
    assert status == 422, (status, body)
    assert body["kind"] == "Status" and body["reason"] == "Invalid" and body["code"] == 422, body
    kind, _, group = qualified_kind.partition(".")
    details = body["details"]
    assert details["kind"] == kind and details.get("group", "") == group and details["name"] == name, details
    got = [(c["reason"], c["field"], c["message"]) for c in details["causes"]]
    assert got == list(causes), json.dumps({"got": got, "want": causes}, indent=1)
    assert body["message"] == expected_message(qualified_kind, name, causes), (body["message"],)


def post(sim, path, obj):
    return sim.request(path, "POST", obj)


def accepted(sim, path, obj):
    status, body = post(sim, path, obj)
    assert status == 201, (path, status, body)
    return body


def deployment(name, **spec_overrides):
    d = {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": name},
         "spec": {"selector": {"matchLabels": {"app": name}},
                  "template": {"metadata": {"labels": {"app": name}},
                               "spec": {"containers": [{"name": "main", "image": "busybox:1.36"}]}}}}
    d["spec"].update(spec_overrides)
    return d


def container_of(d):
    return d["spec"]["template"]["spec"]["containers"][0]


def pod_spec_of(d):
    return d["spec"]["template"]["spec"]


def refused_deployment(sim, d, causes):
    status, body = post(sim, DEPLOY, d)
    expect_invalid(status, body, "Deployment.apps", d["metadata"]["name"], causes)


def check_names_and_metadata(sim):
    status, body = post(sim, NS + "/configmaps", {"metadata": {"name": "Bad_Name"}})
    expect_invalid(status, body, "ConfigMap", "Bad_Name",
                   [("FieldValueInvalid", "metadata.name", 'Invalid value: "Bad_Name": ' + SUBDOMAIN)])
    accepted(sim, NS + "/configmaps", {"metadata": {"name": "good.name-1"}})

    long_name = "a" * 254
    status, body = post(sim, NS + "/configmaps", {"metadata": {"name": long_name}})
    expect_invalid(status, body, "ConfigMap", long_name,
                   [("FieldValueInvalid", "metadata.name",
                     'Invalid value: "%s": must be no more than 253 characters' % long_name)])
    accepted(sim, NS + "/configmaps", {"metadata": {"name": "a" * 253}})

    svc = {"metadata": {"name": "1svc"}, "spec": {"ports": [{"port": 80}]}}
    status, body = post(sim, NS + "/services", svc)
    expect_invalid(status, body, "Service", "1svc",
                   [("FieldValueInvalid", "metadata.name", 'Invalid value: "1svc": ' + DNS1035)])
    svc["metadata"]["name"] = "svc1"
    accepted(sim, NS + "/services", svc)

    status, body = post(sim, "/api/v1/namespaces", {"metadata": {"name": "a.b"}})
    expect_invalid(status, body, "Namespace", "a.b",
                   [("FieldValueInvalid", "metadata.name", 'Invalid value: "a.b": must not contain dots')])
    accepted(sim, "/api/v1/namespaces", {"metadata": {"name": "a-b"}})

    # generateName is checked as a prefix, and the generated name as a name.
    status, body = post(sim, NS + "/configmaps", {"metadata": {"generateName": "Bad_"}})
    assert status == 422, body
    causes = body["details"]["causes"]
    assert [(c["reason"], c["field"]) for c in causes] == [
        ("FieldValueInvalid", "metadata.generateName"), ("FieldValueInvalid", "metadata.name")], causes
    assert causes[0]["message"] == 'Invalid value: "Bad_": ' + SUBDOMAIN, causes
    generated = accepted(sim, NS + "/configmaps", {"metadata": {"generateName": "gen-"}})
    assert generated["metadata"]["name"].startswith("gen-"), generated

    status, body = post(sim, NS + "/configmaps", {"metadata": {"name": "lbl", "labels": {"a/b/c": "x"}}})
    expect_invalid(status, body, "ConfigMap", "lbl", [
        ("FieldValueInvalid", "metadata.labels",
         'Invalid value: "a/b/c": a qualified name must consist of alphanumeric characters, \'-\', \'_\' or \'.\', '
         "and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
         "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS "
         "subdomain prefix and '/' (e.g. 'example.com/MyName')")])
    status, body = post(sim, NS + "/configmaps", {"metadata": {"name": "lbl", "labels": {"app": "bad value"}}})
    expect_invalid(status, body, "ConfigMap", "lbl",
                   [("FieldValueInvalid", "metadata.labels", 'Invalid value: "bad value": ' + LABEL_VALUE)])
    accepted(sim, NS + "/configmaps", {"metadata": {"name": "lbl", "labels": {"example.com/app": "v_1.2-x"}}})

    owner = {"apiVersion": "v1", "kind": "ConfigMap", "name": "good.name-1", "uid": ""}
    status, body = post(sim, NS + "/configmaps", {"metadata": {"name": "owned", "ownerReferences": [owner]}})
    expect_invalid(status, body, "ConfigMap", "owned", [
        ("FieldValueInvalid", "metadata.ownerReferences.uid", 'Invalid value: "": must not be empty')])
    owner["uid"] = "3f1b5a5e-0000-4000-8000-000000000001"
    accepted(sim, NS + "/configmaps", {"metadata": {"name": "owned", "ownerReferences": [owner]}})

    status, body = post(sim, NS + "/configmaps", {"metadata": {"name": "ann", "annotations": {"bad key": "x"}}})
    expect_invalid(status, body, "ConfigMap", "ann",
                   [("FieldValueInvalid", "metadata.annotations", 'Invalid value: "bad key": ' + NAME_PART)])
    big = {"metadata": {"name": "ann", "annotations": {"k": "x" * (256 * 1024)}}}
    status, body = post(sim, NS + "/configmaps", big)
    expect_invalid(status, body, "ConfigMap", "ann",
                   [("FieldValueTooLong", "metadata.annotations", "Too long: must have at most 262144 bytes")])
    big["metadata"]["annotations"]["k"] = "x" * (256 * 1024 - 1)   # key + value = the limit exactly
    accepted(sim, NS + "/configmaps", big)


def check_deployment_rules(sim):
    d = deployment("empty-sel", selector={})
    refused_deployment(sim, d, [
        ("FieldValueInvalid", "spec.selector",
         "Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), "
         "MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: empty selector is invalid for deployment")])

    d = deployment("expr", selector={"matchExpressions": [{"key": "app", "operator": "In"}]})
    refused_deployment(sim, d, [
        ("FieldValueRequired", "spec.selector.matchExpressions[0].values",
         "Required value: must be specified when `operator` is 'In' or 'NotIn'"),
        ("FieldValueInvalid", "spec.selector",
         "Invalid value: v1.LabelSelector{MatchLabels:map[string]string(nil), MatchExpressions:"
         '[]v1.LabelSelectorRequirement{v1.LabelSelectorRequirement{Key:"app", Operator:"In", '
         "Values:[]string(nil)}}}: invalid label selector")])
    d["spec"]["selector"]["matchExpressions"][0]["values"] = ["expr"]
    accepted(sim, DEPLOY, d)

    d = deployment("mismatch", selector={"matchLabels": {"app": "other"}})
    refused_deployment(sim, d, [
        ("FieldValueInvalid", "spec.template.metadata.labels",
         'Invalid value: map[string]string{"app":"mismatch"}: `selector` does not match template `labels`')])

    # Several errors: the message lists them in brackets, in the validator's order.
    d = deployment("several")
    del d["spec"]["selector"]
    pod_spec_of(d)["containers"] = []
    refused_deployment(sim, d, [
        ("FieldValueRequired", "spec.selector", "Required value"),
        ("FieldValueInvalid", "spec.template.metadata.labels",
         'Invalid value: map[string]string{"app":"several"}: `selector` does not match template `labels`'),
        ("FieldValueRequired", "spec.template.spec.containers", "Required value")])

    d = deployment("restart")
    pod_spec_of(d)["restartPolicy"] = "Never"
    refused_deployment(sim, d, [("FieldValueNotSupported", "spec.template.spec.restartPolicy",
                                 'Unsupported value: "Never": supported values: "Always"')])

    d = deployment("surge", strategy={"type": "RollingUpdate", "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 0}})
    refused_deployment(sim, d, [
        ("FieldValueInvalid", "spec.strategy.rollingUpdate.maxUnavailable",
         'Invalid value: intstr.IntOrString{Type:0, IntVal:0, StrVal:""}: may not be 0 when `maxSurge` is 0')])
    accepted(sim, DEPLOY, deployment("surge", strategy={"type": "RollingUpdate",
                                                        "rollingUpdate": {"maxSurge": 0, "maxUnavailable": 1}}))

    d = deployment("dup-init")
    pod_spec_of(d)["initContainers"] = [{"name": "main", "image": "busybox:1.36"}]
    refused_deployment(sim, d, [("FieldValueDuplicate", "spec.template.spec.initContainers[0].name",
                                 'Duplicate value: "main"')])
    pod_spec_of(d)["initContainers"][0]["name"] = "init"
    accepted(sim, DEPLOY, d)

    d = deployment("dup-port")
    container_of(d)["ports"] = [{"name": "http", "containerPort": 80}, {"name": "http", "containerPort": 81}]
    refused_deployment(sim, d, [("FieldValueDuplicate", "spec.template.spec.containers[0].ports[1].name",
                                 'Duplicate value: "http"')])

    d = deployment("port-req")
    container_of(d)["ports"] = [{"name": "http", "protocol": "HTTP"}]
    refused_deployment(sim, d, [
        ("FieldValueRequired", "spec.template.spec.containers[0].ports[0].containerPort", "Required value"),
        ("FieldValueNotSupported", "spec.template.spec.containers[0].ports[0].protocol",
         'Unsupported value: "HTTP": supported values: "SCTP", "TCP", "UDP"')])

    d = deployment("dup-vol")
    pod_spec_of(d)["volumes"] = [{"name": "v", "emptyDir": {}}, {"name": "v", "emptyDir": {}}]
    refused_deployment(sim, d, [("FieldValueDuplicate", "spec.template.spec.volumes[1].name", 'Duplicate value: "v"')])

    d = deployment("mount")
    pod_spec_of(d)["volumes"] = [{"name": "data", "emptyDir": {}}]
    container_of(d)["volumeMounts"] = [{"name": "nope", "mountPath": "/data"}]
    refused_deployment(sim, d, [("FieldValueNotFound", "spec.template.spec.containers[0].volumeMounts[0].name",
                                 'Not found: "nope"')])
    container_of(d)["volumeMounts"][0]["name"] = "data"
    accepted(sim, DEPLOY, d)

    d = deployment("env")
    container_of(d)["env"] = [{"name": "A", "value": "x", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                              {"name": "B=C", "value": "y"}]
    container_of(d)["envFrom"] = [{"prefix": "P=", "configMapRef": {"name": "cm"}}]
    refused_deployment(sim, d, [
        ("FieldValueInvalid", "spec.template.spec.containers[0].env[0].valueFrom",
         'Invalid value: "": may not be specified when `value` is not empty'),
        ("FieldValueInvalid", "spec.template.spec.containers[0].env[1].name", 'Invalid value: "B=C": ' + ENV_NAME),
        ("FieldValueInvalid", "spec.template.spec.containers[0].envFrom[0].prefix", 'Invalid value: "P=": ' + ENV_NAME)])
    # 1.32 relaxes env names (RelaxedEnvironmentVariableValidation, beta): a leading digit,
    # dots and spaces are fine.
    container_of(d)["env"] = [{"name": "1st.var name", "value": "x"},
                              {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]
    container_of(d)["envFrom"] = [{"prefix": "1_", "configMapRef": {"name": "cm"}}]
    accepted(sim, DEPLOY, d)

    d = deployment("res")
    container_of(d)["resources"] = {"limits": {"cpu": "1"}, "requests": {"cpu": "2"}}
    refused_deployment(sim, d, [("FieldValueInvalid", "spec.template.spec.containers[0].resources.requests",
                                 'Invalid value: "2": must be less than or equal to cpu limit of 1')])
    container_of(d)["resources"]["requests"]["cpu"] = "500m"
    accepted(sim, DEPLOY, d)

    d = deployment("qty")
    container_of(d)["resources"] = {"limits": {"memory": "lots"}}
    status, body = post(sim, DEPLOY, d)
    assert status == 400 and body["reason"] == "BadRequest", body
    assert body["message"] == 'Deployment in version "v1" cannot be handled as a Deployment: ' + QUANTITY, body

    d = deployment("enums")
    del container_of(d)["image"]
    container_of(d)["imagePullPolicy"] = "Sometimes"
    container_of(d)["terminationMessagePolicy"] = "Bogus"
    pod_spec_of(d)["dnsPolicy"] = "Bogus"
    refused_deployment(sim, d, [
        ("FieldValueRequired", "spec.template.spec.containers[0].image", "Required value"),
        ("FieldValueNotSupported", "spec.template.spec.containers[0].terminationMessagePolicy",
         'Unsupported value: "Bogus": supported values: "File", "FallbackToLogsOnError"'),
        ("FieldValueNotSupported", "spec.template.spec.containers[0].imagePullPolicy",
         'Unsupported value: "Sometimes": supported values: "Always", "IfNotPresent", "Never"'),
        ("FieldValueNotSupported", "spec.template.spec.dnsPolicy",
         'Unsupported value: "Bogus": supported values: "ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"')])

    # The Python client sees the same Status.
    apps = client.AppsV1Api(sim.python_client())
    try:
        apps.create_namespaced_deployment("default", deployment("py", selector={"matchLabels": {"app": "nope"}}))
        raise AssertionError("the Python client created an invalid Deployment")
    except ApiException as e:
        expect_invalid(e.status, json.loads(e.body), "Deployment.apps", "py", [
            ("FieldValueInvalid", "spec.template.metadata.labels",
             'Invalid value: map[string]string{"app":"py"}: `selector` does not match template `labels`')])
    apps.create_namespaced_deployment("default", deployment("py"))


DEPLOY_YAML = """apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  selector:
    matchLabels: %s
  strategy: %s
  template:
    metadata:
      labels: {app: web, tier: front}
    spec:
      containers: [{name: main, image: "busybox:1.36"}]
"""


def check_deployment_updates(sim):
    # kubectl prints a single-object Invalid error as `The <Kind> "<name>" is invalid: ...`.
    sim.kubectl("apply", "-f", "-", input=DEPLOY_YAML % ("{app: web}", "{type: RollingUpdate}"))
    # The selector of an apps/v1 Deployment is immutable.
    kubectl_fails(sim, "apply", "-f", "-", input=DEPLOY_YAML % ("{app: web, tier: front}", "{type: RollingUpdate}"),
                  contains='The Deployment "web" is invalid: spec.selector: Invalid value: '
                           'v1.LabelSelector{MatchLabels:map[string]string{"app":"web", "tier":"front"}, '
                           'MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable')
    # Recreate beside a rollingUpdate block.
    kubectl_fails(sim, "apply", "-f", "-",
                  input=DEPLOY_YAML % ("{app: web}", "{type: Recreate, rollingUpdate: {maxSurge: 1}}"),
                  contains='The Deployment "web" is invalid: spec.strategy.rollingUpdate: Forbidden: '
                           "may not be specified when strategy `type` is 'Recreate'")
    status, body = sim.request(DEPLOY + "/web", "PATCH",
                               {"spec": {"strategy": {"type": "Recreate", "rollingUpdate": {"maxSurge": 1}}}},
                               headers=MERGE)
    expect_invalid(status, body, "Deployment.apps", "web", [
        ("FieldValueForbidden", "spec.strategy.rollingUpdate",
         "Forbidden: may not be specified when strategy `type` is 'Recreate'")])
    # The valid change: Recreate with the rollingUpdate block removed.
    status, body = sim.request(DEPLOY + "/web", "PATCH",
                               {"spec": {"strategy": {"type": "Recreate", "rollingUpdate": None}}}, headers=MERGE)
    assert status == 200 and body["spec"]["strategy"] == {"type": "Recreate"}, body
    # Server-side apply and /scale go through the same rules.
    status, body = sim.request(DEPLOY + "/web?fieldManager=t&force=true", "PATCH",
                               {"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "web"},
                                "spec": {"selector": {"matchLabels": {"app": "web", "tier": "front"}}}},
                               headers={"Content-Type": "application/apply-patch+yaml"})
    assert status == 422 and body["details"]["causes"][-1]["field"] == "spec.selector", body
    status, body = sim.request(DEPLOY + "/web/scale", "PATCH", {"spec": {"replicas": -1}}, headers=MERGE)
    expect_invalid(status, body, "Scale.autoscaling", "web", [
        ("FieldValueInvalid", "spec.replicas", "Invalid value: -1: must be greater than or equal to 0")])
    status, body = sim.request(DEPLOY + "/web/scale", "PATCH", {"spec": {"replicas": 3}}, headers=MERGE)
    assert status == 200 and body["spec"]["replicas"] == 3, body


def check_job_rules(sim):
    job = {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "j"},
           "spec": {"template": {"spec": {"restartPolicy": "Always",
                                          "containers": [{"name": "main", "image": "busybox:1.36"}]}}}}
    status, body = post(sim, JOBS, job)
    expect_invalid(status, body, "Job.batch", "j", [
        ("FieldValueNotSupported", "spec.template.spec.restartPolicy",
         'Unsupported value: "Always": supported values: "OnFailure", "Never"')])
    job["spec"]["template"]["spec"]["restartPolicy"] = "Never"
    created = accepted(sim, JOBS, job)

    # The pod template of a Job that is not suspended is immutable.
    status, body = sim.request(JOBS + "/j", "PATCH", {"spec": {"template": {"spec": {"containers": [
        {"name": "main", "image": "busybox:1.37"}]}}}}, headers=MERGE)
    assert status == 422, body
    causes = body["details"]["causes"]
    assert [(c["reason"], c["field"]) for c in causes] == [("FieldValueInvalid", "spec.template")], causes
    assert causes[0]["message"].startswith("Invalid value: ") and causes[0]["message"].endswith(": field is immutable")

    # So is the selector (here it also stops matching the template).
    selector = copy.deepcopy(created["spec"]["selector"])
    selector["matchLabels"]["extra"] = "x"
    status, body = sim.request(JOBS + "/j", "PATCH", {"spec": {"selector": selector}}, headers=MERGE)
    assert status == 422, body
    fields = [(c["reason"], c["field"]) for c in body["details"]["causes"]]
    assert fields == [("FieldValueInvalid", "spec.template.metadata.labels"),
                      ("FieldValueInvalid", "spec.selector")], fields
    uid = created["metadata"]["uid"]
    assert body["details"]["causes"][1]["message"] == (
        'Invalid value: v1.LabelSelector{MatchLabels:map[string]string{"batch.kubernetes.io/controller-uid":"%s", '
        '"extra":"x"}, MatchExpressions:[]v1.LabelSelectorRequirement(nil)}: field is immutable' % uid)

    # A suspended Job that never started may change its scheduling directives, not its containers.
    job2 = copy.deepcopy(job)
    job2["metadata"]["name"] = "suspended"
    job2["spec"]["suspend"] = True
    accepted(sim, JOBS, job2)
    status, body = sim.request(JOBS + "/suspended", "PATCH",
                               {"spec": {"template": {"spec": {"nodeSelector": {"pool": "a"}}}}}, headers=MERGE)
    assert status == 200 and body["spec"]["template"]["spec"]["nodeSelector"] == {"pool": "a"}, body
    status, body = sim.request(JOBS + "/suspended", "PATCH", {"spec": {"template": {"spec": {"containers": [
        {"name": "main", "image": "busybox:1.37"}]}}}}, headers=MERGE)
    assert status == 422 and body["details"]["causes"][0]["field"] == "spec.template", body


def check_service_rules(sim):
    status, body = post(sim, NS + "/services", {"metadata": {"name": "bad"},
                                                "spec": {"type": "Bogus", "ports": [{"name": "a"}]}})
    expect_invalid(status, body, "Service", "bad", [
        ("FieldValueInvalid", "spec.ports[0].port", "Invalid value: 0: must be between 1 and 65535, inclusive"),
        ("FieldValueNotSupported", "spec.type",
         'Unsupported value: "Bogus": supported values: "ClusterIP", "ExternalName", "LoadBalancer", "NodePort"')])
    svc = accepted(sim, NS + "/services", {"metadata": {"name": "ip"}, "spec": {"ports": [{"port": 80}]}})
    old_ip = svc["spec"]["clusterIP"]
    new_ip = "10.96.250.250" if old_ip != "10.96.250.250" else "10.96.250.251"
    status, body = sim.request(NS + "/services/ip", "PATCH", {"spec": {"clusterIP": new_ip}}, headers=MERGE)
    expect_invalid(status, body, "Service", "ip", [
        ("FieldValueInvalid", "spec.clusterIPs[0]", 'Invalid value: []string{"%s"}: may not change once set' % new_ip)])
    svc["spec"]["clusterIP"] = new_ip
    svc["spec"]["clusterIPs"] = [new_ip]
    status, body = sim.request(NS + "/services/ip", "PUT", svc)
    assert status == 422 and body["details"]["causes"][0]["field"] == "spec.clusterIPs[0]", body
    # Other fields stay mutable, including the type.
    status, body = sim.request(NS + "/services/ip", "PATCH", {"spec": {"type": "NodePort"}}, headers=MERGE)
    assert status == 200 and body["spec"]["clusterIP"] == old_ip, body
    # Leaving for ExternalName drops the cluster IPs nobody asked to keep (dropTypeDependentFields).
    status, body = sim.request(NS + "/services/ip", "PATCH",
                               {"spec": {"type": "ExternalName", "externalName": "db.example.com"}}, headers=MERGE)
    assert status == 200 and "clusterIP" not in body["spec"] and "clusterIPs" not in body["spec"], body
    status, body = post(sim, NS + "/services", {"metadata": {"name": "ext"}, "spec": {
        "type": "ExternalName", "externalName": "db.example.com", "clusterIPs": ["10.96.7.7"]}})
    expect_invalid(status, body, "Service", "ext", [
        ("FieldValueForbidden", "spec.clusterIPs", "Forbidden: may not be set for ExternalName services")])


def check_storage_and_config(sim):
    pvcs = NS + "/persistentvolumeclaims"
    status, body = post(sim, pvcs, {"metadata": {"name": "bad"}, "spec": {"accessModes": ["ReadWriteSometimes"]}})
    expect_invalid(status, body, "PersistentVolumeClaim", "bad", [
        ("FieldValueNotSupported", "spec.accessModes",
         'Unsupported value: "ReadWriteSometimes": supported values: "ReadOnlyMany", "ReadWriteMany", '
         '"ReadWriteOnce", "ReadWriteOncePod"'),
        ("FieldValueRequired", "spec.resources[storage]", "Required value")])

    # A claim kept pending may change nothing in its spec.
    pending = {"metadata": {"name": "pending", "annotations": {"sim.dgd.dev/bind": "false"}},
               "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1Gi"}}}}
    accepted(sim, pvcs, pending)
    status, body = sim.request(pvcs + "/pending", "PATCH",
                               {"spec": {"resources": {"requests": {"storage": "2Gi"}}}}, headers=MERGE)
    assert status == 422, body
    assert [(c["reason"], c["field"]) for c in body["details"]["causes"]] == [("FieldValueForbidden", "spec")], body
    assert body["details"]["causes"][0]["message"].startswith("Forbidden: " + PVC_SPEC + "\n"), body

    # A bound claim may grow, not shrink below its capacity, and keeps the rest of its spec.
    accepted(sim, pvcs, {"metadata": {"name": "data"},
                         "spec": {"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "2Gi"}}}})
    poll("the claim bound", lambda: sim.request(pvcs + "/data")[1].get("status", {}).get("phase") == "Bound")
    status, body = sim.request(pvcs + "/data", "PATCH",
                               {"spec": {"resources": {"requests": {"storage": "1Gi"}}}}, headers=MERGE)
    expect_invalid(status, body, "PersistentVolumeClaim", "data", [
        ("FieldValueForbidden", "spec.resources.requests.storage", "Forbidden: field can not be less than status.capacity")])
    status, body = sim.request(pvcs + "/data", "PATCH", {"spec": {"accessModes": ["ReadWriteMany"]}}, headers=MERGE)
    assert status == 422 and body["details"]["causes"][0]["field"] == "spec", body
    status, body = sim.request(pvcs + "/data", "PATCH",
                               {"spec": {"resources": {"requests": {"storage": "3Gi"}}}}, headers=MERGE)
    assert status == 200 and body["spec"]["resources"]["requests"]["storage"] == "3Gi", body

    # immutable: true freezes data, binaryData and the flag itself.
    sim.kubectl("apply", "-f", "-", input="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: frozen}\n"
                                          "immutable: true\ndata: {a: '1'}\n")
    kubectl_fails(sim, "apply", "-f", "-", input="apiVersion: v1\nkind: ConfigMap\nmetadata: {name: frozen}\n"
                                                 "immutable: true\ndata: {a: '2'}\n",
                  contains='The ConfigMap "frozen" is invalid: data: Forbidden: field is immutable when `immutable` is set')
    core = client.CoreV1Api(sim.python_client())
    cm = core.read_namespaced_config_map("frozen", "default")
    cm.immutable = False
    try:
        core.replace_namespaced_config_map("frozen", "default", cm)
        raise AssertionError("an immutable ConfigMap was made mutable")
    except ApiException as e:
        expect_invalid(e.status, json.loads(e.body), "ConfigMap", "frozen", [
            ("FieldValueForbidden", "immutable", "Forbidden: field is immutable when `immutable` is set")])
    cm = core.read_namespaced_config_map("frozen", "default")
    cm.metadata.labels = {"still": "mutable"}
    assert core.replace_namespaced_config_map("frozen", "default", cm).metadata.labels == {"still": "mutable"}

    status, body = post(sim, NS + "/secrets", {"metadata": {"name": "tls"}, "type": "kubernetes.io/tls",
                                               "data": {"tls.crt": "Y2VydA=="}})
    expect_invalid(status, body, "Secret", "tls", [("FieldValueRequired", "data[tls.key]", "Required value")])
    accepted(sim, NS + "/secrets", {"metadata": {"name": "tls"}, "type": "kubernetes.io/tls",
                                    "data": {"tls.crt": "Y2VydA==", "tls.key": "a2V5"}})
    status, body = sim.request(NS + "/secrets/tls", "PATCH", {"type": "Opaque"}, headers=MERGE)
    expect_invalid(status, body, "Secret", "tls",
                   [("FieldValueInvalid", "type", 'Invalid value: "Opaque": field is immutable')])

    secret = {"metadata": {"name": "s"}, "immutable": True, "data": {"k": "dg=="}}
    accepted(sim, NS + "/secrets", secret)
    status, body = sim.request(NS + "/secrets/s", "PATCH", {"data": {"k": "dw=="}}, headers=MERGE)
    expect_invalid(status, body, "Secret", "s",
                   [("FieldValueForbidden", "data", "Forbidden: field is immutable when `immutable` is set")])


def check_rbac_coordination_events_policy(sim):
    rbs = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/rolebindings"
    rb = {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": "RoleBinding", "metadata": {"name": "rb"},
          "roleRef": {"apiGroup": "rbac.authorization.k8s.io", "kind": "Role", "name": ""},
          "subjects": [{"kind": "Robot", "name": "r2"}]}
    status, body = post(sim, rbs, rb)
    expect_invalid(status, body, "RoleBinding.rbac.authorization.k8s.io", "rb", [
        ("FieldValueRequired", "roleRef.name", "Required value"),
        ("FieldValueNotSupported", "subjects[0].kind",
         'Unsupported value: "Robot": supported values: "ServiceAccount", "User", "Group"')])
    rb["roleRef"]["name"] = "reader"
    rb["subjects"] = [{"kind": "ServiceAccount", "name": "sa"}]
    accepted(sim, rbs, rb)
    status, body = sim.request(rbs + "/rb", "PATCH", {"roleRef": {"name": "writer"}}, headers=MERGE)
    expect_invalid(status, body, "RoleBinding.rbac.authorization.k8s.io", "rb", [
        ("FieldValueInvalid", "roleRef",
         'Invalid value: rbac.RoleRef{APIGroup:"rbac.authorization.k8s.io", Kind:"Role", Name:"writer"}: '
         "cannot change roleRef")])

    roles = "/apis/rbac.authorization.k8s.io/v1/namespaces/default/roles"
    status, body = post(sim, roles, {"metadata": {"name": "r"}, "rules": [{"apiGroups": [""], "resources": ["pods"]}]})
    expect_invalid(status, body, "Role.rbac.authorization.k8s.io", "r", [
        ("FieldValueRequired", "rules[0].verbs", "Required value: verbs must contain at least one value")])

    leases = "/apis/coordination.k8s.io/v1/namespaces/default/leases"
    status, body = post(sim, leases, {"metadata": {"name": "l"}, "spec": {"leaseDurationSeconds": 0}})
    expect_invalid(status, body, "Lease.coordination.k8s.io", "l", [
        ("FieldValueInvalid", "spec.leaseDurationSeconds", "Invalid value: 0: must be greater than 0")])
    accepted(sim, leases, {"metadata": {"name": "l"}, "spec": {"leaseDurationSeconds": 15, "holderIdentity": "me"}})

    events = "/apis/events.k8s.io/v1/namespaces/default/events"
    ev = {"metadata": {"name": "e"}, "eventTime": "2026-12-01T00:00:00.000000Z", "type": "Sideways",
          "regarding": {"kind": "Pod", "name": "p", "namespace": "default"}}
    status, body = post(sim, events, ev)
    expect_invalid(status, body, "Event.events.k8s.io", "e", [
        ("FieldValueRequired", "reportingController", "Required value"),
        ("FieldValueInvalid", "reportingController", 'Invalid value: "": name part must be non-empty'),
        ("FieldValueInvalid", "reportingController", 'Invalid value: "": ' + NAME_PART),
        ("FieldValueRequired", "reportingInstance", "Required value"),
        ("FieldValueRequired", "action", "Required value"),
        ("FieldValueRequired", "reason", "Required value"),
        ("FieldValueInvalid", "type", 'Invalid value: "": has invalid value: Sideways')])
    ev.update({"type": "Normal", "reportingController": "example.com/ctl", "reportingInstance": "i",
               "action": "Sync", "reason": "Synced", "note": "ok"})
    accepted(sim, events, ev)

    pdbs = "/apis/policy/v1/namespaces/default/poddisruptionbudgets"
    status, body = post(sim, pdbs, {"metadata": {"name": "p"},
                                    "spec": {"minAvailable": "150%", "selector": {"matchLabels": {"app": "x"}}}})
    expect_invalid(status, body, "PodDisruptionBudget.policy", "p", [
        ("FieldValueInvalid", "spec.minAvailable",
         'Invalid value: intstr.IntOrString{Type:1, IntVal:0, StrVal:"150%"}: must not be greater than 100%')])
    accepted(sim, pdbs, {"metadata": {"name": "p"}, "spec": {"minAvailable": 1, "selector": {"matchLabels": {"app": "x"}}}})


def check_pod_updates(sim):
    pod = {"metadata": {"name": "p"}, "spec": {"containers": [{"name": "main", "image": "busybox:1.36",
                                                               "command": ["sleep", "1"]}]}}
    accepted(sim, NS + "/pods", pod)
    status, body = sim.request(NS + "/pods/p", "PATCH", {"spec": {"containers": [
        {"name": "main", "image": "busybox:1.36", "command": ["sleep", "2"]}]}},
        headers={"Content-Type": "application/strategic-merge-patch+json"})
    assert status == 422, body
    causes = body["details"]["causes"]
    assert [(c["reason"], c["field"]) for c in causes] == [("FieldValueForbidden", "spec")], causes
    assert causes[0]["message"].startswith("Forbidden: " + POD_UPDATE + "\n"), causes
    status, body = sim.request(NS + "/pods/p", "PATCH", {"spec": {"containers": [
        {"name": "main", "image": "busybox:1.37"}]}}, headers={"Content-Type": "application/strategic-merge-patch+json"})
    assert status == 200 and body["spec"]["containers"][0]["image"] == "busybox:1.37", body


def main():
    # A simulated cluster binds claims (the volume controller's update is validated too).
    with KubeSim(extra_args=["--profile", "h200-1x"]) as sim:
        check_names_and_metadata(sim)
        check_deployment_rules(sim)
        check_deployment_updates(sim)
        check_job_rules(sim)
        check_service_rules(sim)
        check_storage_and_config(sim)
        check_rbac_coordination_events_policy(sim)
        check_pod_updates(sim)
        assert sim.proc.poll() is None
    print("validation of built-in kinds: ok")


if __name__ == "__main__":
    main()
