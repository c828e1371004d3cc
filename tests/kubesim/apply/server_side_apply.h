// kube-sim: server-side apply and field ownership (metadata.managedFields), as the API
// server's fieldmanager and structured-merge-diff do them, over the merge types of
// merge_schema.h.
//
// Ownership is a FieldSet per manager (field_set.h). Managers are identified by
// (manager, operation, subresource) and, for Update, apiVersion, as upstream's
// BuildManagerIdentifier. Never owned (stripMetaManager): apiVersion, kind,
// metadata.{name, namespace, uid, resourceVersion, generation, creationTimestamp,
// selfLink, managedFields}, and here also deletionTimestamp and
// deletionGracePeriodSeconds (set only by the server). With `status_subresource`, a write
// to the main resource neither owns nor changes .status, and a write to "status" owns only
// .status (the reset fields).
// A write owns the maps, lists and structs it creates themselves (the "." of FieldsV1) where
// the object before it had nothing, not even null, as structured-merge-diff's Compare adds
// them; a create starts from the kind's Go zero value (go_zero_object.h), which holds the
// non-pointer structs. Not modelled: the cap of 10 Update managers ("ancient-changes"),
// unions, conversion between API versions (all entries are treated as one version).
//
// Pure functions; thread-compatible. Errors are thrown as ApiError.
#pragma once

#include "kubesim/apply/merge_schema.h"

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kubesim::apply {

// One field another manager owns with a different value.
struct FieldConflict {
  std::string manager;      // e.g. "kubectl-client-side-apply"
  std::string operation;    // "Apply" or "Update"
  std::string api_version;  // of the owning entry (printed for Update)
  std::string subresource;  // "" or "status"
  std::string field;        // .spec.replicas, .spec.containers[name="c"].image, .metadata.finalizers[="f"]
  // `conflict with "kubectl" using apps/v1` (the StatusCause message).
  std::string message() const;
};

struct ApplyOptions {
  std::string manager;              // fieldManager; required
  bool force = false;               // take ownership of conflicting fields
  std::string subresource;          // "" (main resource) or "status"
  bool status_subresource = false;  // the kind has a status subresource
  std::string time;                 // managedFields time, RFC 3339
};

struct ApplyResult {
  // On success: the merged object with metadata.managedFields updated. On conflict: `live`.
  nlohmann::json object;
  std::vector<FieldConflict> conflicts;  // non-empty -> 409, see conflict_status()
  bool ok() const { return conflicts.empty(); }
};

// Applies `applied` (the request body) for options.manager over `live` (null: create).
// Maps and structs merge by field, associative lists by key, sets as unions, atomics are
// replaced. Fields this manager applied last time and now omits are removed unless another
// manager owns them. A field owned by another manager whose value would change is a
// conflict unless `force` (then ownership moves); applying an identical value shares
// ownership. Quantities are canonicalized first (the server decodes them before merging).
// Upstream special cases kept: manager "kubectl" may take over fields recorded in a
// matching kubectl.kubernetes.io/last-applied-configuration annotation without conflict
// (the client-side to server-side apply upgrade) and keeps that annotation in sync; a live
// object without managedFields is first attributed to manager "before-first-apply".
// Throws ApiError 422 for an applied body that is not an object, list items missing a key
// field or duplicated, a kind differing from live, an empty manager; 400 for a bad quantity.
ApplyResult server_side_apply(const nlohmann::json& live, const nlohmann::json& applied, const TypeRef& type,
                              const ApplyOptions& options);

struct UpdateOptions {
  std::string manager;  // fieldManager, or the user-agent derived default
  std::string operation = "Update";
  std::string subresource;  // "" or "status"
  bool status_subresource = false;
  std::string time;  // RFC 3339
};

// Records a non-apply write of `updated` over `old` (null: create): fields added or changed
// move to options.manager, removed fields leave every set; never a conflict. Returns
// `updated` with metadata.managedFields rewritten. managedFields carried by `updated` that
// differ from old's are taken as given first (as the API server allows); `managedFields:
// [{}]` resets them.
nlohmann::json record_update(const nlohmann::json& old, nlohmann::json updated, const TypeRef& type,
                             const UpdateOptions& options);

// The 409 Status kube-apiserver returns for `conflicts`: reason Conflict, message
// "Apply failed with N conflict(s): ...", details.causes[] {reason: FieldManagerConflict,
// message, field}.
nlohmann::json conflict_status(const std::vector<FieldConflict>& conflicts);

// The FieldsV1 set an Apply of `object` would own, server-managed fields stripped.
nlohmann::json fields_v1_of(const nlohmann::json& object, const TypeRef& type);

}  // namespace kubesim::apply
