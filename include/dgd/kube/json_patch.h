// RFC 6902 JSON patch (PATCH with Content-Type application/json-patch+json).
//
// Pure function on nlohmann::json; no I/O, thread-compatible.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "dgd/kube/merge_patch.h"  // PatchError

namespace dgd::kube {

// Applies the operations of `patch` (a JSON array) to a copy of `document` in
// order and returns the result; the input is never modified, and a failure
// leaves nothing half-applied (all-or-nothing).
//
// Supports add, remove, replace, move, copy, test; JSON pointers with `~0`
// (`~`) and `~1` (`/`) escapes; `-` as "past the end" of an array for add,
// move and copy targets. `test` compares by JSON value (1 == 1.0).
//
// Throws PatchError, with the status codes kube-apiserver uses (its
// jsonPatcher: DecodePatch failure -> 400, Apply failure -> 422):
//   kMalformed  the body is not a JSON array of objects        -> 400
//   kTooLarge   more than kMaxJsonPatchOperations operations    -> 413
//   kInvalid    an op cannot be applied: unknown op, missing
//               path/value/from, bad pointer, missing key or
//               parent, index out of range, move into own child -> 422
//   kTestFailed a `test` op did not match                       -> 422
// with op_index() and path() set to the failing operation.
nlohmann::json apply_json_patch(const nlohmann::json& document, const nlohmann::json& patch);

// kube-apiserver's maxJSONPatchOperations.
inline constexpr size_t kMaxJsonPatchOperations = 10000;

// Evaluates a JSON pointer (RFC 6901) against `document`; nullptr when the
// pointer does not resolve. Throws PatchError(kInvalid) on a pointer that
// does not start with '/' (except "") or holds a bad `~` escape.
const nlohmann::json* resolve_json_pointer(const nlohmann::json& document, std::string_view pointer);

}  // namespace dgd::kube
