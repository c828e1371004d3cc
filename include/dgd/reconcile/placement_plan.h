// Placement plan: where every replica of a rendered DGD would land on a cluster, or
// exactly what is short (`dgdctl plan`).
//
// The simulation places the pods of the rendered Deployments in render order, one
// replica after another, with ClusterFit (the scheduler's filters; GPU and RDMA pods
// packed, others spread). The cluster is the live nodes and pods, minus the pods of
// the DGD itself (a re-plan of an applied DGD counts its own capacity as free). Pods
// sharing a ComputeDomain claim template are placed as one group in the first
// nvidia.com/gpu.clique (by name) that holds all of them: the plan says so, or says
// that no clique has room for the group. Pure and deterministic.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dgd/reconcile/placement.h"

namespace dgd::reconcile {

struct ReplicaPlan {
  std::string component;              // nvidia.com/dynamo-component of the pod template
  int replica = 0;                    // 0-based
  std::optional<std::string> node;    // where it fits
  std::string clique;                 // the node's nvidia.com/gpu.clique, if any
  ResourceAmounts requests;
  std::optional<PlacementProblem> problem;  // why it fits nowhere (node empty)
};

struct PlacementPlan {
  std::vector<ReplicaPlan> replicas;
  // Problems of a group (one per ComputeDomain claim template that no clique holds).
  std::vector<PlacementProblem> group_problems;
  int ignored_own_pods = 0;  // live pods of the DGD left out of the cluster view
  bool fits() const;
};

// `objects`: the rendered children (render.h), Deployments are used. `nodes`, `pods`:
// the cluster's. `ns`, `dgd_name`: where the DGD would live.
PlacementPlan plan_placement(const std::vector<nlohmann::json>& objects, const std::vector<nlohmann::json>& nodes,
                             const std::vector<nlohmann::json>& pods, const std::string& ns,
                             const std::string& dgd_name);

}  // namespace dgd::reconcile
