// restart: upstream's spec.restart. A new spec.restart.id rolls the pods of the graph's
// components by stamping `nvidia.com/restartAt=<id>` on their Deployments' pod templates;
// each Deployment then replaces its pods under its own strategy (no pod is deleted by the
// operator). Sequential restarts one component after the other (strategy.order, or the
// names sorted), Parallel all at once; progress is `status.restart {observedID, phase,
// inProgress}`. A component is done when every Deployment of it carries the id and has
// rolled it out (status.h rollout_state: its generation observed, every replica updated
// and available). The annotation stays on the template afterwards, so a later render
// never rolls the pods back. It lives only on the rendered Deployments, never in the DGD
// spec: nothing that names a worker generation sees it.
// A rollout of the workers in progress supersedes a restart (phase Superseded), as upstream.
// Pure: no clock, no client; the same DGD and Deployments give the same decision.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dgd::reconcile {

inline constexpr const char* kRestartAnnotation = "nvidia.com/restartAt";

// spec.restart as the user asked it; nullopt when absent or its id is empty.
struct RestartRequest {
  std::string id;
  bool parallel = false;
  std::vector<std::string> order;  // Sequential: the order given (empty: alphabetical)
};
std::optional<RestartRequest> restart_request(const nlohmann::json& dgd);

// status.restart.
struct RestartStatus {
  std::string observed_id;
  std::string phase;  // Restarting | Completed | Superseded (Pending, Failed: upstream defines, never sets)
  std::vector<std::string> in_progress;
  nlohmann::json to_json() const;
  bool operator==(const RestartStatus&) const = default;
};
std::optional<RestartStatus> restart_status(const nlohmann::json& dgd);

// Whether upstream's status.rollingUpdate shows a rollout of the workers in progress
// (phase Pending or InProgress): the hook through which rollouts supersede a restart.
// False while nothing writes status.rollingUpdate.
bool rolling_update_in_progress(const nlohmann::json& dgd);

struct RestartInput {
  std::optional<RestartRequest> request;
  std::optional<RestartStatus> previous;
  std::vector<std::string> components;  // every component name of the graph
  std::set<std::string> done;           // components whose Deployments rolled out restartAt=<request id>
  bool rollout_in_progress = false;
};

struct RestartDecision {
  std::optional<RestartStatus> status;  // status.restart to report (nullopt: none)
  std::string id;                       // the value to stamp
  std::set<std::string> stamp;          // components whose pod templates get restartAt=<id>
};

RestartDecision decide_restart(const RestartInput& in);

// The plan's step: decides the restart of `dgd` from its desired Deployments (rendered,
// each labelled with its component; the components are the labels found) and the live
// children, then stamps the desired pod templates: restartAt=<id> on the components the
// decision names, and on every other Deployment the value its live template already
// carries. Returns status.restart as decided (null: none).
nlohmann::json plan_restart(const nlohmann::json& dgd, std::vector<nlohmann::json>& desired,
                            const std::vector<nlohmann::json>& live);

}  // namespace dgd::reconcile
