// kube-sim cluster: the ReplicaSet controller (pure decision logic).
//
// Keeps spec.replicas active pods (not terminating, not Succeeded/Failed) per
// ReplicaSet: creates pods "<rs>-<5 chars>" from the template, owned by the RS
// (controller reference), and deletes surplus pods in the real controller's
// order (unscheduled, then pending, then not ready, then by
// controller.kubernetes.io/pod-deletion-cost, then shortest ready, then newest).
// status: replicas, fullyLabeledReplicas, readyReplicas, availableReplicas
// (ready for at least spec.minReadySeconds), observedGeneration; written only
// when it changes.
#pragma once

#include "kubesim/cluster/snapshot.h"

namespace kubesim::cluster {

// A pod from a PodTemplateSpec, owned by `owner`, named "<base>-<suffix>".
Json pod_from_template(const Json& owner, const Json& template_spec, const std::string& base_name,
                       const std::string& suffix);
// Ready for at least min_ready_seconds at `now`.
bool pod_available(const Json& pod, int64_t min_ready_seconds, TimePoint now, TimePoint* available_at = nullptr);
bool pod_active(const Json& pod);  // not terminating and not Succeeded / Failed

class ReplicaSetController {
 public:
  Writes sync(const Snapshot& snap, const Env& env, TimePoint* next_wakeup) const;
};

}  // namespace kubesim::cluster
