// Reads of an object's metadata that never throw: a missing or mistyped field reads as
// "", 0 or an empty list. Internal to the reconcile part.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

namespace dgd::reconcile {

inline std::string meta_string(const nlohmann::json& obj, const char* field) {
  if (!obj.is_object()) return "";
  auto m = obj.find("metadata");
  if (m == obj.end() || !m->is_object()) return "";
  auto f = m->find(field);
  return f != m->end() && f->is_string() ? f->get<std::string>() : "";
}

inline int64_t generation_of(const nlohmann::json& obj) {
  if (!obj.is_object()) return 0;
  auto m = obj.find("metadata");
  if (m == obj.end() || !m->is_object()) return 0;
  auto g = m->find("generation");
  return g != m->end() && g->is_number_integer() ? g->get<int64_t>() : 0;
}

// metadata.ownerReferences, or an empty array.
inline const nlohmann::json& owner_refs(const nlohmann::json& obj) {
  static const nlohmann::json kNone = nlohmann::json::array();
  if (!obj.is_object()) return kNone;
  auto m = obj.find("metadata");
  if (m == obj.end() || !m->is_object()) return kNone;
  auto refs = m->find("ownerReferences");
  return refs != m->end() && refs->is_array() ? *refs : kNone;
}

inline bool has_controller_ref(const nlohmann::json& obj) {
  for (const auto& r : owner_refs(obj)) {
    if (r.is_object() && r.value("controller", false)) return true;
  }
  return false;
}

// A placeholder ownerReference (render's, uid "") waiting for the DGD's uid.
inline bool has_owner_placeholder(const nlohmann::json& obj) {
  for (const auto& r : owner_refs(obj)) {
    if (r.is_object() && r.value("uid", "").empty()) return true;
  }
  return false;
}

}  // namespace dgd::reconcile
