// How a pod matches a node, as the scheduler decides it: taints and tolerations, node
// labels, node selector and required node affinity. The matching half of ClusterFit
// (placement_fit.h), over cached pods and nodes. Pure.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace dgd::reconcile {

// True when `tolerations` (a pod's) tolerate `taint` (a node's).
bool tolerates(const nlohmann::json& tolerations, const nlohmann::json& taint);
// The value of label `key` in `labels`, or nullopt.
std::optional<std::string> label_of(const nlohmann::json& labels, const std::string& key);
// True when the pod's nodeSelector and required node affinity accept `node`.
bool node_selector_matches(const nlohmann::json& pod, const nlohmann::json& node);

}  // namespace dgd::reconcile
