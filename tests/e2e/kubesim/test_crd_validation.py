"""Custom resources validated by their CRD as a Kubernetes 1.32 API server does: the
structural schema (kube-openapi's messages, 422 with causes), the x-kubernetes-validations
CEL rules (transition rules with oldSelf), pruning versus strict unknown fields, schema
defaults, the /status subresource, and CRDs whose rules do not compile. Then every
fixture of tests/golden/invalid/ the CRD can express must be refused at `kubectl apply`
at the field path `dgdctl validate` names; the ones it cannot express are listed below
(and in docs/api.md, "Checked only by the operator")."""
import copy
import glob
import json
import os
import re
import signal
import subprocess
import tempfile

import yaml
from kubernetes import client
from kubernetes.client.rest import ApiException

import binaries
from kubesim import KubeSim
from referee_lib import DGD_CRD, SOURCE_DIR, kubectl_fails

GROUP, VERSION, PLURAL = "nvidia.com", "v1beta1", "dynamographdeployments"
BLOCKED = ('<nil>: Invalid value: "null": some validation rules were not checked because the object was '
           'invalid; correct the existing errors to complete validation')

MINIMAL = {
    "apiVersion": "nvidia.com/v1beta1",
    "kind": "DynamoGraphDeployment",
    "metadata": {"name": "tiny"},
    "spec": {
        "backendFramework": "vllm",
        "env": [{"name": "A", "value": "1"}],
        "components": [
            {"name": "Frontend", "type": "frontend"},
            {"name": "Worker", "type": "worker", "replicas": 1},
        ],
    },
}

# Fixtures of tests/golden/invalid/ whose mistake the CRD cannot express (cross-field or
# cross-object rules only dgd-operator checks). Kept equal to docs/api.md.
OPERATOR_ONLY = {
    "block-size-not-power-of-two",
    "component-type-missing",
    "conditional-disagg-on-aggregated-graph",
    "decode-without-prefill",
    "disagg-without-connector",
    "download-resources-bad-quantity",
    "dspark-on-prefill-only",
    "env-name-invalid",
    "eplb-without-expert-parallel",
    "extra-args-duplicate-typed-flag",
    "gb200-split-clique-without-rdma",
    "gpu-memory-utilization-with-sglang",
    "keep-on-delete-without-create",
    "kv-cache-dtype-differs",
    "kv-connector-differs",
    "kv-events-port-reserved",
    "label-value-invalid",
    "main-args-with-engine",
    "main-image-missing",
    "max-batched-tokens-below-max-seqs",
    "overlay-framework-contradicts-recipe",
    "prefill-without-decode",
    "rollout-max-surge-not-a-number",
    "rollout-strategy-unknown",
    "router-block-size-mismatch",
    "sglang-block-with-vllm",
    "sglang-cuda-graph-bs-in-config",
    "sglang-disagg-without-transfer-backend",
    "sglang-port-collision",
    "sglang-vllm-only-settings",
    "speculative-differs-prefill-decode",
    "static-ucx-net-devices-in-pod-template",
    "tensor-parallel-vs-gpus",
    "token-secret-name-invalid",
    "trtllm-with-engine",
    "vllm-kv-transfer-without-connector",
}

# Fixtures the CRD refuses at a field enclosing (or inside) the one dgdctl names: a CEL rule
# reports at a fixed path (fieldPath cannot name "the offending list item"), a list-type map
# duplicate at the item, a strict decoding error at the unknown field under the mistyped one.
REPORTED_NEARBY = {
    "child-name-over-63",                  # spec.components (root rule over every component)
    "deep-gemm-mega-moe-on-h200",          # spec.components (spec rule over every component)
    "flashmla-mega-attention-on-h200",
    "mxfp4-indexer-on-h200",
    "nvfp4-kv-cache-on-h200",
    "dgd-name-starts-with-digit",          # <nil>: the root rule (metadata has no declared fields)
    "duplicate-names-case-insensitive",    # spec.components
    "env-duplicate",                       # spec.env[1]: Duplicate value
    "overlay-sriov-with-static-ucx",       # spec (env of the graph and of every component)
    "static-ucx-net-devices-graph-env",
    "static-ucx-net-devices-with-sriov",
    "tolerations-not-list",                # unknown field "spec.placement.tolerations.key"
    "restart-order-duplicate",             # spec: spec.restart must be unset on create
    "restart-order-unknown-component",
    "restart-order-with-parallel",
}

