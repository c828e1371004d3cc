// Read-only access into cached Kubernetes objects by a fixed key path (placement, restart):
// a missing key or a value of another type reads as null / "" instead of throwing, as
// fields of pods, nodes and Deployments may be absent.
#pragma once

#include <initializer_list>
#include <string>

#include <nlohmann/json.hpp>

namespace dgd::reconcile {

// The value at obj[path[0]][path[1]]..., or a null json.
inline const nlohmann::json& at(const nlohmann::json& obj, std::initializer_list<const char*> path) {
  static const nlohmann::json kNull;
  const nlohmann::json* cur = &obj;
  for (const char* k : path) {
    if (!cur->is_object()) return kNull;
    auto it = cur->find(k);
    if (it == cur->end()) return kNull;
    cur = &*it;
  }
  return *cur;
}

// The string at `path`, or "".
inline std::string str(const nlohmann::json& obj, std::initializer_list<const char*> path) {
  const nlohmann::json& v = at(obj, path);
  return v.is_string() ? v.get<std::string>() : std::string();
}

// An extended resource (nvidia.com/gpu, rdma/ib, ...), as opposed to the built-in ones.
inline bool is_extended(const std::string& resource) {
  return resource != "cpu" && resource != "memory" && resource != "ephemeral-storage" && resource != "pods";
}

}  // namespace dgd::reconcile
