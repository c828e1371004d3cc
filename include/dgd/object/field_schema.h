// FieldSchema: how the operator expects the fields of a Kubernetes object to merge,
// per path, for holds_desired (desired_state.h), strategic merge of pod templates and
// quantity canonicalization. The tables are the operator's own; kube-sim derives its
// merge types from Kubernetes' OpenAPI document instead, so that the one judges the other.
//
// One tree node per field. A list node says whether the list is atomic
// (replaced whole), a set of scalars, or a map keyed by some item fields
// (server-side apply's x-kubernetes-list-type), and separately what strategic
// merge patch uses (patchMergeKey / patchStrategy, which differ for a few
// fields such as container ports). An object node is either a struct (named
// fields) or a string-keyed map (labels, resources.limits, ...). Paths not in
// the tree get the defaults: lists atomic, objects granular structs; that is
// exactly how the apiserver treats schemaless custom-resource data.
//
// Schemas are immutable after construction and safe to share across threads.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace dgd::object {

class FieldSchema {
 public:
  enum class ListType { kAtomic, kSet, kMap };
  enum class MapType { kGranular, kAtomic };

  // --- list semantics (apply). Meaningful when the value is an array.
  ListType list_type = ListType::kAtomic;
  // Item fields identifying an item of a kMap list, e.g. {"containerPort", "protocol"}.
  std::vector<std::string> list_keys;
  // Values assumed for key fields an item omits (e.g. protocol -> "TCP"), as the
  // apiserver does for defaulted map keys.
  std::map<std::string, nlohmann::json> list_key_defaults;

  // --- list semantics (strategic merge patch).
  // patchStrategy "merge": lists of maps merge by `patch_merge_key`, lists of
  // scalars are unions. Otherwise the patch list replaces the live one.
  bool patch_merge = false;
  std::string patch_merge_key;

  // --- object semantics.
  MapType map_type = MapType::kGranular;
  // True for a string-keyed map (Go map type): its entries are owned one by one
  // and, in built-in kinds, an empty map is not stored (omitempty).
  bool is_map = false;
  // Value is a resource.Quantity (canonicalized on write, compared canonically).
  bool quantity = false;

  // Named fields of a struct, or nothing.
  std::map<std::string, std::shared_ptr<const FieldSchema>> fields;
  // Schema of list items, or of the values of an is_map object.
  std::shared_ptr<const FieldSchema> elements;

  // Root only: the object is a compiled-in kind stored as a typed Go struct, so
  // the server drops empty lists and empty maps (is_map) instead of storing them.
  bool typed = false;

  // Schema of field `name` of this object: the named field if declared, else
  // the map-value schema if is_map, else the empty default. Never null.
  const FieldSchema& field(std::string_view name) const;
  // Schema of the items of this list (the empty default when not declared).
  const FieldSchema& items() const;
  // The shared empty default (atomic lists, granular struct objects).
  static const FieldSchema& unknown();

  // Converts an OpenAPI v3 schema (a CRD version's `schema.openAPIV3Schema`):
  // x-kubernetes-list-type atomic|set|map (default atomic), x-kubernetes-list-map-keys,
  // x-kubernetes-map-type granular|atomic, properties -> fields,
  // additionalProperties -> is_map + elements, items -> elements. Unknown or
  // missing input gives the default node. Never throws on odd input.
  static FieldSchema from_openapi_v3(const nlohmann::json& schema);
  // from_openapi_v3 for a whole custom resource: adds the standard ObjectMeta
  // node (labels, annotations, finalizers set, ownerReferences by uid, ...).
  // `openapi_v3` may be null (schemaless).
  static FieldSchema custom_resource(const nlohmann::json& openapi_v3);
};

// Built-in schema of a compiled-in kind (group "" for core), or nullptr for a
// kind this project does not know (custom resources: use custom_resource()).
// Known: Pod, PodTemplate, Service, ConfigMap, Secret, ServiceAccount,
// PersistentVolumeClaim, Namespace, Node, Event (core and events.k8s.io),
// Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, Lease, Role, ClusterRole,
// RoleBinding, ClusterRoleBinding, CustomResourceDefinition, ResourceClaimTemplate.
const FieldSchema* builtin_schema(std::string_view group, std::string_view kind);

// Schema for `apiVersion` + `kind` of `object` ("apps/v1" -> group "apps"):
// the built-in one if known, else the schemaless custom-resource default.
const FieldSchema& schema_for_object(const nlohmann::json& object);

// Sub-schemas, for callers that merge fragments (the renderer merges a user's
// podTemplate over operator defaults).
const FieldSchema& pod_spec_schema();
const FieldSchema& pod_template_spec_schema();
const FieldSchema& object_meta_schema();

}  // namespace dgd::object
