#include "dgd/reconcile/placement_plan.h"

#include <map>
#include <set>

#include "dgd/render/render.h"

namespace dgd::reconcile {
namespace {

using nlohmann::json;

std::string str(const json& obj, const json::json_pointer& p) {
  if (!obj.contains(p)) return "";
  const json& v = obj.at(p);
  return v.is_string() ? v.get<std::string>() : std::string();
}

struct Pending {
  json pod;
  std::string component;
  int replica = 0;
};

// Pods of the rendered Deployments, in render order, replica by replica.
std::vector<Pending> pods_of(const std::vector<json>& objects, const std::string& ns) {
  std::vector<Pending> out;
  for (const auto& o : objects) {
    if (o.value("kind", "") != "Deployment") continue;
    const std::string name = str(o, json::json_pointer("/metadata/name"));
    const json tmpl = o.contains(json::json_pointer("/spec/template")) ? o.at(json::json_pointer("/spec/template")) : json();
    const json labels = tmpl.contains(json::json_pointer("/metadata/labels"))
                            ? tmpl.at(json::json_pointer("/metadata/labels"))
                            : json::object();
    const int replicas = static_cast<int>(o.value(json::json_pointer("/spec/replicas"), int64_t{1}));
    std::string component = labels.value(render::kLabelComponent, "");
    if (component.empty()) component = name;
    for (int i = 0; i < replicas; ++i) {
      Pending p;
      p.pod = {{"apiVersion", "v1"},
               {"kind", "Pod"},
               {"metadata", {{"name", name + "-" + std::to_string(i)}, {"namespace", ns}, {"labels", labels}}},
               {"spec", tmpl.value("spec", json::object())}};
      p.component = component;
      p.replica = i;
      out.push_back(std::move(p));
    }
  }
  return out;
}

// The first clique (by name) where every pod of `group` fits, or "".
std::string clique_for_group(const std::vector<const json*>& group, const ClusterFit& view) {
  std::set<std::string> cliques;
  for (const auto& n : view.nodes()) {
    if (n.contains(json::json_pointer("/metadata/labels")) && n["metadata"]["labels"].contains(kCliqueLabel) &&
        n["metadata"]["labels"][kCliqueLabel].is_string()) {
      cliques.insert(n["metadata"]["labels"][kCliqueLabel].get<std::string>());
    }
  }
  for (const auto& c : cliques) {
    ClusterFit trial = view;
    bool all = true;
    for (const json* p : group) {
      FitOptions o;
      o.only_clique = c;
      o.ignore_clique = true;
      auto r = trial.fit(*p, o);
      if (!r.node) {
        all = false;
        break;
      }
      trial.bind(*p, *r.node);
    }
    if (all) return c;
  }
  return "";
}

// When nothing this code knows explains a refusal: how many nodes each filter refused.
PlacementProblem generic_problem(const FitResult& r) {
  std::map<std::string, int> counts;
  for (const auto& n : r.refused) {
    for (auto f : n.filters) {
      switch (f) {
        case FitFilter::kUnschedulable: counts["cordoned"]++; break;
        case FitFilter::kTaint: counts["untolerated taint"]++; break;
        case FitFilter::kNodeSelector: counts["node selector/affinity"]++; break;
        case FitFilter::kResources: counts["insufficient resources"]++; break;
        case FitFilter::kPodAffinity: counts["pod affinity"]++; break;
        case FitFilter::kPodAntiAffinity: counts["pod anti-affinity"]++; break;
        case FitFilter::kExistingAntiAffinity: counts["other pods' anti-affinity"]++; break;
        case FitFilter::kClique: counts["NVLink clique"]++; break;
      }
    }
  }
  std::string msg = r.refused.empty() ? "the cluster has no nodes" : "no node fits:";
  bool first = true;
  for (const auto& [what, n] : counts) {
    msg += (first ? " " : ", ") + std::to_string(n) + " node(s) refuse it for " + what;
    first = false;
  }
  return {kReasonUnschedulable, msg};
}

}  // namespace

bool PlacementPlan::fits() const {
  if (!group_problems.empty()) return false;
  for (const auto& r : replicas) {
    if (!r.node) return false;
  }
  return true;
}

PlacementPlan plan_placement(const std::vector<json>& objects, const std::vector<json>& nodes,
                             const std::vector<json>& pods, const std::string& ns, const std::string& dgd_name) {
  PlacementPlan plan;
  std::vector<json> others;
  for (const auto& p : pods) {
    if (str(p, json::json_pointer("/metadata/namespace")) == ns &&
        p.contains(json::json_pointer("/metadata/labels")) &&
        p["metadata"]["labels"].value(render::kLabelDgdName, "") == dgd_name) {
      ++plan.ignored_own_pods;
      continue;
    }
    others.push_back(p);
  }
  ClusterFit view(nodes, others);
  std::vector<Pending> todo = pods_of(objects, ns);

  std::map<std::string, std::vector<const json*>> groups;  // claim template -> pods in order
  for (const auto& t : todo) {
    auto claims = claim_templates_of(t.pod);
    if (!claims.empty()) groups[claims.front()].push_back(&t.pod);
  }
  std::map<std::string, std::string> group_clique;                 // template -> chosen clique
  std::map<std::string, PlacementProblem> group_problem;           // template -> why no clique holds it

  for (const auto& t : todo) {
    ReplicaPlan rp;
    rp.component = t.component;
    rp.replica = t.replica;
    rp.requests = pod_requests(t.pod);
    FitOptions o;
    auto claims = claim_templates_of(t.pod);
    const std::string group = claims.empty() ? "" : claims.front();
    if (!group.empty() && group_clique.count(group) == 0 && group_problem.count(group) == 0) {
      std::vector<const json*> rest;
      bool from_here = false;
      for (const json* p : groups[group]) {
        if (p == &t.pod) from_here = true;
        if (from_here) rest.push_back(p);
      }
      const std::string c = clique_for_group(rest, view);
      if (!c.empty()) {
        group_clique[group] = c;
      } else {
        std::vector<json> members;
        for (const json* p : rest) members.push_back(*p);
        auto problem = clique_capacity_problem(members, view);
        group_problem[group] = problem ? *problem : PlacementProblem{kReasonNVLinkClique, "no nvidia.com/gpu.clique holds the group"};
        plan.group_problems.push_back(group_problem[group]);
      }
    }
    if (!group.empty() && group_clique.count(group) > 0) {
      o.only_clique = group_clique[group];
      o.ignore_clique = true;
    }
    if (!group.empty() && group_problem.count(group) > 0) {
      // The group does not fit in one clique. Say why this pod fits nowhere at all, if
      // that is the case; else the clique is the problem.
      FitOptions anywhere;
      anywhere.ignore_clique = true;
      FitResult r = view.fit(t.pod, anywhere);
      if (!r.node) {
        auto p = describe_refusal(t.pod, failing_filters(r), view);
        rp.problem = p ? *p : generic_problem(r);
      } else {
        rp.problem = group_problem[group];
      }
      plan.replicas.push_back(std::move(rp));
      continue;
    }
    FitResult r = view.fit(t.pod, o);
    if (r.node) {
      rp.node = r.node;
      rp.clique = view.clique_of(*r.node);
      view.bind(t.pod, *r.node);
    } else {
      auto p = describe_refusal(t.pod, failing_filters(r), view);
      rp.problem = p ? *p : generic_problem(r);
    }
    plan.replicas.push_back(std::move(rp));
  }
  return plan;
}

}  // namespace dgd::reconcile
