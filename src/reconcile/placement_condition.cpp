// The Placement condition of a DGD (placement.h): clique capacity and the first
// unschedulable pod, in words.
#include <algorithm>
#include <map>
#include <set>

#include "dgd/reconcile/placement.h"
#include "dgd/render/render.h"
#include "reconcile/json_path.h"
#include "reconcile/placement_text.h"

namespace dgd::reconcile {

using nlohmann::json;

std::optional<PlacementProblem> clique_capacity_problem(const std::vector<json>& group, const ClusterFit& view) {
  if (group.empty()) return std::nullopt;
  std::set<std::string> cliques;
  for (const auto& n : view.nodes()) {
    const std::string c = str(n, {"metadata", "labels", kCliqueLabel});
    if (!c.empty()) cliques.insert(c);
  }
  const size_t need = group.size();
  size_t best = 0;
  std::string best_clique;
  for (const auto& c : cliques) {
    // Pods already bound in `c` stay; every other pod of the group must find room in `c`.
    size_t room = 0;
    ClusterFit trial = view;
    for (const auto& p : group) {
      const std::string node = str(p, {"spec", "nodeName"});
      if (!node.empty() && view.clique_of(node) == c) ++room;
    }
    for (const auto& p : group) {
      const std::string node = str(p, {"spec", "nodeName"});
      if (!node.empty() && view.clique_of(node) == c) continue;
      json unbound = p;
      if (unbound.contains("spec")) unbound["spec"].erase("nodeName");
      FitOptions o;
      o.only_clique = c;
      o.ignore_clique = true;
      auto r = trial.fit(unbound, o);
      if (!r.node) continue;
      trial.bind(unbound, *r.node);
      ++room;
    }
    if (room > best || best_clique.empty()) {
      best = room;
      best_clique = c;
    }
    if (room >= need) return std::nullopt;
  }
  const ResourceAmounts req = pod_requests(group.front());
  const std::vector<std::string> res = named_resources(req, {});
  std::string each;
  for (const auto& r : res) each += (each.empty() ? "" : ", ") + format_amount(r, req.at(r)) + " " + r;
  std::string msg = "workers need one " + std::string(kCliqueLabel) + " with room for " + std::to_string(need) +
                    (each.empty() ? "" : " (" + each + " each)") + "; ";
  msg += cliques.empty() ? "no node carries the label" : "the largest has room for " + std::to_string(best) +
                                                             " (" + best_clique + ")";
  return PlacementProblem{kReasonNVLinkClique, msg};
}

std::optional<Condition> placement_condition(const PlacementInput& in) {
  if (in.pods.empty()) return std::nullopt;
  std::vector<json> all = in.other_pods;
  all.insert(all.end(), in.pods.begin(), in.pods.end());
  const ClusterFit view(in.nodes, all);

  struct PerComponent {
    int bound = 0;
    std::vector<const json*> unschedulable, waiting, gated;
  };
  std::map<std::string, PerComponent> by_component;
  for (const auto& p : in.pods) {
    if (!str(p, {"metadata", "deletionTimestamp"}).empty()) continue;
    const std::string phase = str(p, {"status", "phase"});
    if (phase == "Succeeded" || phase == "Failed") continue;
    PerComponent& pc = by_component[str(p, {"metadata", "labels", render::kLabelComponent})];
    if (!str(p, {"spec", "nodeName"}).empty()) {
      ++pc.bound;
      continue;
    }
    const json& gates = at(p, {"spec", "schedulingGates"});
    if (gates.is_array() && !gates.empty()) {
      pc.gated.push_back(&p);
      continue;
    }
    const json* scheduled = nullptr;
    const json& conds = at(p, {"status", "conditions"});
    if (conds.is_array()) {
      for (const auto& c : conds) {
        if (c.value("type", "") == "PodScheduled") scheduled = &c;
      }
    }
    if (scheduled != nullptr && scheduled->value("status", "") == "False" &&
        scheduled->value("reason", "") == "Unschedulable") {
      pc.unschedulable.push_back(&p);
    } else {
      pc.waiting.push_back(&p);
    }
  }

  // False: one sentence per component with an unschedulable pod, in graph order.
  std::vector<std::string> sentences;
  std::string reason;
  for (const auto& [name, desired] : in.components) {
    (void)desired;
    auto it = by_component.find(name);
    if (it == by_component.end() || it->second.unschedulable.empty()) continue;
    const auto& pods = it->second.unschedulable;
    const json& pod = **std::min_element(pods.begin(), pods.end(), [](const json* a, const json* b) {
      return str(*a, {"metadata", "name"}) < str(*b, {"metadata", "name"});
    });
    std::string message;
    for (const auto& c : at(pod, {"status", "conditions"})) {
      if (c.value("type", "") == "PodScheduled") message = c.value("message", "");
    }
    const std::string count =
        pods.size() == 1 ? "1 pod" : std::to_string(pods.size()) + " pods";
    auto problem = describe_refusal(pod, parse_scheduler_message(message), view);
    if (!problem) problem = PlacementProblem{kReasonUnschedulable, "scheduler: " + message};
    if (reason.empty()) reason = problem->reason;
    sentences.push_back(name + ": " + count + " pending: " + problem->message);
  }
  if (!sentences.empty()) {
    return Condition{kConditionPlacement, "False", reason, join(sentences, "; ", "; ")};
  }

  // Unknown: something is not yet bound, but nothing is refused.
  std::vector<std::string> waiting;
  std::string unknown_reason;
  int total_bound = 0;
  for (const auto& [name, desired] : in.components) {
    auto it = by_component.find(name);
    const PerComponent empty;
    const PerComponent& pc = it == by_component.end() ? empty : it->second;
    total_bound += pc.bound;
    if (!pc.gated.empty()) {
      waiting.push_back(name + ": " + std::to_string(pc.gated.size()) + " pod(s) held by scheduling gates");
      if (unknown_reason.empty()) unknown_reason = "SchedulingGated";
    } else if (!pc.waiting.empty()) {
      waiting.push_back(name + ": " + std::to_string(pc.waiting.size()) + " pod(s) waiting for the scheduler");
      if (unknown_reason.empty()) unknown_reason = "Scheduling";
    } else if (pc.bound < desired) {
      waiting.push_back(name + ": " + std::to_string(pc.bound) + " of " + std::to_string(desired) +
                        " pod(s) created and bound");
      if (unknown_reason.empty()) unknown_reason = "PodsNotCreated";
    }
  }
  if (!waiting.empty()) return Condition{kConditionPlacement, "Unknown", unknown_reason, join(waiting, "; ", "; ")};
  return Condition{kConditionPlacement, "True", "AllPodsBound",
                   "all " + std::to_string(total_bound) + " pod(s) are bound to nodes"};
}

}  // namespace dgd::reconcile
