// kube-sim: how the fields of an object merge, read from Kubernetes' own schema.
//
// The model is structured-merge-diff's (`schema.Atom` / `schema.TypeRef`), built the way
// kube-openapi's schemaconv.ToSchemaFromOpenAPI builds it from OpenAPI definitions:
//  - built-in kinds from the embedded Kubernetes 1.32 document (openapi/swagger_document.h),
//    following `$ref`s (named types are shared, so recursive types such as JSONSchemaProps
//    are fine); custom resources from their CRD's `openAPIV3Schema`, with `metadata` as the
//    document's ObjectMeta and `apiVersion`/`kind` strings, as the apiextensions server does;
//  - lists: `x-kubernetes-list-type` atomic | set | map (+ `x-kubernetes-list-map-keys`);
//    without it, `x-kubernetes-patch-strategy` merge (or merge,retainKeys) makes a map keyed
//    by `x-kubernetes-patch-merge-key`, or a set when there is no key; otherwise atomic;
//  - objects: granular unless `x-kubernetes-map-type: atomic` (on the type or on the `$ref`
//    that uses it); `properties` are struct fields; `additionalProperties` (or none at all,
//    or `x-kubernetes-preserve-unknown-fields`) give the type of the other keys, deduced
//    from the value when untyped;
//  - no `type`: untyped (scalar, list or map, decided by the value); Quantity and
//    RawExtension are untyped scalars; a list without `items` holds untyped atomic values.
// Strategic merge patch reads the same document: each position also carries the
// `x-kubernetes-patch-strategy` and `x-kubernetes-patch-merge-key` of the field that leads
// to it.
//
// Graphs are built once and never change; every function is thread-safe. A position the
// schema does not describe (an unknown field) is deduced, as for schemaless data.
#pragma once

#include <nlohmann/json.hpp>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace kubesim {
struct ResourceType;
}

namespace kubesim::apply {

enum class ListType { atomic, set, map };

struct Atom;

// A position in an object: the type found there and what the referring field adds.
struct TypeRef {
  const Atom* atom = nullptr;
  // x-kubernetes-map-type written next to a `$ref` (it overrides the named type's).
  std::optional<bool> map_atomic_override;
  // The field's `default` (structured-merge-diff uses it for omitted list-map keys).
  nlohmann::json default_value;
  // Strategic merge patch metadata of the field: "merge", "retainKeys",
  // "merge,retainKeys", "replace" or "".
  std::string patch_strategy;
  std::string patch_merge_key;

  // --- as structured-merge-diff sees the value here.
  bool allows_scalar() const;
  bool allows_list() const;
  bool allows_map() const;
  ListType list_type() const;
  const std::vector<std::string>& list_keys() const;
  bool map_atomic() const;
  bool quantity() const;
  // Type of a map entry / struct field `name` (deduced when the schema has none). The
  // reference lives as long as the graph of this type.
  const TypeRef& field(const std::string& name) const;
  // True when `name` is a declared struct field, false for a map entry.
  bool is_struct_field(const std::string& name) const;
  // Type of list items.
  const TypeRef& item() const;
  // Default of list-map key field `key` of the items, if the schema gives one.
  std::optional<nlohmann::json> key_default(const std::string& key) const;

  // --- as strategic merge patch sees the field.
  bool patch_merge() const;  // "merge" or "merge,retainKeys"
  bool patch_replace() const;
};

// One type: what structured-merge-diff calls an Atom. An untyped atom allows every shape.
struct Atom {
  std::string name;  // definition name, or "" when inline
  bool scalar = false;
  bool list = false;
  bool map = false;
  bool quantity = false;  // io.k8s.apimachinery.pkg.api.resource.Quantity

  ListType list_type = ListType::atomic;
  std::vector<std::string> list_keys;
  TypeRef list_element;

  bool map_atomic = false;
  std::map<std::string, TypeRef> fields;
  std::optional<TypeRef> map_values;  // type of keys that are not fields; none: no other keys
};

// A set of atoms that reference one another (a whole OpenAPI document or one CRD schema).
class TypeGraph;

// The deduced type of schemaless data: maps granular (entries deduced), lists atomic.
TypeRef deduced();

// The root type of a built-in kind, from the embedded document; nullopt when the document
// does not define group/version/kind.
std::optional<TypeRef> builtin_type(const std::string& group, const std::string& version, const std::string& kind);

// A named definition of the embedded document ("io.k8s.api.core.v1.PodSpec"); nullopt if absent.
std::optional<TypeRef> definition_type(const std::string& name);

// The root type of an object together with the graph that owns its atoms (the
// document's graph lives for the whole process; a CRD's as long as someone holds it).
struct RootType {
  std::shared_ptr<const TypeGraph> graph;
  TypeRef root;
};

// The root type of a custom resource whose version has `openapi_v3` as its
// openAPIV3Schema (null: schemaless, everything deduced but metadata).
RootType custom_resource_type(const nlohmann::json& openapi_v3);

// The merge type of objects of `t`: built-in kinds from the document (kinds it lacks, such
// as resource.k8s.io/v1beta1 in 1.32, are deduced with the document's ObjectMeta), custom
// resources from their schema. Cached per type and schema.
RootType type_of(const ResourceType& t);

}  // namespace kubesim::apply
