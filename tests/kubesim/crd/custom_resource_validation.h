// kube-sim: what apiextensions-apiserver checks when a custom resource is written, and when a
// CRD is written, tied together in the real server's order:
//   create/update (every patch type and server-side apply end here): schema validation,
//   embedded resources, list-type uniqueness, then the x-kubernetes-validations rules unless a
//   blocking error (type, required, enum, too long/many) came first;
//   /status: the status against its schema, then the same list-type and rule checks;
//   CRD create/update: each version's schema structural and valid (structural_schema.h), then
//   every rule must compile.
// Errors are thrown as ApiError (422 Invalid with causes; 500 when the CEL evaluator cannot run).
#pragma once

#include "kubesim/resource_registry.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kubesim::crd {

// Unknown fields of a custom resource: removed (`strict` false) or returned.
std::vector<std::string> prune_unknown_fields(const ResourceType& t, nlohmann::json& obj, bool strict);
// The schema's `default`s, as the server applies them when it decodes an object (from a
// request or from storage).
void apply_schema_defaults(const ResourceType& t, nlohmann::json& obj);
// Whether reads must default stored objects (a schema with `default`s).
bool defaults_on_read(const ResourceType& t);
// `old` is the stored object on an update (nullptr on create).
void validate_custom_resource(const ResourceType& t, const nlohmann::json& obj, const nlohmann::json* old);
void validate_custom_resource_status(const ResourceType& t, const nlohmann::json& obj, const nlohmann::json& old);
// A CustomResourceDefinition being created or updated.
void check_definition(const nlohmann::json& crd);

}  // namespace kubesim::crd
