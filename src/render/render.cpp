// Layer 2 of render (what upstream's operator injects into every pod), the per-component
// Deployment and Service, and the order of the output (render.h).
#include "dgd/render/render.h"

#include <algorithm>
#include <map>

#include <nlohmann/json.hpp>

#include "dgd/api/defaults.h"
#include "dgd/api/parse.h"
#include "dgd/api/rollout.h"
#include "dgd/api/upstream_fields.h"
#include "dgd/api/validate.h"
#include "dgd/render/worker_generation.h"
#include "dgd/object/field_schema.h"
#include "dgd/object/quantity.h"
#include "dgd/object/strategic_merge.h"
#include "render/internal.h"
#include "render/objects.h"

namespace dgd::render {
namespace {

using nlohmann::json;
using namespace detail;

json http_probe(const char* path, const char* port, int period, int timeout, int failures, int initial_delay = 0) {
  json get(json::value_t::object);
  put(get, "path", path);
  put(get, "port", port);
  json p(json::value_t::object);
  put(p, "httpGet", std::move(get));
  put(p, "periodSeconds", period);
  put(p, "timeoutSeconds", timeout);
  put(p, "failureThreshold", failures);
  if (initial_delay > 0) put(p, "initialDelaySeconds", initial_delay);
  return p;
}

json field_ref_env(const char* name, const char* field_path) {
  json field_ref(json::value_t::object);
  field_ref.get_ref<json::object_t&>().emplace("fieldPath", field_path);
  json value_from(json::value_t::object);
  value_from.get_ref<json::object_t&>().emplace("fieldRef", std::move(field_ref));
  json j(json::value_t::object);
  auto& o = j.get_ref<json::object_t&>();
  o.emplace("name", name);
  o.emplace("valueFrom", std::move(value_from));
  return j;
}

// Env upstream's operator injects into container main (dynamo-api.md §15).
// Appends `item` to the list unless an item already has the same value at `key`.
void add_if_absent(json& list, const char* key, const json& value, json item) {
  if (!list.is_array()) list = json::array();
  for (const auto& existing : list) {
    if (existing.is_object() && existing.contains(key) && existing[key] == value) return;
  }
  list.push_back(std::move(item));
}

json injected_env(const api::Dgd& graph, const api::Component& c, const std::string& ns,
                 const RenderOptions& options) {
  const auto type = c.type.value_or(api::ComponentType::kWorker);
  const std::string dyn_ns = component_dynamo_namespace(ns, graph.metadata.name, c);
  json env = json::array({
      env_var("DYN_COMPONENT", api::to_string(type)),
      env_var("DYN_DISCOVERY_BACKEND", "kubernetes"),
      env_var("DYN_NAMESPACE", dyn_ns),
      env_var("DYN_PARENT_DGD_K8S_NAME", graph.metadata.name),
      env_var("DYN_PARENT_DGD_K8S_NAMESPACE", ns),
      field_ref_env("POD_NAME", "metadata.name"),
      field_ref_env("POD_NAMESPACE", "metadata.namespace"),
      field_ref_env("POD_UID", "metadata.uid"),
  });
  if (type == api::ComponentType::kFrontend) {
    const std::string port = std::to_string(c.router && c.router->http_port ? *c.router->http_port : api::kFrontendHttpPort);
    env.push_back(env_var("DYNAMO_PORT", port));
    env.push_back(env_var("DYN_HTTP_PORT", port));
    env.push_back(env_var("DYN_NAMESPACE_PREFIX", dyn_ns));
    // Every worker generation "<prefix>-<8 hex>" and nothing else (worker_generation.h).
    env.push_back(env_var("DYN_NAMESPACE_PREFIX_STRICT", "true"));
  } else if (api::is_worker_type(type)) {
    env.push_back(env_var("DYN_HEALTH_CHECK_ENABLED", "false"));
    env.push_back(env_var("DYN_SYSTEM_ENABLED", "true"));
    env.push_back(env_var("DYN_SYSTEM_PORT", std::to_string(api::kSystemPort)));
    env.push_back(env_var("DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS", "[\"generate\"]"));
    env.push_back(env_var("NIXL_TELEMETRY_ENABLE", "n"));
    env.push_back(env_var("NIXL_TELEMETRY_EXPORTER", "prometheus"));
    env.push_back(env_var("NIXL_TELEMETRY_PROMETHEUS_PORT", std::to_string(api::kNixlTelemetryPort)));
  } else if (type == api::ComponentType::kPlanner) {
    env.push_back(env_var("DYN_SYSTEM_PORT", std::to_string(api::kSystemPort)));
    env.push_back(env_var("PLANNER_PROMETHEUS_PORT", std::to_string(api::kPlannerMetricsPort)));
  }
  if (!options.prometheus_endpoint.empty()) env.push_back(env_var("PROMETHEUS_ENDPOINT", options.prometheus_endpoint));
  return env;
}

struct ServicePort {
  const char* name;
  int port;
};

ServicePort service_port(const api::Component& c) {
  if (c.type == api::ComponentType::kFrontend) {
    return {"http", static_cast<int>(c.router && c.router->http_port ? *c.router->http_port : api::kFrontendHttpPort)};
  }
  return {"system", api::kSystemPort};
}

// Upstream's switch: annotation nvidia.com/enable-metrics "false" on the DGD, or on the
// component's podTemplate, turns scraping off; any other value, or none, leaves it on.
bool metrics_enabled(const api::Dgd& graph, const json& pod) {
  if (auto it = graph.metadata.annotations.find(kAnnotationEnableMetrics); it != graph.metadata.annotations.end()) {
    if (it->second == "false") return false;
  }
  const json* a = &pod;
  for (const char* key : {"metadata", "annotations", kAnnotationEnableMetrics}) {
    if (!a->is_object() || !a->contains(key)) return true;
    a = &(*a)[key];
  }
  return !(a->is_string() && a->get<std::string>() == "false");
}

// Layer 2: upstream's pod defaults under the explicit podTemplate.
json pod_template_for(const api::Dgd& graph, const api::Component& c, const std::string& ns,
                    const json& labels, const std::string& deployment_name, const RenderOptions& options,
                    std::vector<api::FieldError>& errors) {
  const std::string path = "spec.components[" + std::to_string(&c - graph.spec.components.data()) + "]";
  json explicit_pt = lower_pod_template(graph, c, errors);
  const auto type = c.type.value_or(api::ComponentType::kWorker);
  const ServicePort sp = service_port(c);

  json pod = std::move(explicit_pt);
  // Upstream's labels win over a podTemplate's: the Service selects on them.
  json& pod_labels = pod["metadata"]["labels"];
  for (auto it = labels.begin(); it != labels.end(); ++it) pod_labels[it.key()] = it.value();
  pod_labels[kLabelSelector] = deployment_name;
  // "false" rather than no label: turning scraping off is then a change the apply carries.
  pod_labels[kLabelMetricsEnabled] = metrics_enabled(graph, pod) ? "true" : "false";
  // The rest of upstream's defaults apply only where the podTemplate says nothing (the
  // same outcome as a strategic merge of the podTemplate over them, without copying it).
  for (const auto& [k, v] : graph.spec.annotations) {
    json& a = pod["metadata"]["annotations"];
    if (!a.contains(k)) a[k] = v;
  }
  json& spec = pod["spec"];
  if (!spec.contains("serviceAccountName")) {
    spec["serviceAccountName"] =
        type == api::ComponentType::kPlanner ? kPlannerServiceAccount : service_account_name(graph.metadata.name);
  }
  if (!spec.contains("terminationGracePeriodSeconds")) spec["terminationGracePeriodSeconds"] = 60;
  json& main = main_container(pod);
  add_if_absent(main["ports"], "containerPort", json(sp.port),
              {{"name", sp.name}, {"containerPort", sp.port}, {"protocol", "TCP"}});
  if (type == api::ComponentType::kPlanner) {
    add_if_absent(main["ports"], "containerPort", json(api::kPlannerMetricsPort),
                {{"name", "metrics"}, {"containerPort", api::kPlannerMetricsPort}, {"protocol", "TCP"}});
  }
  const std::string shm = c.shared_memory_size.value_or(api::kDefaultSharedMemorySize);
  const auto shm_quantity = object::Quantity::parse(shm);
  if (!shm_quantity || !shm_quantity->is_zero()) {
    add_if_absent(spec["volumes"], "name", json(kSharedMemoryVolume),
                {{"name", kSharedMemoryVolume}, {"emptyDir", {{"medium", "Memory"}, {"sizeLimit", shm}}}});
    add_if_absent(main["volumeMounts"], "mountPath", json("/dev/shm"),
                {{"name", kSharedMemoryVolume}, {"mountPath", "/dev/shm"}});
  }
  // compilationCache: upstream's applyCompilationCache / applyCompilationCacheVolume. The
  // PVC is mounted writable at the cache path (a mount of the same PVC there is kept); vLLM
  // is pointed at it with VLLM_CACHE_ROOT, which a podTemplate value of its own overrides.
  json cache_env = json::array();
  if (auto cache = api::compilation_cache(graph, c)) {
    add_if_absent(spec["volumes"], "name", json(cache->pvc_name),
                {{"name", cache->pvc_name}, {"persistentVolumeClaim", {{"claimName", cache->pvc_name}}}});
    add_if_absent(main["volumeMounts"], "mountPath", json(cache->mount_path),
                {{"name", cache->pvc_name}, {"mountPath", cache->mount_path}});
    if (api::detected_framework(graph) == api::BackendFramework::kVllm) {
      cache_env.push_back(env_var("VLLM_CACHE_ROOT", cache->mount_path));
    }
  }
  // Env: injected < spec.env < the podTemplate's (which already holds components[].env).
  json spec_env = json::array();
  for (const auto& e : graph.spec.env) spec_env.push_back(env_json(e));
  json env = merge_env(merge_env(merge_env(injected_env(graph, c, ns, options), std::move(cache_env)), std::move(spec_env)),
                      main.contains("env") ? std::move(main["env"]) : json::array());
  sort_by(env, "name");
  main["env"] = std::move(env);
  // Default probes only where the podTemplate has none: a probe is replaced whole, never
  // merged field by field with a default.
  if (type == api::ComponentType::kFrontend) {
    if (!main.contains("livenessProbe")) main["livenessProbe"] = http_probe("/live", "http", 10, 1, 3, 15);
    if (!main.contains("readinessProbe")) main["readinessProbe"] = http_probe("/health", "http", 10, 3, 3, 10);
  } else if (api::is_worker_type(type) || type == api::ComponentType::kPlanner) {
    // The planner's startup probe allows 2 h too: it waits for the workers to be ready.
    if (!main.contains("startupProbe")) main["startupProbe"] = http_probe("/live", "system", 10, 5, 720);
    if (!main.contains("livenessProbe")) main["livenessProbe"] = http_probe("/live", "system", 5, 4, 1);
    if (!main.contains("readinessProbe")) main["readinessProbe"] = http_probe("/health", "system", 10, 4, 3);
  }
  if (main.contains("volumeMounts")) sort_by(main["volumeMounts"], "mountPath");
  if (main.contains("ports")) sort_by_number(main["ports"], "containerPort");
  if (pod["spec"].contains("volumes")) sort_by(pod["spec"]["volumes"], "name");
  try {
    object::canonicalize_resources(pod["spec"]);
  } catch (const object::QuantityError& e) {
    errors.push_back({path + ".podTemplate.spec." + e.path(), e.what()});
  }
  return pod;
}

json deployment_for(const api::Dgd& graph, const api::Component& c, const std::string& ns,
                   const RenderOptions& options, std::vector<api::FieldError>& errors) {
  const std::string name = api::child_name(graph.metadata.name, c.name);
  const json labels = component_labels(graph, c, ns);
  json match_labels(json::value_t::object);
  put(match_labels, kLabelSelector, name);
  json selector(json::value_t::object);
  put(selector, "matchLabels", std::move(match_labels));
  json spec(json::value_t::object);
  put(spec, "replicas", c.replicas.value_or(api::kDefaultReplicas));
  put(spec, "selector", std::move(selector));
  put(spec, "template", pod_template_for(graph, c, ns, labels, name, options, errors));
  json d(json::value_t::object);
  put(d, "apiVersion", "apps/v1");
  put(d, "kind", "Deployment");
  put(d, "metadata", child_metadata(graph, name, ns, labels));
  put(d, "spec", std::move(spec));
  return d;
}

json service_for(const api::Dgd& graph, const api::Component& c, const std::string& ns) {
  const std::string name = api::child_name(graph.metadata.name, c.name);
  json labels = component_labels(graph, c, ns);
  // Kubernetes discovery: the Service's EndpointSlices are the workers' readiness signal.
  labels[kLabelDiscoveryBackend] = "kubernetes";
  labels[kLabelDiscoveryEnabled] = "true";
  const ServicePort sp = service_port(c);
  json selector(json::value_t::object);
  put(selector, kLabelComponent, c.name);
  put(selector, kLabelComponentType, labels[kLabelComponentType]);
  put(selector, kLabelDynamoNamespace, labels[kLabelDynamoNamespace]);
  json port(json::value_t::object);
  put(port, "name", sp.name);
  put(port, "port", sp.port);
  put(port, "targetPort", sp.name);
  put(port, "protocol", "TCP");
  json ports(json::value_t::array);
  ports.push_back(std::move(port));
  json spec(json::value_t::object);
  put(spec, "selector", std::move(selector));
  put(spec, "ports", std::move(ports));
  json svc(json::value_t::object);
  put(svc, "apiVersion", "v1");
  put(svc, "kind", "Service");
  put(svc, "metadata", child_metadata(graph, name, ns, labels));
  put(svc, "spec", std::move(spec));
  return svc;
}

int kind_rank(const json& o) {
  static const std::map<std::string, int> kOrder = {
      {"ServiceAccount", 0}, {"Role", 1},      {"RoleBinding", 2}, {"PersistentVolumeClaim", 3},
      {"Job", 4},            {"ComputeDomain", 5}, {"ConfigMap", 6}, {"Service", 7}, {"Deployment", 8},
      {"DynamoGraphDeployment", -1}};
  auto it = kOrder.find(o.value("kind", std::string()));
  return it == kOrder.end() ? 9 : it->second;
}

void sort_objects(std::vector<json>& objects) {
  std::stable_sort(objects.begin(), objects.end(), [](const json& a, const json& b) {
    const int ra = kind_rank(a), rb = kind_rank(b);
    if (ra != rb) return ra < rb;
    return string_at(a["metadata"], "name") < string_at(b["metadata"], "name");
  });
}

// Graph-level objects the lowered pods depend on (shared by render and to_upstream).
void add_support_objects(const api::Dgd& graph, const std::string& ns, std::vector<json>& out,
                       std::vector<api::FieldError>& errors) {
  if (auto pvc = model_cache_pvc(graph, ns)) out.push_back(std::move(*pvc));
  if (auto job = download_job(graph, ns, errors)) out.push_back(std::move(*job));
  if (auto cd = compute_domain(graph, ns)) out.push_back(std::move(*cd));
  if (auto cm = sglang_config_map(graph, ns)) out.push_back(std::move(*cm));
}

}  // namespace

RenderResult render(const api::Dgd& graph, const RenderOptions& options) {
  RenderResult r;
  const std::string ns = namespace_of(graph, options.default_namespace);
  for (auto& o : discovery_rbac(graph, ns)) r.objects.push_back(std::move(o));
  for (auto& o : planner_rbac(graph, ns, options.planner_cluster_role)) r.objects.push_back(std::move(o));
  add_support_objects(graph, ns, r.objects, r.errors);
  for (size_t i = 0; i < graph.spec.components.size(); ++i) {
    const api::Component& c = graph.spec.components[i];
    r.objects.push_back(service_for(graph, c, ns));
    json deployment = deployment_for(graph, c, ns, options, r.errors);
    // Upstream's rollout annotations (api/rollout.h); validate() reports bad values.
    if (auto strategy = api::deployment_strategy(graph, i, nullptr)) deployment["spec"]["strategy"] = std::move(*strategy);
    r.objects.push_back(std::move(deployment));
  }
  stamp_worker_generation(r.objects);
  sort_objects(r.objects);
  return r;
}

RenderResult to_upstream(const api::Dgd& graph, const RenderOptions& options) {
  RenderResult r;
  const std::string ns = namespace_of(graph, options.default_namespace);
  json dgd = api::to_json(graph);
  json& spec = dgd["spec"];
  for (const char* typed : {"recipe", "model", "placement", "smokeTest"}) spec.erase(typed);
  dgd.erase("status");
  for (size_t i = 0; i < graph.spec.components.size(); ++i) {
    json& c = spec["components"][i];
    c["podTemplate"] = lower_pod_template(graph, graph.spec.components[i], r.errors);
    for (const char* typed : {"engine", "router", "env"}) c.erase(typed);
  }
  r.objects.push_back(std::move(dgd));
  add_support_objects(graph, ns, r.objects, r.errors);
  sort_objects(r.objects);
  return r;
}

}  // namespace dgd::render
