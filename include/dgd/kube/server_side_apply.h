// Server-side apply and field ownership (metadata.managedFields), as the
// apiserver's fieldmanager + structured-merge-diff do it, for kube-sim and tests.
//
// Ownership is a set of field paths per manager, stored as FieldsV1 tries
// (`f:<field>`, `k:<key json>`, `v:<value json>`, `i:<index>`, `.`).
// Managers are identified by (manager, operation, subresource) and, for
// Update, apiVersion, as upstream does.
//
// Never owned (stripped from every set, as upstream's stripMetaManager):
// apiVersion, kind, metadata.{name, namespace, uid, resourceVersion,
// generation, creationTimestamp, selfLink, managedFields}; we also exclude
// deletionTimestamp and deletionGracePeriodSeconds (set only by the server).
// With `status_subresource`, a write to the main resource neither owns nor
// changes .status, and a write to "status" owns only .status (reset fields).
// Not modelled: the 10-Update-managers cap ("ancient-changes"), unions,
// conversion between API versions (all entries are treated as one version),
// and the "." marker upstream's Update entries carry for a map or list the
// write created (cosmetic: ownership of its entries is recorded).
// Struct vs map: schema nodes with is_map have their entries owned one by
// one; every other object is a struct whose fields are owned, so schemaless
// custom-resource data (no OpenAPI schema) shows no "." on nested objects,
// unlike upstream's deduced schema; a difference in removals follows: when
// an applier drops such an object, fields another manager set inside it
// survive here. CRDs with a structural schema behave as upstream.
//
// Pure functions; no I/O, thread-compatible.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dgd/kube/field_schema.h"
#include "dgd/kube/merge_patch.h"  // PatchError

namespace dgd::kube {

// One field another manager owns with a different value.
struct FieldConflict {
  std::string manager;      // e.g. "kubectl-client-side-apply"
  std::string operation;    // "Apply" or "Update"
  std::string api_version;  // of the owning entry (printed for Update)
  std::string subresource;  // "" or "status"
  std::string field;        // structured-merge-diff path: .spec.replicas,
                            // .spec.containers[name="c"].image, .metadata.finalizers[="f"]
  // `conflict with "kubectl" using apps/v1` (the StatusCause message).
  std::string message() const;
};

struct ApplyOptions {
  std::string manager;              // fieldManager; required
  bool force = false;               // take ownership of conflicting fields
  std::string subresource;          // "" (main resource) or "status"
  bool status_subresource = false;  // the kind has a status subresource
  std::string time;                 // managedFields time, RFC 3339 ("2026-11-30T06:00:00Z")
};

struct ApplyResult {
  // On success: the merged object, metadata.managedFields updated (metadata.name
  // etc. as given; the caller sets uid/resourceVersion/generation). On conflict:
  // `live` unchanged.
  nlohmann::json object;
  std::vector<FieldConflict> conflicts;  // non-empty -> 409, see conflict_status()
  bool ok() const { return conflicts.empty(); }
};

// Applies `applied` (the partial object of the request body) for
// options.manager. `live` is the stored object or null (create). Merge: maps
// and structs by field, map-lists by key, set-lists as unions, atomics
// replaced. Fields this manager applied last time and now omits are removed
// unless another manager owns them. A field owned by another manager whose
// value would change is a conflict unless `force` (then ownership moves);
// applying an identical value shares ownership. Quantities in `applied` are
// canonicalized first (the server decodes them before merging).
// Upstream special cases kept: manager "kubectl" may take over fields recorded
// in a matching kubectl.kubernetes.io/last-applied-configuration annotation
// without conflict (client-side -> server-side apply upgrade) and keeps that
// annotation in sync; a live object without managedFields is first attributed
// to manager "before-first-apply".
// Throws PatchError(kInvalid) for: applied not an object, managedFields in it,
// kind differing from live, list items missing a key field or duplicated,
// empty manager; PatchError(kMalformed) for an invalid quantity.
ApplyResult server_side_apply(const nlohmann::json& live, const nlohmann::json& applied,
                              const FieldSchema& schema, const ApplyOptions& options);

struct UpdateOptions {
  std::string manager;              // fieldManager, or the user-agent derived default
  std::string operation = "Update";
  std::string subresource;          // "" or "status"
  bool status_subresource = false;
  std::string time;                 // RFC 3339
};

// Records a non-apply write (create, update, any non-apply patch) of `updated`
// over `old` (null for create): fields added or changed move to
// options.manager, removed fields leave every set; never a conflict. Returns
// `updated` with metadata.managedFields rewritten. If `updated` carries its own
// managedFields that differ from old's, they are taken as given first (as the
// apiserver allows); `managedFields: [{}]` resets them.
nlohmann::json record_update(const nlohmann::json& old, const nlohmann::json& updated,
                             const FieldSchema& schema, const UpdateOptions& options);

// The 409 Status body kube-apiserver returns for `conflicts`:
// reason Conflict, message "Apply failed with N conflict(s): ...",
// details.causes[] {reason: FieldManagerConflict, message, field} (StatusCause.Type
// serializes as "reason").
nlohmann::json conflict_status(const std::vector<FieldConflict>& conflicts);

// FieldsV1 field set of `object` as the schema sees it (what an Apply of this
// object would own), stripped of server-managed fields. Exposed for tests and
// for clients that want to predict ownership.
nlohmann::json fields_v1_of(const nlohmann::json& object, const FieldSchema& schema);

}  // namespace dgd::kube
