// Placement: where a DGD's pods can run, said in words that name what is missing.
//
// Two users share this code:
//  - the Placement status condition (placement_condition): from the DGD's pods
//    (their PodScheduled conditions, as the scheduler wrote them), the nodes and the
//    pods the operator caches. The scheduler's message says WHICH filters refused the
//    nodes (it sees every pod of the cluster); the operator's view names the THINGS
//    (the resources a pod asks for, the largest node, the prefill node it must avoid,
//    the NVLink clique its ComputeDomain is bound to).
//  - `dgdctl plan` (placement_plan.h): the same sentences from a full simulation.
// Sentences look like
//   "DecodeWorker: no node with 4 free nvidia.com/gpu and 4 rdma/ib other than the prefill node (h200-1)"
//   "workers need one nvidia.com/gpu.clique with room for 2 (4 nvidia.com/gpu each); the largest has room for 1"
// Pure; messages contain no timestamps or counters that move at rest.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dgd/reconcile/placement_fit.h"
#include "dgd/reconcile/status.h"

namespace dgd::reconcile {

inline constexpr const char* kConditionPlacement = "Placement";

// Reasons of a Placement=False condition.
inline constexpr const char* kReasonNoMatchingNode = "NoMatchingNode";        // selector / taints exclude every node
inline constexpr const char* kReasonInsufficientResources = "InsufficientResources";
inline constexpr const char* kReasonNodeConflict = "NodeConflict";            // pod (anti-)affinity
inline constexpr const char* kReasonNVLinkClique = "NVLinkClique";            // one clique cannot hold the workers
inline constexpr const char* kReasonUnschedulable = "Unschedulable";          // anything else the scheduler said

struct PlacementProblem {
  std::string reason;
  std::string message;  // without the component prefix
};

// What refused a pod: the filters that failed on at least one node, and the resources
// reported short on nodes the pod may otherwise run on (selector, taints and cordon
// passed). From a simulation (failing_filters) or a scheduler message.
struct Refusal {
  std::set<FitFilter> filters;
  std::set<std::string> short_resources;
  bool other = false;  // the scheduler named something this code does not know (volumes, claims, ...)
};
Refusal failing_filters(const FitResult& result);
// Parses "0/6 nodes are available: 2 Insufficient nvidia.com/gpu, 4 node(s) didn't match
// Pod's node affinity/selector. preemption: ..." (the default scheduler's FitError).
Refusal parse_scheduler_message(const std::string& message);

// One sentence naming what `pod` lacks, given what refused it and a view of the cluster
// (nodes, bound pods). nullopt when `refusal` holds nothing this code can name.
std::optional<PlacementProblem> describe_refusal(const nlohmann::json& pod, const Refusal& refusal,
                                                 const ClusterFit& view);

// The group of pods that must share one NVLink clique (same ComputeDomain claim
// template): when no clique has room for all of them, the sentence saying so.
// `group`: every pod of the group, bound or not. `view` must know every bound pod of
// the cluster (the sentence counts free nodes), so only `dgdctl plan` can ask.
std::optional<PlacementProblem> clique_capacity_problem(const std::vector<nlohmann::json>& group,
                                                        const ClusterFit& view);

struct PlacementInput {
  std::string dgd_name;
  // Components of the graph and their desired replicas.
  std::vector<std::pair<std::string, int32_t>> components;
  std::vector<nlohmann::json> pods;   // the DGD's pods (label nvidia.com/dynamo-graph-deployment-name)
  std::vector<nlohmann::json> nodes;  // every node
  std::vector<nlohmann::json> other_pods;  // other pods the operator knows (they use capacity)
};

// The Placement condition, or nullopt before any pod of the DGD exists:
//   True    every non-terminating pod is bound and each component has its replicas;
//   False   a pod is Unschedulable: one sentence per component (joined by "; "),
//           the reason of the first;
//   Unknown pods wait for the scheduler, are gated, or are not created yet.
std::optional<Condition> placement_condition(const PlacementInput& in);

}  // namespace dgd::reconcile
