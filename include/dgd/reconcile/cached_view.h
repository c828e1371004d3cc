// Views of cached objects: what a reader needs of an informer's cached object (its compact
// JSON text, runtime/store.h), parsed into a plain json value that holds only the fields
// named by a runtime::FieldProjection. The text is read by the same projection the caches
// use (one scanner, CachedObject::from_text), so no reader searches or cuts JSON text
// itself and nothing depends on the order of keys. Pure.
#pragma once

#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

#include "dgd/runtime/store.h"

namespace dgd::reconcile {

// `text` parsed with apiVersion, kind, metadata and the fields `keep` names; nullopt when
// `text` is not a JSON object. An empty projection keeps everything.
std::optional<nlohmann::json> read_projected(std::string_view text, const runtime::FieldProjection& keep);

// A DGD without its spec: what a status pass reads (status).
const runtime::FieldProjection& dgd_head_fields();
// A DGD's status conditions only: what a node event asks of every DGD (placement_pending).
const runtime::FieldProjection& dgd_conditions_fields();
// A child without its pod template: what a status reads of a Deployment or a Job
// (spec.replicas, spec.backoffLimit, status). A reader of another field of a cached
// Deployment or Job in a status must add it here: the reconciler's tests read children
// through this projection and compare passes with and without the memo.
const runtime::FieldProjection& child_status_fields();

// False when `after` differs from `before` (two cached states of one DGD) only in status
// or metadata.resourceVersion: the echo of a status write. A change of spec, labels,
// annotations, generation, deletionTimestamp, finalizers or uid makes it true, as does a
// text that is not a JSON object. Key order does not matter.
bool changed_outside_status(std::string_view before, std::string_view after);

}  // namespace dgd::reconcile
