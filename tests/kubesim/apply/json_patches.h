// kube-sim: JSON patch (RFC 6902, application/json-patch+json) and JSON merge patch
// (RFC 7386, application/merge-patch+json), applied by nlohmann::json, with the answers
// kube-apiserver's jsonPatcher gives when they fail.
//
// Pure functions; thread-compatible. Errors are thrown as ApiError.
#pragma once

#include <nlohmann/json.hpp>

#include <cstddef>

namespace kubesim::apply {

// kube-apiserver's maxJSONPatchOperations.
inline constexpr size_t kMaxJsonPatchOperations = 10000;

// Applies the operations `ops` to `target` (all or nothing). Errors as the server:
//  - `ops` is not an array of objects (jsonpatch.DecodePatch fails): 400 BadRequest with
//    the decoder's message ("json: cannot unmarshal object into Go value of type
//    jsonpatch.Patch");
//  - more than kMaxJsonPatchOperations: 413 RequestEntityTooLarge;
//  - an operation that does not apply (missing path, failed `test`, unknown op, bad
//    pointer): 422 Invalid, "the server rejected our request due to an error in our
//    request" (NewGenericServerResponse keeps no more than that).
nlohmann::json apply_json_patch(const nlohmann::json& target, const nlohmann::json& ops);

// Applies merge patch `patch` to `target`. A patch that is not a JSON object (null, a
// scalar, an array) is 400 BadRequest "Invalid JSON Patch", as jsonpatch.MergePatch's
// ErrBadJSONPatch, because the result could not be an object.
nlohmann::json apply_merge_patch(const nlohmann::json& target, const nlohmann::json& patch);

}  // namespace kubesim::apply
