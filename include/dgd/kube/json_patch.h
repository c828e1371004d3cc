// RFC 6902 JSON patch (PATCH with Content-Type application/json-patch+json).
//
// Pure function on nlohmann::json; no I/O, thread-compatible.
#pragma once

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
// Throws PatchError:
//   kMalformed  the patch is not an array of objects, an op is unknown, a
//               required member (path, value, from) is missing or a pointer is
//               syntactically bad  -> kube-apiserver answers 400 BadRequest
//   kInvalid    an op cannot be applied (missing key or parent, index out of
//               range, move into own child)  -> 422 (apiserver's
//               NewGenericServerResponse(422) around the json-patch library error)
//   kTestFailed a `test` op did not match  -> also 422 on kube-apiserver
// with op_index() and path() set to the failing operation.
nlohmann::json apply_json_patch(const nlohmann::json& document, const nlohmann::json& patch);

// Evaluates a JSON pointer (RFC 6901) against `document`; nullptr when the
// pointer does not resolve. Throws PatchError(kMalformed) on a pointer that
// does not start with '/' (except "") or holds a bad `~` escape.
const nlohmann::json* resolve_json_pointer(const nlohmann::json& document, std::string_view pointer);

}  // namespace dgd::kube
