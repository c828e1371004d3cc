// JSON patch and merge patch on nlohmann::json, mapped to kube-apiserver's statuses
// (staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go: jsonPatcher.applyJSPatch).
#include "kubesim/apply/json_patches.h"

#include "kubesim/api_error.h"

#include <string>

namespace kubesim::apply {

using nlohmann::json;

namespace {

// How Go's encoding/json names a JSON value's kind in an UnmarshalTypeError.
std::string go_kind(const json& v) {
  if (v.is_object()) return "object";
  if (v.is_array()) return "array";
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "bool";
  return "number";
}

}  // namespace

json apply_json_patch(const json& target, const json& ops) {
  if (ops.is_null()) return target;  // decodes as an empty patch
  if (!ops.is_array())
    throw ApiError::bad_request("json: cannot unmarshal " + go_kind(ops) + " into Go value of type jsonpatch.Patch");
  for (const json& op : ops) {
    if (!op.is_object() && !op.is_null())
      throw ApiError::bad_request("json: cannot unmarshal " + go_kind(op) +
                                  " into Go value of type jsonpatch.Operation");
  }
  if (ops.size() > kMaxJsonPatchOperations)
    throw ApiError(413, "RequestEntityTooLarge",
                   "Request entity too large: The allowed maximum operations in a JSON patch is " +
                       std::to_string(kMaxJsonPatchOperations) + ", got " + std::to_string(ops.size()));
  try {
    return target.patch(ops);
  } catch (const std::exception&) {
    // A failed test, a missing path, an unknown op, a bad pointer: the generic 422.
    throw ApiError(422, "Invalid", "the server rejected our request due to an error in our request",
                   json::object());
  }
}

json apply_merge_patch(const json& target, const json& patch) {
  if (!patch.is_object()) throw ApiError::bad_request("Invalid JSON Patch");
  json result = target;
  result.merge_patch(patch);
  return result;
}

}  // namespace kubesim::apply
