// kube-sim: what a schema of the Kubernetes OpenAPI v2 document says a value is.
//
// Contract: resolve() follows `$ref`s into the document's definitions (swagger_document.h)
// and classifies the schema by what Go's decoder does with a value there: a struct with
// named fields, a map (`additionalProperties`), a list (`items`), a scalar of a given Go
// type, one of apimachinery's types with their own JSON form (int-or-string, quantity,
// time), or anything at all (RawExtension, apiextensions JSON, FieldsV1,
// `x-kubernetes-preserve-unknown-fields`, a schema without a type). It works on the
// inline schemas of CRDs too (no `$ref` there). Nodes point into the document, which
// lives until exit, or into the schema passed in, which must outlive the node.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace kubesim::openapi {

enum class Shape { Struct, Map, List, String, Bytes, Int32, Int64, Float, Bool, IntOrString, Quantity, Time, Any };

struct SchemaNode {
  Shape shape = Shape::Any;
  const nlohmann::json* schema = nullptr;  // the resolved schema; null for Any without one
  std::string definition;                  // the definition reached through `$ref`, if any

  // Struct: the schema of field `name` (unresolved), or nullptr for an unknown field.
  const nlohmann::json* field(const std::string& name) const;
  // Map: the value schema; List: the item schema (nullptr: anything).
  const nlohmann::json* element() const;
  // The Go type as encoding/json names it in errors: "v1.DeploymentSpec", "int32",
  // "[]v1.Container", "map[string]string", "resource.Quantity".
  std::string go_type() const;
  // The Go struct's bare name ("DeploymentSpec"); "" for inline schemas.
  std::string go_struct() const;
};

// Follows `$ref` ("#/definitions/<name>") and classifies.
SchemaNode resolve(const nlohmann::json& schema);
// The node of a definition of the document ("io.k8s.api.apps.v1.Deployment").
SchemaNode resolve_definition(const std::string& name);

}  // namespace kubesim::openapi