WIDGET_CRD = """
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {kind: Widget, plural: widgets, singular: widget, listKind: WidgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, default: 3, minimum: 1, multipleOf: 1}
              mode: {type: string, default: fast, enum: [fast, slow]}
              ratio: {type: number, maximum: 1, exclusiveMaximum: true}
              port: {x-kubernetes-int-or-string: true}
              when: {type: string, format: date-time}
              tags:
                type: array
                maxItems: 3
                items: {type: string, maxLength: 8}
                x-kubernetes-list-type: set
              limits:
                type: object
                default: {cpu: "1"}
                properties:
                  cpu: {type: string}
              notes: {type: string, nullable: true}
              extra:
                type: object
                x-kubernetes-preserve-unknown-fields: true
              template:
                type: object
                x-kubernetes-embedded-resource: true
                x-kubernetes-preserve-unknown-fields: true
            x-kubernetes-validations:
            - rule: "!has(self.tags) || self.tags.all(t, t.lowerAscii() == t)"
              messageExpression: "'tags must be lower case, got ' + self.tags.join(',')"
              fieldPath: .tags
            - rule: "self.size <= 10"
              reason: FieldValueForbidden
              message: size is at most 10
            - rule: "self.size / (self.size - 7) >= 0"
            - rule: "oldSelf.hasValue() || !has(self.notes)"
              optionalOldSelf: true
              message: notes are added after creation
          status:
            type: object
            properties:
              phase: {type: string, enum: [Pending, Ready]}
"""


def write(directory, name, obj):
    path = os.path.join(directory, name)
    with open(path, "w") as f:
        f.write(obj if isinstance(obj, str) else yaml.safe_dump(obj))
    return path


def dgd(**spec_changes):
    obj = copy.deepcopy(MINIMAL)
    obj["spec"].update(spec_changes)
    return obj


def invalid_message(name, *errors):
    body = errors[0] if len(errors) == 1 else "[" + ", ".join(errors) + "]"
    return 'DynamoGraphDeployment.nvidia.com "%s" is invalid: %s' % (name, body)


def kubectl_invalid(name, *errors):
    """kubectl's rendering of a 422: its causes, one per line when there are several."""
    if len(errors) == 1:
        return 'The DynamoGraphDeployment "%s" is invalid: %s' % (name, errors[0])
    return 'The DynamoGraphDeployment "%s" is invalid: \n' % name + "".join("* %s\n" % e for e in errors)


def api_error(fn):
    try:
        fn()
    except ApiException as e:
        return e.status, json.loads(e.body)
    raise AssertionError("the write was accepted")


