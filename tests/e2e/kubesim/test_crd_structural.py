"""CRD schemas held to what a Kubernetes 1.32 API server accepts: `kubectl apply` of a CRD
whose openAPIV3Schema is not structural, or breaks a rule of apiextensions' schema
validation, is refused with 422 Invalid and the real message at the real field path; the
CRDs the project ships (crds/, the Helm chart, deploy/manifests/install.yaml) and the
third-party CRDs the tests register are accepted."""
import ast
import copy
import glob
import os
import tempfile

import yaml

from kubesim import KubeSim
from referee_lib import SOURCE_DIR, kubectl_fails

ROOT = "spec.versions[0].schema.openAPIV3Schema"
SPEC = ROOT + ".properties[spec]"


def crd(schema):
    return {
        "apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
        "metadata": {"name": "gizmos.example.com"},
        "spec": {"group": "example.com", "scope": "Namespaced",
                 "names": {"kind": "Gizmo", "listKind": "GizmoList", "plural": "gizmos", "singular": "gizmo"},
                 "versions": [{"name": "v1", "served": True, "storage": True,
                               "schema": {"openAPIV3Schema": schema}}]},
    }


def with_spec(spec):
    """A root schema whose `spec` property is `spec`."""
    return {"type": "object", "properties": {"spec": spec}}


def with_field(name, field):
    return with_spec({"type": "object", "properties": {name: field}})


NAMED_ITEMS = {"type": "object", "required": ["name"], "properties": {"name": {"type": "string"}}}

