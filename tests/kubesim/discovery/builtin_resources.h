// kube-sim: the built-in resources of a Kubernetes 1.32 API server, derived from the
// embedded OpenAPI document (openapi/swagger_document.h).
//
// The document's `paths` give every group/version/resource: its scope (a path under
// namespaces/{namespace}), its verbs (x-kubernetes-action of each path and method, a
// watch path for `watch`), its subresources (/status, /scale, /log, /exec, ...) and the
// kinds (x-kubernetes-group-version-kind). What the document lacks (short names,
// categories, the storage version behind storageVersionHash, the group order of
// /apis) comes from a table of the 1.32 values (builtin_resources.cpp, with sources).
//
// Served are the group versions a default 1.32 server enables (GA ones; alpha and beta
// APIs are off by default since 1.24) plus resource.k8s.io/v1beta1, as on a cluster
// with DynamicResourceAllocation enabled (what NVIDIA's DRA driver needs).
#pragma once

#include "kubesim/resource_registry.h"

#include <string>
#include <vector>

namespace kubesim::discovery {

// Every served built-in resource, one ResourceType per group/version/resource, in the
// order discovery lists them (groups by the apiserver's priority, resources by name).
std::vector<ResourceType> builtin_resource_types();

// The groups of a 1.32 server in the order /apis lists them (kube-aggregator's
// apiVersionPriorities), core ("") first.
const std::vector<std::string>& builtin_group_order();

// discovery.StorageVersionHash: base64 of the first 8 bytes of sha256("group/version/Kind").
std::string storage_version_hash(const std::string& group, const std::string& version, const std::string& kind);

}  // namespace kubesim::discovery
