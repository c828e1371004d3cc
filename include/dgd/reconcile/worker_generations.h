// worker_generations: the plan's step for worker generations (render/worker_generation.h,
// worker_rollout.h). From the desired children and the DGD's live children it finds the
// worker Deployments of other generations, sets the replicas of the desired generation's
// worker Deployments, and says which old Deployments to scale and which to remove. Pure:
// everything comes from the cached Deployments (their nvidia.com/dynamo-worker-hash label
// names their generation; one without it was made before generations), so a pass without
// the memo decides the same, and nothing is kept in the DGD's annotations, which
// `kubectl replace` and `helm upgrade --force` wipe.
//
// Also the status it leads to: status.rollingUpdate {phase, startTime, endTime,
// updatedComponents} as upstream Dynamo reports it.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dgd::reconcile {

// Ready=False reason while an old worker generation still exists (upstream's).
inline constexpr const char* kReasonRollingUpdate = "rolling_update_in_progress";

// An old worker Deployment to scale to `replicas` (> 0; a target of 0 removes it).
struct ScaleWrite {
  nlohmann::json deployment;  // as cached
  int32_t replicas = 0;
};

// Where a generation rollout stands after the pass's writes.
struct RolloutProgress {
  bool in_progress = false;  // an old worker generation still exists
  bool pending = false;      // ... and the desired one has no replica asked yet
  std::string generation;    // the desired one
  std::vector<std::string> updated_components, workers;  // sorted
};

struct GenerationStep {
  // Per component (label nvidia.com/dynamo-component), from the desired Deployments as
  // the steps before this one left them: its Deployment's name and desired replicas.
  std::map<std::string, std::string> deployment_of;
  std::map<std::string, int32_t> desired_of;
  // Live worker Deployments of other generations, by component (object keys): the
  // pruning of children leaves them to this step.
  std::map<std::string, std::vector<std::string>> old_of;
  std::set<std::string> old_keys;
  std::vector<ScaleWrite> scale;
  std::vector<nlohmann::json> remove;  // as cached
  RolloutProgress progress;
};

// Sets spec.replicas of the desired worker Deployments in `desired` to their rollout
// targets. `live` is every child the DGD owns (as cached); `hold`: the workers are held
// back (model_cache.h), old generations stay as they are.
GenerationStep plan_worker_generations(std::vector<nlohmann::json>& desired, const std::vector<nlohmann::json>& live,
                                       const std::string& owner_uid, bool hold);

// status.rollingUpdate after a pass: `previous` is the live status.rollingUpdate (null
// when absent), `progress` what the pass saw (nullopt: a pass that did not plan the
// children, which keeps `previous`), `now` RFC 3339. Null: no rollingUpdate to show (a
// graph that never rolled its workers).
nlohmann::json rolling_update_status(const nlohmann::json& previous, const std::optional<RolloutProgress>& progress,
                                     const std::string& now);

}  // namespace dgd::reconcile
