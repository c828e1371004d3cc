// The planner's identity in a namespace: upstream's ServiceAccount planner-serviceaccount
// and its RoleBinding to the chart's planner ClusterRole (what the planner reads, and the
// adapters' scale it patches). Upstream's operator makes the same two per namespace,
// without owners: every graph of the namespace shares them and they outlive each graph.
#include <algorithm>

#include "render/objects.h"
#include "dgd/render/render.h"

namespace dgd::render::detail {

namespace {

json shared_metadata(const std::string& name, const std::string& ns) {
  json labels = {{kLabelManagedBy, kManagedByValue},
                 {"app.kubernetes.io/component", "rbac"},
                 {"app.kubernetes.io/name", kPlannerServiceAccount}};
  return {{"name", name}, {"namespace", ns}, {"labels", std::move(labels)}};
}

}  // namespace

std::vector<json> planner_rbac(const api::Dgd& graph, const std::string& ns, const std::string& cluster_role) {
  const auto& cs = graph.spec.components;
  const bool planner = std::any_of(cs.begin(), cs.end(), [](const api::Component& c) {
    return c.type == api::ComponentType::kPlanner;
  });
  if (!planner) return {};
  json sa = {{"apiVersion", "v1"}, {"kind", "ServiceAccount"}, {"metadata", shared_metadata(kPlannerServiceAccount, ns)}};
  json binding = {{"apiVersion", "rbac.authorization.k8s.io/v1"},
                  {"kind", "RoleBinding"},
                  {"metadata", shared_metadata(kPlannerRoleBinding, ns)},
                  {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "ClusterRole"}, {"name", cluster_role}}},
                  {"subjects", json::array({{{"kind", "ServiceAccount"},
                                             {"name", kPlannerServiceAccount},
                                             {"namespace", ns}}})}};
  std::vector<json> out;
  out.push_back(std::move(sa));
  out.push_back(std::move(binding));
  return out;
}

}  // namespace dgd::render::detail
