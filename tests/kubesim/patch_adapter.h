// kube-sim: the one place where request bodies meet kube-sim's patch and apply code
// (tests/kubesim/apply/: JSON patch, merge patch, strategic merge, server-side apply over
// merge types read from the OpenAPI document or a CRD's schema; cluster/quantity.h for
// canonical quantities). The rest of the simulator calls only these functions.
// All functions throw ApiError with the status the real server gives.
#pragma once

#include "kubesim/resource_registry.h"

#include <nlohmann/json.hpp>

#include <string>

namespace kubesim::patch {

// RFC 7386; a patch that is not an object is 400.
nlohmann::json merge(const nlohmann::json& target, const nlohmann::json& patch);
// RFC 6902; failures -> 422 (an operation that does not apply) or 400 (malformed operations).
nlohmann::json json_patch(const nlohmann::json& target, const nlohmann::json& ops);
// Strategic merge for built-in kinds (lists merged by their patchMergeKey).
nlohmann::json strategic(const ResourceType& t, const nlohmann::json& target, const nlohmann::json& patch);

// Server-side apply: merges `applied` into `current` (nullptr: create) for `manager`,
// updates metadata.managedFields, removes fields the manager no longer applies and
// nobody else owns. Throws 409 Conflict with FieldManagerConflict causes unless `force`.
// `subresource` "status": an apply to /status (owns only .status; the managedFields entry
// says subresource "status").
nlohmann::json apply(const ResourceType& t, const nlohmann::json* current, const nlohmann::json& applied,
                     const std::string& manager, bool force, const std::string& subresource = "");
// Records an Update operation: `manager` owns the fields it changed from `before`
// (nullptr on create) to `after`; managedFields of `after` are rewritten.
void record_update(const ResourceType& t, const nlohmann::json* before, nlohmann::json& after,
                   const std::string& manager, const std::string& subresource);

// Canonical form of a resource quantity ("1000m" -> "1", "1024Mi" -> "1Gi").
// Returns the input unchanged if it does not parse (validation reports it).
std::string canonical_quantity(const std::string& q);

}  // namespace kubesim::patch
