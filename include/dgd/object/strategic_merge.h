// Strategic merge for the operator: a user's podTemplate over the operator's defaults
// (render, recipes), with the merge keys of the operator's field schemas, following
// apimachinery's pkg/util/strategicpatch (MergeParallelList, IgnoreUnmatchedNulls).
//
// Pure functions on nlohmann::json; no I/O, thread-compatible.
#pragma once

#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "dgd/object/field_schema.h"

namespace dgd::object {

// PatchError is thrown when a patch document is ill-formed or cannot be applied.
// path() is the field path (".spec.containers") that failed.
class PatchError : public std::runtime_error {
 public:
  enum class Code {
    kMalformed,  // the patch itself is not an object: 400 BadRequest for a server
    kInvalid,    // well-formed but cannot be applied (missing merge key, bad directive)
  };

  PatchError(Code code, std::string path, const std::string& message);

  Code code() const { return code_; }
  const std::string& path() const { return path_; }
  // 400 for kMalformed, 422 otherwise.
  int http_status() const;

 private:
  Code code_;
  std::string path_;
};

// Applies `patch` to `original` and returns the result (inputs untouched).
//  - objects merge key by key; `null` deletes the key;
//  - lists with patch_merge (schema) merge: maps by patch_merge_key (the item
//    with the same key is merged recursively, new items are added), scalars as
//    a union; every other list is replaced by the patch list;
//  - directives: `$patch: replace|delete` in an object, `{"$patch":"replace"}`
//    or `{"<key>":v,"$patch":"delete"}` as list items, `$retainKeys: [...]`,
//    `$deleteFromPrimitiveList/<field>: [...]`, `$setElementOrder/<field>: [...]`
//    (order of the result: $setElementOrder > patch order > live order).
//    Directives never appear in the result.
// Throws PatchError: kMalformed when the patch is not an object;
// kInvalid for an unknown $patch value, a list item without its merge key,
// a $retainKeys list that misses a patched field, and the like.
nlohmann::json apply_strategic_merge_patch(const nlohmann::json& original,
                                           const nlohmann::json& patch,
                                           const FieldSchema& schema);

// Merges `overlay` over `base` with the schema's merge keys: the operation the
// renderer uses to put a user's podTemplate over operator defaults. Same rules
// as apply_strategic_merge_patch (overlay may use the directives, e.g.
// `$patch: delete` to drop a default container); overlay wins on scalars.
nlohmann::json strategic_merge(const nlohmann::json& base, const nlohmann::json& overlay,
                               const FieldSchema& schema);

}  // namespace dgd::object
