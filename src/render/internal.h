// Helpers shared by the render sources: child names, ownership placeholder, env lists.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dgd/api/dgd.h"

namespace dgd::render::detail {

using nlohmann::json;

// Names of graph-level children (upstream's where upstream has them).
std::string service_account_name(const std::string& dgd);  // <dgd>-k8s-service-discovery
std::string role_name(const std::string& dgd);            // <dgd>-k8s-service-discovery-role
std::string role_binding_name(const std::string& dgd);     // <dgd>-k8s-service-discovery-binding
std::string compute_domain_name(const std::string& dgd);   // <dgd>-compute-domain
std::string claim_template_name(const std::string& dgd);   // <dgd>-compute-domain-channel
std::string sglang_config_map_name(const std::string& dgd); // <dgd>-sglang-config
inline constexpr const char* kComputeDomainClaim = "compute-domain-channel";
inline constexpr const char* kSglangConfigVolume = "sglang-config";
inline constexpr const char* kSharedMemoryVolume = "shared-memory";

// Key of a component's file in the SGLang ConfigMap: "<type>.yaml" ("worker.yaml",
// "prefill.yaml", "decode.yaml") when no other SGLang engine component of the graph has
// the same type, else "<lowercase component name>.yaml".
std::string sglang_config_key(const api::Dgd& graph, const api::Component& component);

// The namespace children are rendered into.
std::string namespace_of(const api::Dgd& graph, const std::string& default_namespace);

// Labels every child of the graph carries, and those of one component's children.
json graph_labels(const api::Dgd& graph);
json component_labels(const api::Dgd& graph, const api::Component& c, const std::string& ns);

// metadata {name, namespace, labels, ownerReferences: [placeholder]}.
json child_metadata(const api::Dgd& graph, const std::string& name, const std::string& ns,
                   const json& labels, bool owned = true);

// Adds `key: value` to the object `o` in place. Objects built this way skip what the
// initializer-list form costs: a temporary [key, value] array per member, with nested
// values copied out of it.
inline json& put(json& o, const char* key, json value) {
  return o.get_ref<json::object_t&>().insert_or_assign(key, std::move(value)).first->second;
}

// {"name": n, "value": v}.
json env_var(const std::string& name, const std::string& value);
// api::EnvVar → corev1.EnvVar JSON.
json env_json(const api::EnvVar& e);
// Items of `over` replace same-named items of `base`; new ones are appended.
json merge_env(json base, json over);
// The string at obj[key], or "" (no copy).
const std::string& string_at(const json& obj, const char* key);
// Sorts the array in place by the string at `key` (stable).
void sort_by(json& array, const char* key);
// Sorts the array in place by the number at `key` (stable).
void sort_by_number(json& array, const char* key);

// Index of container "main" in podTemplate.spec.containers, creating it when absent.
json& main_container(json& pod_template);

// Framework of the graph's engines (vLLM when unset).
api::BackendFramework framework_of(const api::Dgd& graph);

}  // namespace dgd::render::detail
