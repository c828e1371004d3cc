// kube-sim: strategic merge patch (Content-Type application/strategic-merge-patch+json) of
// built-in kinds, as kube-apiserver 1.32 applies it (apimachinery strategicpatch with
// MergeParallelList and IgnoreUnmatchedNulls). Patch strategies and merge keys come from the
// Kubernetes OpenAPI document (`x-kubernetes-patch-strategy`, `x-kubernetes-patch-merge-key`,
// read through merge_schema.h).
//
// What a patch does:
//  - objects merge key by key; `null` removes a key; a field with strategy "replace" takes the
//    patch value whole; a value the live object lacks (or holds with another type) is taken
//    from the patch without its nulls and without the maps that carry `$patch`;
//  - lists with strategy "merge" merge: objects by their merge key (a matching item merges
//    recursively, a new one is appended as written), scalars as a union; other lists are
//    replaced by the patch list as written;
//  - directives: `$patch: replace | delete` in an object; `{"$patch": "replace"}` and
//    `{<key>: v, "$patch": "delete"}` as items of a merging list; `$retainKeys: [...]`;
//    `$deleteFromPrimitiveList/<field>: [...]`; `$setElementOrder/<field>: [...]`;
//  - order of a merged list: `$setElementOrder` first, then the patch's order, with the items
//    only the live list has placed by their live position.
// Errors carry the library's message and the status the server gives it: 400 BadRequest for
// malformed directives, 422 for lists of lists, otherwise a 500 whose message is the
// library's text (what a real server answers, e.g. for a list item without its merge key).
//
// Pure function; thread-safe.
#pragma once

#include "kubesim/api_error.h"
#include "kubesim/apply/merge_schema.h"

#include <nlohmann/json.hpp>

#include <string>

namespace kubesim::apply {

// A refused patch. what() is the message of the Status the server sends; `library_message`
// is apimachinery's own error text, which a 422 Status does not repeat.
class StrategicMergeError : public ApiError {
 public:
  StrategicMergeError(int code, const std::string& library_message);
  const std::string& library_message() const { return library_message_; }

 private:
  std::string library_message_;
};

// Applies `patch` to `original` (an object of the type `schema`) and returns the result.
// Throws StrategicMergeError; a `patch` that is not a JSON object is a 400 as the server's
// decoder words it.
nlohmann::json apply_strategic_merge_patch(const nlohmann::json& original, const nlohmann::json& patch,
                                           const TypeRef& schema);

}  // namespace kubesim::apply
