// kube-sim's CRD schema checks (crd/structural_schema.h): the order of the real error list and
// schemas whose keywords have the wrong JSON type.
#include "kubesim/crd/structural_schema.h"

#include <gtest/gtest.h>

namespace kubesim::crd {
namespace {

using nlohmann::json;

std::vector<std::string> lines(const FieldErrors& errs) {
  std::vector<std::string> out;
  for (const auto& e : errs) out.push_back(e.field + ": " + e.body());
  return out;
}

TEST(StructuralSchema, RootNullableFirstThenStructuralErrorsSortedThenOpenApiErrors) {
  // The structural walk finds properties[...] before the root's additionalProperties and the list
  // is sorted; the OpenAPI checks keep the real walk's order (a node's own keywords first).
  const json schema = json::parse(R"({
    "type": "object", "nullable": true,
    "additionalProperties": {"type": "string"},
    "properties": {
      "zeta": {"type": "array", "uniqueItems": true},
      "alpha": {"description": "no type"}
    }
  })");
  const std::string root = "spec.versions[0].schema.openAPIV3Schema";
  EXPECT_EQ(lines(check_openapi_v3_schema(schema, "spec.versions[0].schema")),
            (std::vector<std::string>{
                root + ".nullable: Forbidden: nullable cannot be true at the root",
                root + ".additionalProperties: Forbidden: must not be used at the root",
                root + ".properties[alpha].type: Required value: must not be empty for specified object fields",
                root + ".properties[zeta].items: Required value: must be specified",
                root + ".additionalProperties: Forbidden: additionalProperties and properties are mutual exclusive",
                root + ".properties[zeta].uniqueItems: Forbidden: uniqueItems cannot be set to true since the "
                       "runtime complexity becomes quadratic",
            }));
}

TEST(StructuralSchema, DefaultsAreCheckedOnlyOnStructuralSchemas) {
  const json schema = json::parse(R"({"type": "object", "properties": {
    "n": {"type": "integer", "default": "x"}, "l": {"type": "array"}}})");
  for (const auto& line : lines(check_openapi_v3_schema(schema, "s")))
    EXPECT_EQ(line.find(".default"), std::string::npos) << line;
}

TEST(StructuralSchema, WrongJsonTypesDoNotCrash) {
  const char* schemas[] = {
      R"({"type": 5, "properties": [], "items": "x", "anyOf": {}, "allOf": [1, null], "not": 3})",
      R"({"type": "object", "properties": {"a": null, "b": 7, "c": {"type": "array", "items": [1]}}})",
      R"({"type": "object", "properties": {"l": {"type": "array", "x-kubernetes-list-type": "map",
          "x-kubernetes-list-map-keys": [1, "k", "k"], "items": {"type": "object", "properties": {"k": 3}}}}})",
      R"({"type": "object", "properties": {"metadata": 1, "kind": [], "apiVersion": {"type": 2}}})",
      R"({"type": "object", "properties": {"p": {"type": "string", "pattern": "\\", "default": {}}}})",
      R"([])", R"(null)", R"("object")",
  };
  for (const char* text : schemas) EXPECT_NO_THROW(check_openapi_v3_schema(json::parse(text), "s")) << text;
}

}  // namespace
}  // namespace kubesim::crd
