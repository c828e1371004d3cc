// render: explicit graph → the desired child objects of one DGD (DESIGN.md §3). Pure.
//
// Input is an expanded graph (recipes::expand): no spec.recipe, defaults applied. A DGD
// written in upstream's explicit style (args in podTemplate, no typed blocks) is such a
// graph too and renders with its args untouched.
//
// Per component a Deployment and a Service named `<dgd>-<lowercase component>` with
// upstream Dynamo's labels, env, ports and probes; for the graph the discovery
// ServiceAccount / Role / RoleBinding (`<dgd>-k8s-service-discovery*`), with a planner
// component the namespace's planner ServiceAccount and RoleBinding, the SGLang
// ConfigMap, the GB200 ComputeDomain, and the model-cache PVC and download Job where the
// DGD asks for them. Two layers build each pod template:
//  1. lowering (lowerPodTemplate): the typed blocks become an explicit podTemplate
//     (command / args, DYN_ROUTER_* env, model cache mount, RDMA and NVLink placement);
//     the user's podTemplate is merged over it strategically, then components[].env.
//     to_upstream() stops here: its output is a v1beta1 DGD the upstream operator accepts.
//  2. injection: what upstream's operator adds to every pod (labels, DYN_* / POD_* env,
//     ports, default probes, /dev/shm, the discovery ServiceAccount).
//
// Output contract (what the reconciler and `dgdctl render` rely on):
//  - deterministic: same input, byte-identical output; objects ordered by kind
//    (ServiceAccount, Role, RoleBinding, PersistentVolumeClaim, Job, ComputeDomain,
//    ConfigMap, Service, Deployment) then by name; object keys sorted; env sorted by name,
//    volumes by name, mounts by path, ports by number;
//  - quantities canonical as the API server stores them ("1024Mi" → "1Gi");
//  - only fields the operator decides are set (no server defaults), so comparing a live
//    object with the desired one field by field is exact;
//  - every child except a kept model-cache PVC carries one ownerReference placeholder
//    to the DGD with `uid: ""` (controller, blockOwnerDeletion); the controller replaces
//    it with the DGD's uid (reconcile::set_controller_owner) before applying.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "dgd/api/dgd.h"
#include "dgd/api/field_error.h"

namespace dgd::render {

// Label keys and values (upstream Dynamo, reference dynamo-api.md §14).
inline constexpr const char* kLabelDgdName = "nvidia.com/dynamo-graph-deployment-name";
inline constexpr const char* kLabelComponent = "nvidia.com/dynamo-component";
inline constexpr const char* kLabelComponentType = "nvidia.com/dynamo-component-type";
inline constexpr const char* kLabelDynamoNamespace = "nvidia.com/dynamo-namespace";
inline constexpr const char* kLabelSelector = "nvidia.com/selector";
inline constexpr const char* kLabelDiscoveryBackend = "nvidia.com/dynamo-discovery-backend";
inline constexpr const char* kLabelDiscoveryEnabled = "nvidia.com/dynamo-discovery-enabled";
inline constexpr const char* kLabelManagedBy = "app.kubernetes.io/managed-by";
// Every pod carries kLabelMetricsEnabled=true (what PodMonitors select), or "false" when the
// DGD's or the component podTemplate's annotations set kAnnotationEnableMetrics to "false".
inline constexpr const char* kLabelMetricsEnabled = "nvidia.com/metrics-enabled";
inline constexpr const char* kAnnotationEnableMetrics = "nvidia.com/enable-metrics";
inline constexpr const char* kManagedByValue = "dgd-operator";

// A planner component's pods run as this ServiceAccount of their namespace (upstream's
// name), bound by the RoleBinding kPlannerRoleBinding to RenderOptions::plannerClusterRole.
// Both are shared by every graph of the namespace: no owner, no graph label.
inline constexpr const char* kPlannerServiceAccount = "planner-serviceaccount";
inline constexpr const char* kPlannerRoleBinding = "planner-serviceaccount-binding";

struct RenderOptions {
  // Namespace of a DGD whose metadata has none (e.g. `kubectl kustomize` output).
  std::string default_namespace = "default";
  // The ClusterRole a planner's ServiceAccount is bound to (the chart's planner role).
  std::string planner_cluster_role = "dgd-operator-planner";
  // PROMETHEUS_ENDPOINT of every component when not empty (upstream's
  // infrastructure.prometheusEndpoint): where the planner queries the graph's metrics.
  std::string prometheus_endpoint = "";
};

struct RenderResult {
  std::vector<nlohmann::json> objects;   // the desired children, in the documented order
  std::vector<api::FieldError> errors;   // a podTemplate that cannot be merged, ...
  bool ok() const { return !api::has_errors(errors); }
};

RenderResult render(const api::Dgd& graph, const RenderOptions& options = {});

// The graph as upstream-compatible documents: first the v1beta1 DGD with every typed
// block lowered into its podTemplates (spec.recipe / model / placement and
// components[].engine / router / env removed), then the objects upstream's operator does
// not create but the lowered pods need (SGLang ConfigMap, ComputeDomain, model-cache PVC
// and download Job), as render() makes them.
RenderResult to_upstream(const api::Dgd& graph, const RenderOptions& options = {});

// Layer 1 for one component of `graph`: the explicit podTemplate (see above).
nlohmann::json lower_pod_template(const api::Dgd& graph, const api::Component& component,
                                std::vector<api::FieldError>& errors);

// The model download Job of a cache, model and revision:
// "<claim>-download-<8 hex of FNV-1a(model@revision)>". DGDs that share the three share
// the Job (reconcile/model_cache.h); a new revision gets a new Job.
std::string download_job_name(const std::string& claim, const std::string& model_id, const std::string& revision);

// Label on the model-cache PVC and download Job, naming the claim. They belong to the
// cache, which several DGDs may share, so they carry no DGD name label.
inline constexpr const char* kLabelModelCache = "nvidia.com/model-cache";

// "<k8s namespace>-<dgd name>": the Dynamo namespace of a graph's pods (DYN_NAMESPACE).
std::string dynamo_namespace(const std::string& k8s_namespace, const std::string& dgd_name);
// A component's Dynamo namespace: "dynamo" with components[].globalDynamoNamespace, else
// dynamo_namespace().
std::string component_dynamo_namespace(const std::string& k8s_namespace, const std::string& dgd_name,
                                     const api::Component& c);

}  // namespace dgd::render