def test_structural_schema(sim, custom, tmp):
    # kubectl: an unsupported enum value blocks the rules (the real server's ErrorList).
    path = write(tmp, "bogus.yaml", dgd(backendFramework="bogus"))
    err = kubectl_fails(sim, "apply", "-f", path)
    assert kubectl_invalid("tiny", 'spec.backendFramework: Unsupported value: "bogus": supported values: '
                           '"vllm", "sglang", "trtllm"', BLOCKED) in err, err
    status, body = api_error(lambda: custom.create_namespaced_custom_object(
        GROUP, VERSION, "default", PLURAL, dgd(backendFramework="bogus")))
    assert body["message"] == invalid_message("tiny", 'spec.backendFramework: Unsupported value: "bogus": supported '
                                              'values: "vllm", "sglang", "trtllm"', BLOCKED), body

    # Python client: the Status with its causes.
    bad = dgd()
    bad["spec"]["components"][0]["replicas"] = -1
    status, body = api_error(lambda: custom.create_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, bad))
    assert status == 422 and body["reason"] == "Invalid", body
    assert body["message"] == invalid_message(
        "tiny", "spec.components[0].replicas: Invalid value: -1: spec.components[0].replicas in body should be "
        "greater than or equal to 0"), body
    assert body["details"]["causes"] == [{
        "reason": "FieldValueInvalid", "field": "spec.components[0].replicas",
        "message": "Invalid value: -1: spec.components[0].replicas in body should be greater than or equal to 0"}]
    assert body["details"]["kind"] == "DynamoGraphDeployment" and body["details"]["group"] == "nvidia.com", body

    # Types, lengths, patterns, required, list-map keys, several errors at once.
    bad = dgd(recipe="Not A Recipe")
    bad["spec"]["components"][1]["replicas"] = "two"
    bad["spec"]["components"].append({"type": "worker"})
    bad["spec"]["env"].append({"name": "A", "value": "2"})
    status, body = api_error(lambda: custom.create_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, bad))
    messages = [c["field"] + ": " + c["message"] for c in body["details"]["causes"]]
    for want in [
        'spec.recipe: Invalid value: "Not A Recipe": spec.recipe in body should match '
        "'^[a-z0-9]([-a-z0-9.]*[a-z0-9])?/[a-z0-9]([-a-z0-9]*[a-z0-9])?/[a-z0-9]([-a-z0-9]*[a-z0-9])?$'",
        'spec.components[1].replicas: Invalid value: "string": spec.components[1].replicas in body must be of type '
        'integer: "string"',
        "spec.components[2].name: Required value",
        'spec.env[1]: Duplicate value: map[string]interface {}{"name":"A"}',
        BLOCKED,
    ]:
        assert want in messages, (want, messages)
    assert body["message"].startswith('DynamoGraphDeployment.nvidia.com "tiny" is invalid: [') and \
        body["message"].endswith("]"), body["message"]


def test_rules(sim, custom, tmp):
    # An env entry with both value and valueFrom: the rule's message at the item.
    bad = dgd(env=[{"name": "A", "value": "1", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}])
    err = kubectl_fails(sim, "apply", "-f", write(tmp, "env.yaml", bad))
    assert kubectl_invalid("tiny", 'spec.env[0]: Invalid value: "object": set either value or valueFrom, not both') \
        in err, err

    # Root rules see metadata.name; several rules fail together.
    bad = dgd()
    bad["metadata"]["name"] = "a" * 60
    status, body = api_error(lambda: custom.create_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, bad))
    assert status == 422, body
    assert body["message"] == invalid_message(
        "a" * 60, 'spec.components: Invalid value: "object": <metadata.name>-<component name> must fit 63 characters '
        "(the children's names): shorten the DGD or component name"), body

    # Transition rule: a component's type is immutable (oldSelf), checked only on update.
    custom.create_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, dgd())
    changed = dgd()
    changed["spec"]["components"][1]["type"] = "decode"
    status, body = api_error(lambda: custom.patch_namespaced_custom_object(
        GROUP, VERSION, "default", PLURAL, "tiny", {"spec": {"components": changed["spec"]["components"]}}))
    assert body["message"] == invalid_message("tiny", 'spec.components[1].type: Invalid value: "object": type is immutable'), body
    # kubectl apply (a merge patch) is refused the same way; a new component may have any type.
    err = kubectl_fails(sim, "apply", "-f", write(tmp, "decode.yaml", changed))
    assert 'spec.components[1].type: Invalid value: "object": type is immutable' in err, err
    grown = dgd()
    grown["spec"]["components"].append({"name": "Decode", "type": "decode"})
    sim.kubectl("apply", "-f", write(tmp, "grown.yaml", grown))
    # Server-side apply goes through the same checks.
    proc = sim.kubectl("apply", "--server-side", "--force-conflicts", "-f", write(tmp, "decode.yaml", changed),
                       check=False)
    assert proc.returncode != 0 and "type is immutable" in proc.stderr, proc.stderr
    custom.delete_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "tiny")


