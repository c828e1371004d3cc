// Status of a DynamoGraphDeployment, computed from what the cluster shows.
//
// compute_status is a pure function: the same observations give the same status,
// and a condition keeps its lastTransitionTime while its status does not change,
// so a reconcile at steady state produces a status equal to the live one and
// writes nothing.
//
// Ready is honest (upstream ai-dynamo/dynamo#3567 reported Ready during
// rollouts): a component counts as ready only when its live Deployment holds the
// template the operator wants AND the Deployment controller has rolled that
// template out to every replica (observedGeneration current, all replicas updated,
// ready and available, no old replicas left).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dgd::reconcile {

// One status condition (metav1.Condition).
struct Condition {
  std::string type;
  std::string status;  // "True" | "False" | "Unknown"
  std::string reason;  // CamelCase, machine-readable
  std::string message;
};

// What the reconcile saw of one component of the graph.
struct ComponentObservation {
  std::string name;            // component name as written in the DGD
  std::string type;            // frontend | worker | prefill | decode
  int32_t desired_replicas = 0;
  // The live Deployment (as cached), or nullptr when it does not exist yet.
  const nlohmann::json* deployment = nullptr;
  // True when the live Deployment already holds every field the operator wants
  // (the current template); false while an apply is pending or lost.
  bool template_current = false;
};

struct StatusInput {
  int64_t generation = 0;                 // metadata.generation of the DGD
  std::vector<ComponentObservation> components;
  // Problems with the spec, each "path: message". Non-empty => SpecValid=False,
  // Ready=False, and the components keep reporting what is still serving.
  std::vector<std::string> spec_errors;
  // Children the operator could not write (a kind the server does not serve, an apply
  // the server refused), each "what: why". Non-empty => Ready=False with reason
  // ChildrenNotSynced naming them (a graph missing a child is not ready).
  std::vector<std::string> sync_problems;
  // Non-empty while the operator holds workers back on purpose (model_cache.h: the
  // model download has not completed): Ready=False with this reason, and
  // `held_back_message` leads its message.
  std::string held_back_reason;
  std::string held_back_message;
  // Conditions computed elsewhere (Placement, ModelCacheReady, Serving); added as is.
  std::vector<Condition> extra_conditions;
  // The inference engine the expanded graph runs ("vllm", ...), for `kubectl get dgd`'s
  // BACKEND column; empty when this pass did not expand the spec (the live status's value
  // is kept).
  std::string backend_framework;
  // status.restart as the pass decided it (restart.h; null: none); nullopt: the live one
  // is kept (a pass that did not plan the children).
  std::optional<nlohmann::json> restart;
  // By component name: live Deployments of older worker generations (worker_generations.h).
  // Their replicas count in the component's, and it is not ready while one is left.
  std::map<std::string, std::vector<const nlohmann::json*>> previous_generations;
  // status.rollingUpdate (worker_generations.h rolling_update_status); null: none. While
  // its phase is Pending or InProgress, Ready=False has upstream's reason
  // rolling_update_in_progress.
  nlohmann::json rolling_update;
  // The live status (may be null/absent): used to keep lastTransitionTime.
  const nlohmann::json* previous_status = nullptr;
  std::string now;                        // RFC 3339 UTC, e.g. 2026-11-30T06:00:00Z
};

// Readiness of one Deployment, as `kubectl rollout status` judges it, plus the
// replica counts. `reason` is empty when ready.
struct RolloutState {
  bool ready = false;
  std::string reason;    // e.g. "1 of 2 updated replicas are available"
  int32_t replicas = 0, updated = 0, ready_replicas = 0, available = 0;
};
RolloutState rollout_state(const nlohmann::json& deployment, int32_t desired_replicas);

// The full `status` object to write (observedGeneration, state, conditions,
// components).
nlohmann::json compute_status(const StatusInput& in);

// True when `computed` differs from `live` in anything that matters (the
// status write is skipped otherwise).
bool status_changed(const nlohmann::json& live, const nlohmann::json& computed);

// True when `computed` differs from `live` (nullptr: no status yet) in what users and
// tools act on at once: a new observedGeneration, Ready or SpecValid changing status, any
// condition turning False (a problem: Unschedulable, DownloadFailed, ...), or status.restart
// moving (a restart's phase, the component restarting). Anything
// else is progress: replica counts, reasons and messages, a condition appearing as
// Unknown or turning True. The reconciler writes progress at most once per progress
// interval (DgdReconcilerOptions::status_progress_interval), so a graph whose pods come
// up one by one does not rewrite its status for each of them.
bool status_transition(const nlohmann::json* live, const nlohmann::json& computed);

}  // namespace dgd::reconcile
