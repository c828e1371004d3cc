// Sentences naming what a refused pod lacks, from its refusal and a view of the cluster.
#include "dgd/reconcile/placement.h"

#include <algorithm>
#include <map>

#include "dgd/render/render.h"
#include "reconcile/json_path.h"
#include "reconcile/placement_text.h"

namespace dgd::reconcile {

using nlohmann::json;

namespace {

std::string node_list(std::vector<std::string> names) {
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  const size_t total = names.size();
  if (total > 3) {
    names.resize(3);
    names.push_back("and " + std::to_string(total - 3) + " more");
    return join(names, ", ", ", ");
  }
  return join(names, ", ", ", ");
}

// "nodeSelector a=b, c=d" (+ "and required node affinity").
std::string selector_text(const json& pod) {
  std::vector<std::string> parts;
  const json& sel = at(pod, {"spec", "nodeSelector"});
  if (sel.is_object()) {
    for (auto it = sel.begin(); it != sel.end(); ++it) {
      parts.push_back(it.key() + "=" + (it.value().is_string() ? it.value().get<std::string>() : it.value().dump()));
    }
  }
  std::string out = parts.empty() ? "" : "nodeSelector " + join(parts, ", ", ", ");
  if (at(pod, {"spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution"}).is_object()) {
    out += out.empty() ? "its required node affinity" : " and its required node affinity";
  }
  return out.empty() ? "its scheduling constraints" : out;
}

// "4 free nvidia.com/gpu and 4 rdma/ib".
std::string amounts_text(const ResourceAmounts& req, const std::vector<std::string>& resources) {
  std::vector<std::string> parts;
  for (size_t i = 0; i < resources.size(); ++i) {
    const std::string& r = resources[i];
    const std::string amount = r == "pods" ? "1" : format_amount(r, req.count(r) > 0 ? req.at(r) : 0);
    parts.push_back(amount + (i == 0 ? " free " : " ") + (r == "pods" ? "pod slot" : r));
  }
  return join(parts, ", ", " and ");
}

// The nodes that pass the filters that do not depend on other pods (cordon, taints,
// selector): the same in every view of the cluster.
std::vector<std::string> matching_nodes(const FitResult& r, const ClusterFit& view, const std::string& only_clique) {
  std::set<std::string> refused_static;
  for (const auto& n : r.refused) {
    if (n.fails(FitFilter::kUnschedulable) || n.fails(FitFilter::kTaint) || n.fails(FitFilter::kNodeSelector)) {
      refused_static.insert(n.node);
    }
  }
  std::vector<std::string> out;
  for (const auto& n : view.nodes()) {
    const std::string name = str(n, {"metadata", "name"});
    if (refused_static.count(name) > 0) continue;
    if (!only_clique.empty() && view.clique_of(name) != only_clique) continue;
    out.push_back(name);
  }
  return out;
}

// Names the nodes a pod's required anti-affinity keeps it off: "the prefill node (h200-1)".
std::string anti_affinity_text(const json& pod, const ClusterFit& view) {
  const json& list = at(pod, {"spec", "affinity", "podAntiAffinity", "requiredDuringSchedulingIgnoredDuringExecution"});
  const std::string ns = str(pod, {"metadata", "namespace"});
  std::vector<std::string> whats, nodes;
  if (list.is_array()) {
    for (const auto& term : list) {
      const json& sel = at(term, {"labelSelector"});
      std::string what = str(sel, {"matchLabels", render::kLabelComponentType});
      if (what.empty()) what = str(sel, {"matchLabels", render::kLabelComponent});
      whats.push_back(what.empty() ? "pods it must not share a " + term.value("topologyKey", std::string("node")) +
                                         " with"
                                   : what);
      for (const auto& n : view.nodes()) {
        const std::string name = str(n, {"metadata", "name"});
        if (!view.pods_on(name, sel, ns).empty()) nodes.push_back(name);
      }
    }
  }
  std::string out;
  if (whats.empty()) {
    out = "other than the nodes whose pods refuse it (their anti-affinity)";
  } else {
    out = "other than the " + join(whats, ", ", " and ") + " node";
  }
  if (!nodes.empty()) out += " (" + node_list(nodes) + ")";
  return out;
}

// The clique the pod must join: fixed by its ComputeDomain's bound pods, or by the
// pods its required clique affinity points at. "" when none is fixed yet.
std::string required_clique(const json& pod, const ClusterFit& view) {
  std::string c = view.fixed_clique(pod);
  if (!c.empty()) return c;
  const json& list = at(pod, {"spec", "affinity", "podAffinity", "requiredDuringSchedulingIgnoredDuringExecution"});
  if (!list.is_array()) return "";
  const std::string ns = str(pod, {"metadata", "namespace"});
  for (const auto& term : list) {
    if (term.value("topologyKey", "") != kCliqueLabel) continue;
    for (const auto& n : view.nodes()) {
      const std::string name = str(n, {"metadata", "name"});
      if (!view.pods_on(name, at(term, {"labelSelector"}), ns).empty()) return view.clique_of(name);
    }
  }
  return "";
}

bool wants_clique(const json& pod) {
  if (!claim_templates_of(pod).empty()) return true;
  const json& list = at(pod, {"spec", "affinity", "podAffinity", "requiredDuringSchedulingIgnoredDuringExecution"});
  if (!list.is_array()) return false;
  return std::any_of(list.begin(), list.end(), [](const json& t) { return t.value("topologyKey", "") == kCliqueLabel; });
}

std::string claim_name(const json& pod) {
  auto t = claim_templates_of(pod);
  if (t.empty()) return "";
  return t.front().substr(t.front().find('/') + 1);
}

}  // namespace

std::optional<PlacementProblem> describe_refusal(const json& pod, const Refusal& refusal, const ClusterFit& view) {
  if (refusal.other || refusal.filters.empty()) return std::nullopt;
  const ResourceAmounts req = pod_requests(pod);
  const FitResult sim = view.fit(pod);
  const std::vector<std::string> matching = matching_nodes(sim, view, "");
  const bool clique_bound = wants_clique(pod);
  const std::string clique = clique_bound ? required_clique(pod, view) : "";

  // Selector, taints or cordons exclude every node (true in any view: no pods involved).
  if (matching.empty()) {
    std::vector<std::string> tainted;
    bool cordoned = false;
    for (const auto& n : sim.refused) {
      if (n.fails(FitFilter::kNodeSelector)) continue;
      if (n.fails(FitFilter::kTaint)) tainted.push_back(n.taint);
      if (n.fails(FitFilter::kUnschedulable)) cordoned = true;
    }
    std::sort(tainted.begin(), tainted.end());
    tainted.erase(std::unique(tainted.begin(), tainted.end()), tainted.end());
    std::string msg = "no node matches " + selector_text(pod);
    if (!tainted.empty()) {
      msg = "the nodes matching " + selector_text(pod) + " carry taint " + join(tainted, ", ", " and ") +
            ", which the pod does not tolerate";
    } else if (cordoned) {
      msg = "the nodes matching " + selector_text(pod) + " are cordoned (unschedulable)";
    }
    return PlacementProblem{kReasonNoMatchingNode, msg};
  }

  const std::vector<std::string> resources = named_resources(req, refusal.short_resources);
  const std::string amounts = resources.empty() ? "room" : amounts_text(req, resources);
  const bool anti = refusal.filters.count(FitFilter::kPodAntiAffinity) > 0 ||
                    refusal.filters.count(FitFilter::kExistingAntiAffinity) > 0;
  const bool clique_refused = refusal.filters.count(FitFilter::kClique) > 0 ||
                              (clique_bound && refusal.filters.count(FitFilter::kPodAffinity) > 0);

  // A pod larger than any matching node: the shortfall, whatever else happens.
  if (refusal.filters.count(FitFilter::kResources) > 0) {
    for (const auto& r : resources) {
      if (r == "pods") continue;
      int64_t largest = 0;
      std::string largest_node;
      for (const auto& name : matching) {
        const ResourceAmounts a = node_allocatable(*view.node(name));
        const int64_t v = a.count(r) > 0 ? a.at(r) : 0;
        if (v > largest || largest_node.empty()) {
          largest = v;
          largest_node = name;
        }
      }
      const int64_t want = req.count(r) > 0 ? req.at(r) : 0;
      if (want > largest) {
        return PlacementProblem{kReasonInsufficientResources,
                                "no node with " + format_amount(r, want) + " free " + r + ": each pod asks for " +
                                    format_amount(r, want) + " " + r + " and the largest of the " +
                                    std::to_string(matching.size()) + " node(s) matching " + selector_text(pod) +
                                    " has " + format_amount(r, largest) + " allocatable (" + largest_node + ")"};
      }
    }
  }

  if (clique_refused || (clique_bound && !clique.empty())) {
    std::string msg;
    if (clique.empty()) {
      msg = "no node with " + amounts + " carries a " + std::string(kCliqueLabel) + " label";
    } else {
      const std::string cd = claim_name(pod);
      msg = "must join " + std::string(kCliqueLabel) + " " + clique +
            " where the graph's other NVLink workers run" + (cd.empty() ? "" : " (resource claim template " + cd + ")") +
            ", and no node there has " + amounts + (anti ? " " + anti_affinity_text(pod, view) : "") +
            "; other cliques are refused, so the NVLink domain is not split";
    }
    return PlacementProblem{kReasonNVLinkClique, msg};
  }
  if (refusal.filters.count(FitFilter::kResources) > 0) {
    std::string msg = "no node with " + amounts;
    if (anti) msg += " " + anti_affinity_text(pod, view);
    return PlacementProblem{kReasonInsufficientResources, msg};
  }
  if (anti) {
    return PlacementProblem{kReasonNodeConflict, "every node with " + amounts + " is taken: it must run on a node " +
                                                     anti_affinity_text(pod, view)};
  }
  if (refusal.filters.count(FitFilter::kPodAffinity) > 0) {
    return PlacementProblem{kReasonNodeConflict, "no node satisfies its required pod affinity"};
  }
  // Only selector/taint/cordon reasons, yet this view finds matching nodes: the
  // scheduler's view is newer; say what it said.
  return std::nullopt;
}

}  // namespace dgd::reconcile
