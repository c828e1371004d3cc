// kube-sim: a custom resource checked against the structural schema of its CRD version, as
// apiextensions-apiserver does on every write:
//  - prune(): unknown fields dropped (or reported, for fieldValidation=Strict), honouring
//    x-kubernetes-preserve-unknown-fields and x-kubernetes-embedded-resource;
//  - apply_defaults(): `default` of absent properties, and non-nullable nulls without a
//    default dropped (structuraldefaulting);
//  - validate_schema(): kube-openapi's SchemaValidator (type, format, enum, bounds,
//    multipleOf, lengths, pattern with RE2, items, properties, required) with its messages,
//    converted to field errors as apiextensions' kubeOpenAPIResultToFieldErrors does, with
//    ratcheting against the old object on updates (CRDValidationRatcheting, on in 1.32);
//  - validate_list_types(): x-kubernetes-list-type set/map uniqueness (`Duplicate value`);
//  - validate_embedded(): apiVersion/kind/metadata of x-kubernetes-embedded-resource objects.
// Pure functions over nlohmann::json.
#pragma once

#include "kubesim/crd/field_error.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kubesim::crd {

// Removes (prune) or lists (!prune) the fields `schema` does not know, with their paths
// ("spec.x"). `value` is the whole object at the resource root; apiVersion, kind and
// metadata are the caller's.
void prune(const nlohmann::json& schema, nlohmann::json& value, bool resource_root, bool remove,
           std::vector<std::string>& unknown);
void apply_defaults(const nlohmann::json& schema, nlohmann::json& value);
// True when some node of `schema` has a `default`.
bool has_defaults(const nlohmann::json& schema);
// `old` is the correlated old value (nullptr on create). `path` is the field path of `value`
// ("" at the root, "status" for the status subresource).
FieldErrors validate_schema(const nlohmann::json& schema, const nlohmann::json& value, const nlohmann::json* old,
                            const std::string& path);
FieldErrors validate_list_types(const nlohmann::json& schema, const nlohmann::json& value, const std::string& path);
FieldErrors validate_embedded(const nlohmann::json& schema, const nlohmann::json& value, const std::string& path);

// The formats apiextensions keeps for a schema node (StripUnsupportedFormatsPostProcess):
// "" when the format is not validated for its type.
std::string effective_format(const nlohmann::json& schema);

}  // namespace kubesim::crd
