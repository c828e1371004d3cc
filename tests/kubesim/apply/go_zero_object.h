// kube-sim: the object kube-apiserver starts a create from, `creater.New(kind)` as JSON: the
// zero value of the kind's Go type, read from Kubernetes' protobuf descriptors
// (protobuf/descriptor_set.h). Struct fields that are not pointers (gogoproto.nullable=false)
// are objects of their own zero fields; pointers, slices and maps are nil: null when the Go
// field has no omitempty (the OpenAPI definition's `required` list), absent otherwise.
// Scalars are left out (their zero values never decide ownership of a container), and so
// are wire types (Time, Quantity, ...). Structured-merge-diff's Compare owns a map or list
// a write creates (the "." of FieldsV1) only where this object has nothing, not even null.
// Thread-safe.
#pragma once

#include <nlohmann/json.hpp>

#include <optional>
#include <string>

namespace kubesim::apply {

// The zero object of built-in kind `kind` of `api_version` ("apps/v1"), without apiVersion
// and kind; nullopt when the descriptors do not know the kind (custom resources, a build
// without descriptors), whose create starts from an empty unstructured object.
std::optional<nlohmann::json> go_zero_object(const std::string& api_version, const std::string& kind);

}  // namespace kubesim::apply
