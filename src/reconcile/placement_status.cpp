#include "dgd/reconcile/placement_status.h"

#include <nlohmann/json.hpp>

#include "dgd/reconcile/placement.h"
#include "dgd/render/render.h"

namespace dgd::reconcile {
namespace {

using nlohmann::json;

const json& at(const json& obj, const char* pointer) {
  static const json kNull;
  const json::json_pointer p(pointer);
  return obj.contains(p) ? obj.at(p) : kNull;
}

const json& pod_scheduled(const json& pod) {
  static const json kNull;
  const json& conds = at(pod, "/status/conditions");
  if (!conds.is_array()) return kNull;
  for (const auto& c : conds) {
    if (c.is_object() && c.value("type", "") == "PodScheduled") return c;
  }
  return kNull;
}

}  // namespace

std::vector<std::pair<std::string, int32_t>> placement_components(const api::Dgd& graph) {
  std::vector<std::pair<std::string, int32_t>> out;
  for (const auto& c : graph.spec.components) out.emplace_back(c.name, c.replicas.value_or(1));
  return out;
}

std::optional<Condition> placement_status(ClusterCache& cluster, const std::string& ns, const std::string& name,
                                          const api::Dgd& graph) {
  return placement_status(cluster, ns, name, placement_components(graph));
}

std::optional<Condition> placement_status(ClusterCache& cluster, const std::string& ns, const std::string& name,
                                          const std::vector<std::pair<std::string, int32_t>>& components) {
  PlacementInput in;
  in.dgd_name = name;
  in.components = components;
  in.pods = cluster.dgd_pods(ns, name);
  bool unschedulable = false;
  for (const auto& p : in.pods) {
    const json& c = pod_scheduled(p);
    if (at(p, "/spec/nodeName").is_null() && c.is_object() && c.value("reason", "") == "Unschedulable") {
      unschedulable = true;
    }
  }
  if (unschedulable) {
    in.nodes = cluster.cached_nodes();
    for (auto& p : cluster.cached_pods()) {
      const json& labels = at(p, "/metadata/labels");
      const bool ours = at(p, "/metadata/namespace") == ns && labels.is_object() &&
                        labels.value(render::kLabelDgdName, "") == name;
      if (!ours) in.other_pods.push_back(std::move(p));
    }
  }
  return placement_condition(in);
}

bool pod_placement_changed(const json& before, const json& after) {
  for (const char* p : {"/spec/nodeName", "/metadata/deletionTimestamp", "/status/phase", "/spec/schedulingGates"}) {
    if (at(before, p) != at(after, p)) return true;
  }
  const json &a = pod_scheduled(before), &b = pod_scheduled(after);
  if (a.is_null() != b.is_null()) return true;
  if (a.is_null()) return false;
  for (const char* k : {"status", "reason", "message"}) {
    if (a.value(k, "") != b.value(k, "")) return true;
  }
  return false;
}

bool node_placement_changed(const json& before, const json& after) {
  for (const char* p : {"/metadata/labels", "/spec/taints", "/spec/unschedulable", "/status/allocatable"}) {
    if (at(before, p) != at(after, p)) return true;
  }
  return false;
}

std::string dgd_of_pod(const json& pod) {
  const json& labels = at(pod, "/metadata/labels");
  return labels.is_object() ? labels.value(render::kLabelDgdName, "") : "";
}

bool placement_pending(const json& dgd) {
  const json& conds = at(dgd, "/status/conditions");
  if (!conds.is_array()) return false;
  for (const auto& c : conds) {
    if (c.is_object() && c.value("type", "") == kConditionPlacement) return c.value("status", "") != "True";
  }
  return false;
}

}  // namespace dgd::reconcile
