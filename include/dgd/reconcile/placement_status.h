// The Placement condition of one DGD from the operator's caches (the reconciler's hook):
// reads the DGD's cached pods and, only when one is Unschedulable, the nodes and the
// other cached pods, then asks placement_condition (placement.h).
// Also the filters that decide which watch events bring a DGD back: a pod's event
// matters when where it stands changes (bound, unschedulable and why, gated, gone), a
// node's when what it offers changes (labels, taints, cordon, allocatable), not at
// every heartbeat.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "dgd/api/dgd.h"
#include "dgd/reconcile/cluster.h"
#include "dgd/reconcile/status.h"

namespace dgd::reconcile {

std::optional<Condition> placement_status(ClusterCache& cluster, const std::string& ns, const std::string& name,
                                          const api::Dgd& graph);
// The same from the graph's components as (name, replicas).
std::optional<Condition> placement_status(ClusterCache& cluster, const std::string& ns, const std::string& name,
                                          const std::vector<std::pair<std::string, int32_t>>& components);
// The graph's components as placement_status reads them.
std::vector<std::pair<std::string, int32_t>> placement_components(const api::Dgd& graph);

// True when `before` -> `after` changes what the Placement condition reads of a pod.
bool pod_placement_changed(const nlohmann::json& before, const nlohmann::json& after);
// True when `before` -> `after` changes what a node offers to placement.
bool node_placement_changed(const nlohmann::json& before, const nlohmann::json& after);
// The DGD a pod belongs to (its nvidia.com/dynamo-graph-deployment-name label), or "".
std::string dgd_of_pod(const nlohmann::json& pod);
// True when the DGD's status holds a Placement condition that is not True (a node
// change may explain it better, or unblock it). A node event asks it of every DGD:
// it needs only status.conditions (cached_view.h dgd_conditions_fields).
bool placement_pending(const nlohmann::json& dgd);

}  // namespace dgd::reconcile
