// worker_rollout: how many replicas each worker Deployment of each generation gets while a
// graph moves from one worker generation to the next (render/worker_generation.h). Pure
// arithmetic on plain values: no clock, no cache, no JSON.
//
// The new generation is created beside the old ones, which keep serving until it can
// serve; then they are scaled down and removed. Per component, upstream Dynamo's
// arithmetic with its annotations (maxSurge rounds up, maxUnavailable down, both 0 gives
// maxSurge 1):
//   new target = min(desired, new.spec + max(0, desired + maxSurge - old.spec - new.spec))
//   old target = old.spec - min(maxScaledDown, oldUnhealthy + surplus), where
//     minAvailable  = desired - maxUnavailable
//     maxScaledDown = old.spec + new.spec - minAvailable - newUnavailable
//     surplus       = old.available + newAvailable - minAvailable
// with one change that keeps capacity above zero: a pod of the new generation counts as
// available only once that generation is complete (every worker component has an
// available pod), since the frontend routes only inside complete generations. Until then
// the old generations keep at least desired - maxUnavailable pods of each component, so
// only a strategy that lets every pod go (Recreate, or maxUnavailable >= replicas) takes
// capacity to zero. The old target is spread over the old Deployments of the component
// keeping pods in complete generations first, then in newer ones; a Deployment whose
// target is 0 is removed. The desired generation is never drained: reverting mid-rollout
// makes the generation that still serves the desired one again.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace dgd::reconcile {

// A component's rollout bounds in pods.
struct RolloutBounds {
  int32_t max_surge = 1, max_unavailable = 0;
};
// From a Deployment's spec.strategy as render writes it (api/rollout.h: rollingUpdate with
// ints or "N%", Recreate as maxSurge 0 / maxUnavailable 100%), against `desired`
// replicas; a bound that is absent or unreadable is Kubernetes' default, 25%.
RolloutBounds rollout_bounds(const nlohmann::json& strategy, int32_t desired);

// A worker component of the desired generation.
struct DesiredWorker {
  std::string component;
  int32_t desired = 0;    // replicas the component asks for
  int32_t replicas = 0;   // spec.replicas of its Deployment now (0: not created yet)
  int32_t available = 0;  // status.availableReplicas
  RolloutBounds bounds;
};

// A live worker Deployment of another generation.
struct OldWorker {
  std::string key;         // identifies it in RolloutTargets::old_replicas
  std::string generation;  // its hash ("" for one made before generations)
  std::string component;
  int32_t replicas = 0, available = 0;
  bool terminating = false;  // being deleted: target 0, counted until it is gone
  std::string created;       // creationTimestamp (RFC 3339: compares as text)
};

struct RolloutInput {
  std::vector<DesiredWorker> workers;
  std::vector<OldWorker> old;
  // The new generation is held back (the model download has not completed): the old
  // generations stay as they are.
  bool hold = false;
};

struct RolloutTargets {
  std::map<std::string, int32_t> new_replicas;  // by component
  std::map<std::string, int32_t> old_replicas;  // by OldWorker::key (0: remove it)
  bool in_progress = false;   // an old generation still exists
  bool new_complete = false;  // every desired worker has an available pod
  // Components whose new Deployment has every desired replica available and no old
  // Deployment left, sorted.
  std::vector<std::string> updated_components;
};

RolloutTargets rollout_targets(const RolloutInput& input);

}  // namespace dgd::reconcile
