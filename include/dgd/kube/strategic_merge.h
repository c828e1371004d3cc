// Strategic merge patch (Content-Type application/strategic-merge-patch+json)
// for built-in kinds, following apimachinery's pkg/util/strategicpatch with the
// server's options (MergeParallelList, IgnoreUnmatchedNulls).
//
// Pure functions on nlohmann::json; no I/O, thread-compatible.
#pragma once

#include <nlohmann/json.hpp>

#include "dgd/kube/field_schema.h"
#include "dgd/kube/merge_patch.h"  // PatchError

namespace dgd::kube {

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

}  // namespace dgd::kube
