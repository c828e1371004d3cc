// kube-sim: strategic merge patch (Content-Type application/strategic-merge-patch+json) for
// built-in kinds, after apimachinery's pkg/util/strategicpatch in the server's mode
// (MergeParallelList, IgnoreUnmatchedNulls), with merge keys and strategies read from the
// OpenAPI document (merge_schema.h: x-kubernetes-patch-strategy, x-kubernetes-patch-merge-key).
//
// Pure function; thread-compatible.
#pragma once

#include "kubesim/apply/merge_schema.h"

#include <nlohmann/json.hpp>

namespace kubesim::apply {

// Applies `patch` to `original` and returns the result (inputs untouched):
//  - objects merge key by key; `null` deletes the key; a field with patchStrategy
//    "replace" takes the patch value whole;
//  - lists whose field has patchStrategy merge merge: maps by the patchMergeKey (the item
//    with the same key is merged recursively, new items are added), scalars as a union;
//    every other list is replaced by the patch list;
//  - directives: `$patch: replace|delete` in an object, `{"$patch":"replace"}` or
//    `{"<key>":v,"$patch":"delete"}` as list items, `$retainKeys: [...]`,
//    `$deleteFromPrimitiveList/<field>: [...]`, `$setElementOrder/<field>: [...]` (order of
//    the result: $setElementOrder > patch order > live order). Directives never appear in
//    the result.
// Throws ApiError: 400 when the patch is not an object; 422 for an unknown $patch value,
// a list item without its merge key, a $retainKeys list that misses a patched field, and
// the like.
nlohmann::json apply_strategic_merge_patch(const nlohmann::json& original, const nlohmann::json& patch,
                                           const TypeRef& schema);

}  // namespace kubesim::apply