def evaluator_pids(sim):
    """The node processes this kube-sim started (its children running cel_server.mjs)."""
    pids = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open("/proc/%s/stat" % entry) as f:
                ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            with open("/proc/%s/cmdline" % entry, "rb") as f:
                cmd = f.read()
        except (OSError, ValueError, IndexError):
            continue
        if ppid == sim.proc.pid and b"cel_server.mjs" in cmd:
            pids.append(int(entry))
    return pids


def test_evaluator_restart(sim, custom):
    # The evaluator dies: the next write starts a new one and is still checked.
    pids = evaluator_pids(sim)
    assert len(pids) == 1, pids
    os.kill(pids[0], signal.SIGKILL)
    bad = dgd(env=[{"name": "A", "value": "1", "valueFrom": {}}])
    status, body = api_error(lambda: custom.create_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, bad))
    assert "set either value or valueFrom, not both" in body["message"], body
    restarted = evaluator_pids(sim)
    assert len(restarted) == 1 and restarted != pids, (pids, restarted)


def test_status_subresource(sim, custom, tmp):
    custom.create_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, dgd())
    err = kubectl_fails(sim, "patch", "dgd", "tiny", "--subresource=status", "--type=merge",
                        "-p", json.dumps({"status": {"conditions": [{"type": "Ready"}]}}))
    assert kubectl_invalid("tiny", "status.conditions[0].status: Required value", BLOCKED) in err, err
    status, body = api_error(lambda: custom.patch_namespaced_custom_object_status(
        GROUP, VERSION, "default", PLURAL, "tiny", {"status": {"state": "bogus"}}))
    assert 'status.state: Unsupported value: "bogus": supported values: "initializing", "pending", ' \
        '"successful", "failed"' in body["message"], body
    ok = {"status": {"state": "pending", "conditions": [
        {"type": "Ready", "status": "False", "reason": "Rolling", "lastTransitionTime": "2026-12-01T10:00:00Z"}]}}
    custom.patch_namespaced_custom_object_status(GROUP, VERSION, "default", PLURAL, "tiny", ok)
    status, body = api_error(lambda: custom.patch_namespaced_custom_object_status(
        GROUP, VERSION, "default", PLURAL, "tiny",
        {"status": {"conditions": [{"type": "Ready", "status": "False", "lastTransitionTime": "yesterday"}]}}))
    # The status validator names paths relative to status in its messages.
    assert 'status.conditions[0].lastTransitionTime: Invalid value: "yesterday": conditions[0]' \
        '.lastTransitionTime in body must be of type date-time: "yesterday"' in body["message"], body
    custom.delete_namespaced_custom_object(GROUP, VERSION, "default", PLURAL, "tiny")


def test_pruning_and_strict(sim, custom, tmp):
    unknown = dgd(bogusField=1)
    unknown["spec"]["components"][0]["replicaz"] = 2
    path = write(tmp, "unknown.yaml", unknown)
    # kubectl's default --validate=strict: 400 naming every unknown field.
    err = kubectl_fails(sim, "apply", "-f", path)
    assert 'unknown field "spec.bogusField"' in err and 'unknown field "spec.components[0].replicaz"' in err, err
    # --validate=false: pruned, as the real server prunes.
    sim.kubectl("apply", "--validate=false", "-f", path)
    got = sim.kubectl_json("get", "dgd", "tiny", "-o", "json")
    assert "bogusField" not in got["spec"] and "replicaz" not in got["spec"]["components"][0], got["spec"]
    # Unknown fields under x-kubernetes-preserve-unknown-fields are kept.
    kept = dgd()
    kept["spec"]["components"][0]["podTemplate"] = {"spec": {"anything": {"goes": True}}}
    sim.kubectl("apply", "-f", write(tmp, "kept.yaml", kept))
    got = sim.kubectl_json("get", "dgd", "tiny", "-o", "json")
    assert got["spec"]["components"][0]["podTemplate"] == {"spec": {"anything": {"goes": True}}}, got
    sim.kubectl("delete", "dgd", "tiny")


