// RFC 7386 JSON merge patch, and the error type shared by every patch flavour
// of this part (merge, JSON, strategic merge, apply).
//
// Pure functions on nlohmann::json; no I/O, thread-compatible.
#pragma once

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

namespace dgd::kube {

// PatchError is thrown when a patch document is ill-formed or cannot be applied.
// path() is the JSON pointer ("/spec/replicas") or field path (".spec.replicas")
// that failed, op_index() the 0-based index of the failing JSON-patch operation
// (-1 for other patch types). http_status() is what kube-apiserver answers.
class PatchError : public std::runtime_error {
 public:
  enum class Code {
    kMalformed,   // the patch itself is not a valid document of its type: 400 BadRequest
    kInvalid,     // well-formed but cannot be applied (missing path, bad directive): 422 Invalid
    kTestFailed,  // a JSON-patch `test` op did not match: 422 Invalid (as kube-apiserver)
    kTooLarge,    // more JSON-patch operations than the apiserver accepts: 413
  };

  PatchError(Code code, std::string path, const std::string& message, int op_index = -1);

  Code code() const { return code_; }
  const std::string& path() const { return path_; }
  int op_index() const { return op_index_; }
  // 400 for kMalformed, 413 for kTooLarge, 422 otherwise.
  int http_status() const;

 private:
  Code code_;
  std::string path_;
  int op_index_;
};

// Applies `patch` to `target` by RFC 7386: an object patch merges key by key
// recursively, a null value deletes its key, any other value (arrays included)
// replaces. A non-object patch replaces the whole target. Never throws.
nlohmann::json apply_merge_patch(const nlohmann::json& target, const nlohmann::json& patch);

// Returns the smallest merge patch P with apply_merge_patch(from, P) == to.
// Removed keys become null; changed arrays and scalars are carried whole.
// Caveat (inherent to RFC 7386): a null VALUE inside `to` cannot be expressed.
nlohmann::json create_merge_patch(const nlohmann::json& from, const nlohmann::json& to);

}  // namespace dgd::kube