# (what is wrong, openAPIV3Schema, the cause kubectl must print)
BAD = [
    ("array without items", with_field("tags", {"type": "array"}),
     SPEC + ".properties[tags].items: Required value: must be specified"),
    ("field without type", with_field("size", {"description": "how big"}),
     SPEC + ".properties[size].type: Required value: must not be empty for specified object fields"),
    ("items without type", with_field("tags", {"type": "array", "items": {"maxLength": 3}}),
     SPEC + ".properties[tags].items.type: Required value: must not be empty for specified array items"),
    ("root without type", {"properties": {"spec": {"type": "object"}}},
     ROOT + ".type: Required value: must not be empty at the root"),
    ("root not an object", {"type": "string"},
     ROOT + '.type: Invalid value: "string": must be object at the root'),
    ("additionalProperties at the root", {"type": "object", "additionalProperties": {"type": "string"}},
     ROOT + ".additionalProperties: Forbidden: must not be used at the root"),
    ("properties with additionalProperties",
     with_spec({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": {"type": "string"}}),
     SPEC + ".additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive"),
    ("additionalProperties false with properties",
     with_spec({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": False}),
     SPEC + ".additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive"),
    ("metadata restricted beyond name",
     {"type": "object", "properties": {"metadata": {"type": "object", "properties": {
         "labels": {"type": "object", "additionalProperties": {"type": "string"}}}}}},
     ROOT + ".properties[metadata]: Forbidden: must not specify anything other than name and generateName, "
            "but metadata is implicitly specified"),
    ("metadata not an object", {"type": "object", "properties": {"metadata": {"type": "string"}}},
     ROOT + '.properties[metadata].type: Invalid value: "string": must be object'),
    ("kind not a string", {"type": "object", "properties": {"kind": {"type": "integer"}}},
     ROOT + '.properties[kind].type: Invalid value: "integer": must be string'),
    ("type under anyOf",
     with_spec({"type": "object", "properties": {"a": {"type": "string"}}, "anyOf": [{"type": "object"}]}),
     SPEC + ".anyOf[0].type: Forbidden: must be empty to be structural"),
    ("description under allOf",
     with_spec({"type": "object", "properties": {"a": {"type": "string"}},
                "allOf": [{"description": "either", "required": ["a"]}]}),
     SPEC + ".allOf[0].description: Forbidden: must be empty to be structural"),
    ("nullable under oneOf",
     with_spec({"type": "object", "properties": {"a": {"type": "string"}}, "oneOf": [{"nullable": True}]}),
     SPEC + ".oneOf[0].nullable: Forbidden: must be false to be structural"),
    ("field only under anyOf",
     {"type": "object", "properties": {"spec": {"type": "object"}},
      "anyOf": [{"required": ["spec"]}, {"properties": {"other": {"required": ["x"]}}}]},
     ROOT + ".properties[other]: Required value: because it is defined in " + ROOT + ".anyOf[1].properties[other]"),
    ("metadata under anyOf",
     {"type": "object", "properties": {"metadata": {"type": "object"}}, "anyOf": [{"properties": {"metadata": {}}}]},
     ROOT + ".anyOf[0].properties[metadata]: Forbidden: must not be specified in a nested context"),
    ("int-or-string with preserve-unknown-fields",
     with_field("port", {"x-kubernetes-int-or-string": True, "x-kubernetes-preserve-unknown-fields": True}),
     SPEC + ".properties[port].x-kubernetes-preserve-unknown-fields: Invalid value: true: "
            "must be false if x-kubernetes-int-or-string is true"),
    ("int-or-string with a type under anyOf in another shape",
     with_field("port", {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "string"}, {"type": "integer"}]}),
     SPEC + ".properties[port].anyOf[0].type: Forbidden: must be empty to be structural"),
    ("embedded resource without type",
     with_field("template", {"x-kubernetes-embedded-resource": True, "x-kubernetes-preserve-unknown-fields": True}),
     SPEC + ".properties[template].type: Required value: must be object if x-kubernetes-embedded-resource is true"),
    ("embedded resource without properties", with_field("template", {"type": "object", "x-kubernetes-embedded-resource": True}),
     SPEC + ".properties[template].properties: Required value: must not be empty if x-kubernetes-embedded-resource "
            "is true without x-kubernetes-preserve-unknown-fields"),
    ("list-type map without keys",
     with_field("ports", {"type": "array", "x-kubernetes-list-type": "map", "items": NAMED_ITEMS}),
     SPEC + ".properties[ports].x-kubernetes-list-map-keys: Required value: "
            "must not be empty if x-kubernetes-list-type is map"),
    ("list-map key neither required nor defaulted",
     with_field("ports", {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                          "items": {"type": "object", "properties": {"name": {"type": "string"}}}}),
     SPEC + ".properties[ports].items.properties[name].default: Required value: this property is in "
            "x-kubernetes-list-map-keys, so it must have a default or be a required property"),
    ("list-map key not an item property",
     with_field("ports", {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["id"],
                          "items": NAMED_ITEMS}),
     SPEC + '.properties[ports].x-kubernetes-list-map-keys: Invalid value: []string{"id"}: '
            "entries must all be names of item properties"),
    ("list-map key not a scalar",
     with_field("ports", {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"],
                          "items": {"type": "object", "required": ["name"], "properties": {"name": {"type": "object"}}}}),
     SPEC + '.properties[ports].items.properties[name].type: Invalid value: "object": '
            "must be a scalar type if parent array's x-kubernetes-list-type is map"),
    ("list-map keys without list-type map",
     with_field("ports", {"type": "array", "x-kubernetes-list-map-keys": ["name"], "items": NAMED_ITEMS}),
     SPEC + ".properties[ports].x-kubernetes-list-type: Required value: "
            "must be map if x-kubernetes-list-map-keys is non-empty"),
    ("unknown list-type", with_field("tags", {"type": "array", "x-kubernetes-list-type": "bag", "items": {"type": "string"}}),
     SPEC + '.properties[tags].x-kubernetes-list-type: Unsupported value: "bag": supported values: "atomic", "set", "map"'),
    ("list-type on a string", with_field("tag", {"type": "string", "x-kubernetes-list-type": "atomic"}),
     SPEC + '.properties[tag].type: Invalid value: "string": must be array if x-kubernetes-list-type is specified'),
    ("set of granular objects",
     with_field("pairs", {"type": "array", "x-kubernetes-list-type": "set", "items": NAMED_ITEMS}),
     SPEC + '.properties[pairs].items.x-kubernetes-map-type: Invalid value: "null": '
            "must be atomic as item of a list with x-kubernetes-list-type=set"),
    ("nullable set items",
     with_field("tags", {"type": "array", "x-kubernetes-list-type": "set", "items": {"type": "string", "nullable": True}}),
     SPEC + ".properties[tags].items.nullable: Forbidden: cannot be nullable when x-kubernetes-list-type is set"),
    ("unknown map-type", with_field("labels", {"type": "object", "x-kubernetes-map-type": "loose"}),
     SPEC + '.properties[labels].x-kubernetes-map-type: Unsupported value: "loose": supported values: "atomic", "granular"'),
    ("nullable at the root", {"type": "object", "nullable": True},
     ROOT + ".nullable: Forbidden: nullable cannot be true at the root"),
    ("default with unknown fields",
     with_field("limits", {"type": "object", "properties": {"cpu": {"type": "string"}}, "default": {"cpu": "1", "gpu": "2"}}),
     SPEC + '.properties[limits].default: Invalid value: map[string]interface {}{"cpu":"1", "gpu":"2"}: '
            "must not have unknown fields"),
    ("default of the wrong type", with_field("size", {"type": "integer", "default": "two"}),
     SPEC + '.properties[size].default: Invalid value: "string": ' + SPEC +
     '.properties[size].default in body must be of type integer: "string"'),
    ("default outside its bounds", with_field("size", {"type": "integer", "minimum": 1, "default": 0}),
     SPEC + ".properties[size].default: Invalid value: 0: " + SPEC +
     ".properties[size].default in body should be greater than or equal to 1"),
    ("default in top-level metadata", {"type": "object", "properties": {"metadata": {"type": "object", "default": {}}}},
     ROOT + ".properties[metadata].default: Forbidden: must not be set in top-level metadata"),
    ("$ref", with_field("other", {"type": "object", "$ref": "#/definitions/Other"}),
     SPEC + ".properties[other].$ref: Forbidden: $ref is not supported"),
    ("additionalItems", with_field("tags", {"type": "array", "items": {"type": "string"}, "additionalItems": False}),
     SPEC + ".properties[tags].additionalItems: Forbidden: additionalItems is not supported"),
    ("patternProperties", with_field("labels", {"type": "object", "patternProperties": {"^a": {"type": "string"}}}),
     SPEC + ".properties[labels].patternProperties: Forbidden: patternProperties is not supported"),
    ("definitions", dict(with_spec({"type": "object"}), definitions={"Other": {"type": "string"}}),
     ROOT + ".definitions: Forbidden: definitions is not supported"),
    ("items as a list", with_field("pair", {"type": "array", "items": [{"type": "string"}, {"type": "integer"}]}),
     SPEC + ".properties[pair].items: Forbidden: items must be a schema object and not an array"),
    ("uniqueItems", with_field("tags", {"type": "array", "items": {"type": "string"}, "uniqueItems": True}),
     SPEC + ".properties[tags].uniqueItems: Forbidden: uniqueItems cannot be set to true since the runtime "
            "complexity becomes quadratic"),
    ("type null", with_field("nothing", {"type": "null"}),
     SPEC + ".properties[nothing].type: Forbidden: type cannot be set to null, use nullable as an alternative"),
    ("unknown type", with_field("name", {"type": "text"}),
     SPEC + '.properties[name].type: Unsupported value: "text": supported values: "array", "boolean", "integer", '
            '"number", "object", "string"'),
    ("preserve-unknown-fields false", with_field("extra", {"type": "object", "x-kubernetes-preserve-unknown-fields": False}),
     SPEC + ".properties[extra].x-kubernetes-preserve-unknown-fields: Invalid value: false: must be true or undefined"),
    ("empty rule", with_spec({"type": "object", "x-kubernetes-validations": [{"rule": "  "}]}),
     SPEC + ".x-kubernetes-validations[0].rule: Required value: rule is not specified"),
    ("multi-line rule without message",
     with_spec({"type": "object", "x-kubernetes-validations": [{"rule": "true &&\ntrue"}]}),
     SPEC + ".x-kubernetes-validations[0].message: Required value: message must be specified if rule contains line breaks"),
    ("message with a line break",
     with_spec({"type": "object", "x-kubernetes-validations": [{"rule": "true", "message": "two\nlines"}]}),
     SPEC + '.x-kubernetes-validations[0].message: Invalid value: "two\\nlines": message must not contain line breaks'),
    ("pattern that does not compile", with_field("name", {"type": "string", "pattern": "(ab"}),
     SPEC + '.properties[name].pattern: Invalid value: "(ab": must be a valid regular expression, '
            "but isn't: error parsing regexp: missing closing ): `(ab`"),
]

# Structural schemas at the edges of the rules: accepted.
GOOD = [
    ("int-or-string with the anyOf pattern",
     with_field("port", {"x-kubernetes-int-or-string": True, "anyOf": [{"type": "integer"}, {"type": "string"}]})),
    ("int-or-string with the allOf pattern",
     with_field("port", {"x-kubernetes-int-or-string": True,
                         "allOf": [{"anyOf": [{"type": "integer"}, {"type": "string"}]}, {"pattern": "^[0-9a-z]+$"}]})),
    ("metadata naming name and generateName",
     {"type": "object", "properties": {"metadata": {"type": "object", "properties": {
         "name": {"type": "string", "maxLength": 20}, "generateName": {"type": "string"}}}}}),
    ("embedded resource", with_field("template", {"type": "object", "x-kubernetes-embedded-resource": True,
                                                  "x-kubernetes-preserve-unknown-fields": True})),
    ("list-type map with a defaulted key",
     with_field("ports", {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name", "proto"],
                          "items": {"type": "object", "required": ["name"], "properties": {
                              "name": {"type": "string"}, "proto": {"type": "string", "default": "TCP"}}}})),
    ("additionalProperties true with properties",
     with_spec({"type": "object", "properties": {"a": {"type": "string"}}, "additionalProperties": True})),
    ("value validation naming specified fields",
     with_spec({"type": "object", "properties": {"a": {"type": "string"}, "b": {"type": "string"}},
                "oneOf": [{"required": ["a"]}, {"required": ["b"]}], "not": {"properties": {"a": {"pattern": "^x"}}}})),
    ("pruned, valid defaults",
     with_field("limits", {"type": "object", "default": {"cpu": "1"}, "properties": {"cpu": {"type": "string"}}})),
]


def write(tmp, name, obj):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        yaml.safe_dump(obj, f)
    return path


def literal(path, name):
    """A dict assigned at the top level of a Python test file, from literals and the string
    constants assigned before it (the file is not imported: importing runs its harness)."""
    with open(path) as f:
        tree = ast.parse(f.read())
    constants = {}
    for node in tree.body:
        if not isinstance(node, ast.Assign) or len(node.targets) != 1 or not isinstance(node.targets[0], ast.Name):
            continue
        if node.targets[0].id == name:
            return eval(compile(ast.Expression(node.value), path, "eval"), {"__builtins__": {}}, constants)
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            constants[node.targets[0].id] = node.value.value
    raise AssertionError("%s not in %s" % (name, path))


def shipped_crds():
    """(where, CRD) of every CRD the project ships or a test registers."""
    files = sorted(glob.glob(os.path.join(SOURCE_DIR, "crds", "*.yaml")))
    files += sorted(glob.glob(os.path.join(SOURCE_DIR, "deploy", "helm", "*", "files", "crds", "*.yaml")))
    files.append(os.path.join(SOURCE_DIR, "deploy", "manifests", "install.yaml"))
    found = []
    for path in files:
        with open(path) as f:
            for doc in yaml.safe_load_all(f):
                if doc and doc.get("kind") == "CustomResourceDefinition":
                    found.append((os.path.relpath(path, SOURCE_DIR), doc))
    e2e = os.path.join(SOURCE_DIR, "tests", "e2e")
    for rel, name in [("install/test_chart_values_examples.py", "SERVICE_MONITOR_CRD"),
                      ("operator/test_operator_missing_kind.py", "COMPUTE_DOMAIN_CRD")]:
        found.append(("tests/e2e/" + rel, literal(os.path.join(e2e, rel), name)))
    return found


def test_refused(sim, tmp):
    for what, schema, cause in BAD:
        err = kubectl_fails(sim, "apply", "-f", write(tmp, "bad.yaml", crd(schema)),
                            contains='The CustomResourceDefinition "gizmos.example.com" is invalid: ')
        assert cause in err, (what, cause, err)
    # Nothing was stored on the way.
    assert sim.request("/apis/apiextensions.k8s.io/v1/customresourcedefinitions/gizmos.example.com")[0] == 404


def test_status_and_causes(sim):
    # The 422 itself: reason Invalid, one cause per error, the real field paths.
    status, body = sim.request("/apis/apiextensions.k8s.io/v1/customresourcedefinitions", "POST",
                               crd(with_spec({"type": "object", "properties": {
                                   "tags": {"type": "array"}, "size": {"description": "how big"}}})))
    assert status == 422 and body["reason"] == "Invalid", (status, body)
    causes = {(c["field"], c["reason"], c["message"]) for c in body["details"]["causes"]}
    assert causes == {
        (SPEC + ".properties[size].type", "FieldValueRequired",
         "Required value: must not be empty for specified object fields"),
        (SPEC + ".properties[tags].items", "FieldValueRequired", "Required value: must be specified"),
    }, causes


def test_update_refused(sim, tmp):
    # An update that makes the schema non-structural is refused; the stored CRD stays.
    good = crd(with_field("tags", {"type": "array", "items": {"type": "string"}}))
    sim.kubectl("apply", "-f", write(tmp, "good.yaml", good))
    bad = copy.deepcopy(good)
    del bad["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]["tags"]["items"]
    err = kubectl_fails(sim, "apply", "-f", write(tmp, "bad.yaml", bad))
    assert SPEC + ".properties[tags].items: Required value: must be specified" in err, err
    stored = sim.kubectl("get", "crd", "gizmos.example.com", "-o", "yaml").stdout
    assert "items:" in stored, stored
    sim.kubectl("delete", "crd", "gizmos.example.com")


def test_accepted(sim, tmp):
    for what, schema in GOOD:
        proc = sim.kubectl("apply", "--dry-run=server", "-f", write(tmp, "good.yaml", crd(schema)), check=False)
        assert proc.returncode == 0, (what, proc.stderr)
    crds = shipped_crds()
    names = {doc["metadata"]["name"] for _, doc in crds}
    assert {"dynamographdeployments.nvidia.com", "dynamoworkermetadatas.nvidia.com",
            "servicemonitors.monitoring.coreos.com", "computedomains.resource.nvidia.com"} <= names, names
    for where, doc in crds:
        proc = sim.kubectl("apply", "--dry-run=server", "-f", write(tmp, "shipped.yaml", doc), check=False)
        assert proc.returncode == 0, (where, doc["metadata"]["name"], proc.stderr)


def main():
    tmp = tempfile.mkdtemp(prefix="crd-structural-")
    with KubeSim() as sim:
        test_refused(sim, tmp)
        test_status_and_causes(sim)
        test_update_refused(sim, tmp)
        test_accepted(sim, tmp)
    print("test_crd_structural: all passed")


if __name__ == "__main__":
    main()
