#include "dgd/reconcile/child_kinds.h"

#include "dgd/api/dgd.h"
#include "dgd/render/render.h"

namespace dgd::reconcile {

const std::vector<ChildKind>& child_kinds() {
  static const std::vector<ChildKind> kinds = {
      {kube::resources::service_accounts(), false},
      {kube::resources::roles(), false},
      {kube::resources::role_bindings(), false},
      {kube::resources::persistent_volume_claims(), false},
      {kube::resources::jobs(), false},
      {{"resource.nvidia.com", "v1beta1", "computedomains", "ComputeDomain", true}, true},
      {kube::resources::config_maps(), false},
      {kube::resources::services(), false},
      {kube::resources::deployments(), false},
      // Only with `dgd-operator run --pod-monitors` (pod_monitor.h).
      {{"monitoring.coreos.com", "v1", "podmonitors", "PodMonitor", true}, true},
      // Scaling adapters (scaling_adapters.h): created once, then only their status is written.
      {{api::kGroup, api::kVersion, "dynamographdeploymentscalingadapters", "DynamoGraphDeploymentScalingAdapter", true},
       true},
  };
  return kinds;
}

const ChildKind* find_child_kind(std::string_view api_version, std::string_view kind) {
  const auto slash = api_version.find('/');
  const std::string_view group = slash == std::string_view::npos ? std::string_view{} : api_version.substr(0, slash);
  for (const auto& k : child_kinds()) {
    if (k.resource.kind == kind && k.resource.group == group) return &k;
  }
  return nullptr;
}

kube::ResourceRef dgd_resource() {
  return {api::kGroup, api::kVersion, "dynamographdeployments", api::kKind, true};
}

std::string child_label_selector() {
  return std::string(render::kLabelManagedBy) + "=" + render::kManagedByValue;
}

}  // namespace dgd::reconcile
