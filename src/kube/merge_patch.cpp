#include "dgd/kube/merge_patch.h"

namespace dgd::kube {

using nlohmann::json;

PatchError::PatchError(Code code, std::string path, const std::string& message, int op_index)
    : std::runtime_error(message), code_(code), path_(std::move(path)), op_index_(op_index) {}

int PatchError::http_status() const {
  switch (code_) {
    case Code::kMalformed: return 400;
    case Code::kTooLarge: return 413;
    default: return 422;
  }
}

json apply_merge_patch(const json& target, const json& patch) {
  if (!patch.is_object()) return patch;
  json result = target.is_object() ? target : json::object();
  for (const auto& [key, value] : patch.items()) {
    if (value.is_null()) {
      result.erase(key);
      continue;
    }
    auto it = result.find(key);
    result[key] = apply_merge_patch(it == result.end() ? json() : *it, value);
  }
  return result;
}

json create_merge_patch(const json& from, const json& to) {
  if (!from.is_object() || !to.is_object()) return to;
  json patch = json::object();
  for (const auto& [key, value] : from.items()) {
    if (!to.contains(key)) patch[key] = nullptr;
  }
  for (const auto& [key, value] : to.items()) {
    auto it = from.find(key);
    if (it == from.end()) {
      patch[key] = value;
    } else if (*it != value) {
      if (it->is_object() && value.is_object()) {
        patch[key] = create_merge_patch(*it, value);
      } else {
        patch[key] = value;
      }
    }
  }
  return patch;
}

}  // namespace dgd::kube
