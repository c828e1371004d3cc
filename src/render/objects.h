// Builders of the graph-level children (render.h lists them). Each returns nothing when
// the graph does not ask for the object.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "dgd/api/field_error.h"
#include "render/internal.h"

namespace dgd::render::detail {

// ServiceAccount, Role, RoleBinding for the Dynamo runtime's Kubernetes discovery.
std::vector<json> discovery_rbac(const api::Dgd& graph, const std::string& ns);
// With a planner component: the namespace's ServiceAccount planner-serviceaccount and its
// RoleBinding to `clusterRole`, unowned (every graph of the namespace renders the same two).
std::vector<json> planner_rbac(const api::Dgd& graph, const std::string& ns, const std::string& cluster_role);
// resource.nvidia.com/v1beta1 ComputeDomain when placement.nvlink.computeDomain.
std::optional<json> compute_domain(const api::Dgd& graph, const std::string& ns);
// One ConfigMap holding every SGLang worker's config file.
std::optional<json> sglang_config_map(const api::Dgd& graph, const std::string& ns);
// The model-cache PVC when model.cache.create.
std::optional<json> model_cache_pvc(const api::Dgd& graph, const std::string& ns);
// The download Job when model.download (enabled), pinned to model.revision.
// A bad download.resources quantity is reported in `errors` (and no Job is rendered).
std::optional<json> download_job(const api::Dgd& graph, const std::string& ns, std::vector<api::FieldError>& errors);
// "<claim>-download-<8 hex of hash(model id @ revision)>".
std::string download_job_name(const std::string& claim, const std::string& model_id, const std::string& revision);

}  // namespace dgd::render::detail