def test_widget_schema(sim, tmp):
    api = client.CustomObjectsApi(sim.python_client())
    sim.kubectl("apply", "-f", write(tmp, "widget-crd.yaml", WIDGET_CRD))

    def widget(name, spec):
        return {"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": name}, "spec": spec}

    def refused(spec):
        status, body = api_error(lambda: api.create_namespaced_custom_object(
            "example.com", "v1", "default", "widgets", widget("w", spec)))
        assert status == 422, body
        return body["message"]

    # Defaults: absent fields get theirs, nested objects too; the stored object carries them.
    created = api.create_namespaced_custom_object("example.com", "v1", "default", "widgets",
                                                  widget("d", {"port": 8080, "notes": None}))
    assert created["spec"]["size"] == 3 and created["spec"]["mode"] == "fast", created
    assert created["spec"]["limits"] == {"cpu": "1"} and created["spec"]["notes"] is None, created
    got = api.get_namespaced_custom_object("example.com", "v1", "default", "widgets", "d")
    assert got["spec"]["size"] == 3 and got["spec"]["mode"] == "fast", got

    assert "spec.size: Invalid value: 0: spec.size in body should be greater than or equal to 1" in refused({"size": 0})
    assert ('spec.ratio: Invalid value: 1: spec.ratio in body should be less than 1' in refused({"ratio": 1}))
    assert ('spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"'
            in refused({"port": True}))
    assert ('spec.when: Invalid value: "soon": spec.when in body must be of type date-time: "soon"'
            in refused({"when": "soon"}))
    assert "spec.tags: Too many: 4: must have at most 3 items" in refused({"tags": ["a", "b", "c", "d"]})
    assert "spec.tags[0]: Too long: may not be longer than 8" in refused({"tags": ["abcdefghij"]})
    assert 'spec.tags[1]: Duplicate value: "a"' in refused({"tags": ["a", "a"]})
    fraction = refused({"size": 1.5})
    assert 'spec.size: Invalid value: "number": spec.size in body must be of type integer: "number"' in fraction
    assert "spec.size: Invalid value: 1.5: spec.size in body should be a multiple of 1" in fraction
    # A nullable field keeps null; another drops it, or takes its default.
    nulls = api.create_namespaced_custom_object("example.com", "v1", "default", "widgets",
                                                widget("n", {"notes": None, "mode": None, "ratio": None}))
    assert nulls["spec"]["notes"] is None and nulls["spec"]["mode"] == "fast" and "ratio" not in nulls["spec"], nulls
    # CEL: messageExpression, fieldPath, reason.
    assert ('spec.tags: Invalid value: "object": tags must be lower case, got A,b'
            in refused({"tags": ["A", "b"]}))
    assert "spec: Forbidden: size is at most 10" in refused({"size": 11})
    # A rule that fails to evaluate, and one with optionalOldSelf that runs on create too.
    assert 'spec: Invalid value: "object": division by zero evaluating rule: self.size / (self.size - 7) >= 0' \
        in refused({"size": 7})
    assert 'spec: Invalid value: "object": notes are added after creation' in refused({"notes": "hello"})
    api.patch_namespaced_custom_object("example.com", "v1", "default", "widgets", "d", {"spec": {"notes": "hello"}})
    # The embedded resource needs apiVersion and kind.
    assert ("[spec.template.apiVersion: Required value: must not be empty, spec.template.kind: Required value: "
            "must not be empty, " + BLOCKED + "]") in refused({"size": 11, "template": {}})

    # Ratcheting: after the CRD tightens, an object keeps what it had and may change the rest,
    # but may not take a new value the schema refuses.
    api.create_namespaced_custom_object("example.com", "v1", "default", "widgets", widget("r", {"size": 8}))
    tighter = yaml.safe_load(WIDGET_CRD)
    tighter["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["size"]["maximum"] = 6
    spec_props = tighter["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    spec_props["color"] = {"type": "string", "default": "blue"}
    sim.kubectl("apply", "-f", write(tmp, "widget-crd-tighter.yaml", tighter))
    # A default added later shows on reads of objects stored before (defaulting on decode).
    assert api.get_namespaced_custom_object("example.com", "v1", "default", "widgets", "d")["spec"]["color"] == "blue"
    listed = sim.kubectl_json("get", "widgets", "-o", "json")["items"]
    assert [w["spec"].get("color") for w in listed] == ["blue"] * len(listed) and listed, listed
    api.patch_namespaced_custom_object("example.com", "v1", "default", "widgets", "r", {"spec": {"mode": "slow"}})
    status, body = api_error(lambda: api.patch_namespaced_custom_object(
        "example.com", "v1", "default", "widgets", "r", {"spec": {"size": 9}}))
    assert "spec.size: Invalid value: 9: spec.size in body should be less than or equal to 6" in body["message"], body

    # Status: validated against the status schema through /status only.
    status, body = api_error(lambda: api.patch_namespaced_custom_object_status(
        "example.com", "v1", "default", "widgets", "d", {"status": {"phase": "Gone"}}))
    assert 'status.phase: Unsupported value: "Gone": supported values: "Pending", "Ready"' in body["message"], body


def test_crd_rule_must_compile(sim, tmp):
    broken = yaml.safe_load(WIDGET_CRD)
    broken["metadata"]["name"] = "gadgets.example.com"
    broken["spec"]["names"] = {"kind": "Gadget", "plural": "gadgets", "singular": "gadget", "listKind": "GadgetList"}
    spec = broken["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
    spec["x-kubernetes-validations"] = [{"rule": "self.nosuch > 1"}]
    err = kubectl_fails(sim, "apply", "-f", write(tmp, "gadget-crd.yaml", broken))
    assert ('The CustomResourceDefinition "gadgets.example.com" is invalid: '
            'spec.versions[0].schema.openAPIV3Schema.properties[spec].x-kubernetes-validations[0].rule: '
            'Invalid value: apiextensions.ValidationRule{Rule:"self.nosuch > 1", Message:"", MessageExpression:"", '
            'Reason:(*apiextensions.FieldValueErrorReason)(nil), FieldPath:"", OptionalOldSelf:(*bool)(nil)}: '
            "compilation failed: ERROR: <input>:1:5: undefined field 'nosuch'\n | self.nosuch > 1\n | ....^") in err, err
    spec["x-kubernetes-validations"] = [{"rule": "self.size"}]
    err = kubectl_fails(sim, "apply", "-f", write(tmp, "gadget-crd.yaml", broken))
    assert "compilation failed: cel expression must evaluate to a bool" in err, err
    spec["x-kubernetes-validations"] = []
    spec["properties"]["tags"]["uniqueItems"] = True
    err = kubectl_fails(sim, "apply", "-f", write(tmp, "gadget-crd.yaml", broken))
    assert ("spec.versions[0].schema.openAPIV3Schema.properties[spec].properties[tags].uniqueItems: Forbidden: "
            "uniqueItems cannot be set to true since the runtime complexity becomes quadratic") in err, err
    assert sim.request("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gadgets.example.com")[0] == 404


def dgdctl_paths(path):
    """The field paths `dgdctl validate -f FILE` reports ("FILE: NAME: error: PATH: message")."""
    proc = subprocess.run([binaries.find_binary("DGDCTL", "dgdctl"), "validate", "-f", path],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1, (path, proc.returncode, proc.stdout, proc.stderr)
    paths = set()
    for line in (proc.stdout + proc.stderr).splitlines():
        if ": error: " in line:
            paths.add(line.split(": error: ", 1)[1].split(": ", 1)[0])
    return paths


def reported_fields(stderr):
    """The field paths kubectl prints for a refused write: its rendering of a 422's causes
    ("is invalid: F: msg" or "* F: msg" lines) or a strict decoding error's unknown fields."""
    fields = set(re.findall(r'unknown field "([^"]+)"', stderr))
    for line in stderr.splitlines():
        if line.startswith("* "):
            fields.add(line[2:].split(": ", 1)[0])
        elif " is invalid: " in line and not line.rstrip().endswith("is invalid:"):
            fields.add(line.split(" is invalid: ", 1)[1].split(": ", 1)[0])
    return fields


def is_ancestor(a, b):
    return a == "<nil>" or b.startswith(a + ".") or b.startswith(a + "[")


def test_golden_invalid_fixtures(sim, tmp):
    problems = []
    for path in sorted(glob.glob(os.path.join(SOURCE_DIR, "tests", "golden", "invalid", "*.yaml"))):
        name = os.path.basename(path)[:-len(".yaml")]
        try:
            docs = list(yaml.safe_load_all(open(path)))
        except (yaml.YAMLError, RecursionError):
            continue  # not YAML kubectl can send: nothing reaches the API server
        if len(docs) != 1 or not isinstance(docs[0], dict) or docs[0].get("kind") != "DynamoGraphDeployment" \
                or docs[0].get("apiVersion") != "nvidia.com/v1beta1":
            continue  # another kind or version: refused as such before any schema applies
        if not (docs[0].get("metadata") or {}).get("name"):
            continue  # kubectl itself refuses an object without a name
        paths = dgdctl_paths(path)
        proc = sim.kubectl("apply", "--dry-run=server", "-f", path, check=False)
        if proc.returncode == 0:
            if name not in OPERATOR_ONLY:
                problems.append("%s: the CRD expresses it, kube-sim accepts it (dgdctl: %s)" % (name, sorted(paths)))
            continue
        if name in OPERATOR_ONLY:
            problems.append("%s: listed as checked only by the operator, yet refused: %s" % (name, proc.stderr))
            continue
        reported = reported_fields(proc.stderr)
        exact = paths & reported
        nearby = {r for r in reported for p in paths if is_ancestor(r, p) or is_ancestor(p, r)}
        if name in REPORTED_NEARBY:
            if exact or not nearby:
                problems.append("%s: expected around %s, got %s" % (name, sorted(paths), sorted(reported)))
        elif not exact:
            problems.append("%s: dgdctl names %s, kube-sim %s" % (name, sorted(paths), sorted(reported)))
    assert not problems, "\n".join(problems)


def test_docs_list_operator_only():
    """docs/api.md lists the same fixtures as OPERATOR_ONLY."""
    with open(os.path.join(SOURCE_DIR, "docs", "api.md")) as f:
        doc = f.read()
    section = doc.split("### Checked only by the operator", 1)[1].split("\n#", 1)[0]
    listed = set(re.findall(r"`([a-z0-9][a-z0-9-]+)`", section.split("refused only by the operator", 1)[1]))
    listed -= {"expertParallel", "pattern"}
    assert listed == OPERATOR_ONLY, (sorted(listed - OPERATOR_ONLY), sorted(OPERATOR_ONLY - listed))


def test_without_evaluator(tmp):
    # No CEL evaluator: writes of objects whose CRD has rules fail loudly (500), never pass unchecked.
    with KubeSim(extra_args=["--cel-evaluator", os.path.join(tmp, "nowhere")]) as sim:
        sim.kubectl("apply", "-f", DGD_CRD)
        status, body = sim.request("/apis/nvidia.com/v1beta1/namespaces/default/dynamographdeployments", "POST",
                                   dgd())
        assert status == 500 and body["reason"] == "InternalError", (status, body)
        assert "x-kubernetes-validations rules of dynamographdeployments.nvidia.com cannot be evaluated" in \
            body["message"], body


def main():
    tmp = tempfile.mkdtemp(prefix="crd-validation-")
    with KubeSim() as sim:
        sim.kubectl("apply", "-f", DGD_CRD)
        custom = client.CustomObjectsApi(sim.python_client())
        test_structural_schema(sim, custom, tmp)
        test_rules(sim, custom, tmp)
        test_status_subresource(sim, custom, tmp)
        test_evaluator_restart(sim, custom)
        test_pruning_and_strict(sim, custom, tmp)
        test_widget_schema(sim, tmp)
        test_crd_rule_must_compile(sim, tmp)
        test_golden_invalid_fixtures(sim, tmp)
    test_docs_list_operator_only()
    test_without_evaluator(tmp)
    print("test_crd_validation: all passed")


if __name__ == "__main__":
    main()
