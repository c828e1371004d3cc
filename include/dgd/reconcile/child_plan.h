// What to write for a DGD's children: the pure middle of the reconcile.
//
// Given the desired children (from render) and the live children the DGD owns
// (from the informer caches), plan_children decides which objects to apply and
// which to delete. It never plans a write for a child whose live state already
// holds every desired field, so a graph at rest costs zero requests, and it
// deletes only children that carry this DGD's uid as their controller owner, so
// nothing it did not create is ever removed.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace dgd::reconcile {

// Identity of an object: "<group>/<kind>/<namespace>/<name>" (group empty for core).
std::string object_key(const nlohmann::json& obj);

// Stamps the controller ownerReference to `dgd` (which must have apiVersion,
// kind, metadata.name and metadata.uid) on `child`, replacing any other
// controller reference; children are then collected by Kubernetes' garbage
// collector when the DGD goes, so the operator needs no finalizer.
void set_controller_owner(nlohmann::json& child, const nlohmann::json& dgd);

// True when `obj` names `owner_uid` as its controller.
bool is_controlled_by(const nlohmann::json& obj, const std::string& owner_uid);

// Decides whether `live` already holds everything in `desired`.
using HoldsDesired = std::function<bool(const nlohmann::json& live, const nlohmann::json& desired)>;

struct ChildPlan {
  std::vector<const nlohmann::json*> apply;   // desired objects to server-side apply
  std::vector<const nlohmann::json*> remove;  // live objects to delete (pruned)
  size_t unchanged = 0;                       // desired objects already in place
  size_t terminating = 0;                     // desired but still being deleted: retry later
};

// `desired` and `live` must outlive the returned plan (it points into them).
// `live` may contain objects not controlled by `owner_uid`; they are ignored for
// pruning, and a desired object whose name is taken by one is still applied (the
// apply then reports the conflict rather than the operator silently adopting it).
// A desired object with no controller reference (the renderer leaves a kept
// model-cache PVC unowned) counts as in place when the live one holds it.
ChildPlan plan_children(const std::vector<nlohmann::json>& desired,
                        const std::vector<const nlohmann::json*>& live,
                        const std::string& owner_uid, const HoldsDesired& holds);

}  // namespace dgd::reconcile
