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

json httpProbe(const char* path, const char* port, int period, int timeout, int failures, int initialDelay = 0) {
  json get(json::value_t::object);
  put(get, "path", path);
  put(get, "port", port);
  json p(json::value_t::object);
  put(p, "httpGet", std::move(get));
  put(p, "periodSeconds", period);
  put(p, "timeoutSeconds", timeout);
  put(p, "failureThreshold", failures);
  if (initialDelay > 0) put(p, "initialDelaySeconds", initialDelay);
  return p;
}

json fieldRefEnv(const char* name, const char* fieldPath) {
  json fieldRef(json::value_t::object);
  fieldRef.get_ref<json::object_t&>().emplace("fieldPath", fieldPath);
  json valueFrom(json::value_t::object);
  valueFrom.get_ref<json::object_t&>().emplace("fieldRef", std::move(fieldRef));
  json j(json::value_t::object);
  auto& o = j.get_ref<json::object_t&>();
  o.emplace("name", name);
  o.emplace("valueFrom", std::move(valueFrom));
  return j;
}

// Env upstream's operator injects into container main (dynamo-api.md §15).
// Appends `item` to the list unless an item already has the same value at `key`.
void addIfAbsent(json& list, const char* key, const json& value, json item) {
  if (!list.is_array()) list = json::array();
  for (const auto& existing : list) {
    if (existing.is_object() && existing.contains(key) && existing[key] == value) return;
  }
  list.push_back(std::move(item));
}

json injectedEnv(const api::Dgd& graph, const api::Component& c, const std::string& ns,
                 const RenderOptions& options) {
  const auto type = c.type.value_or(api::ComponentType::kWorker);
  const std::string dynNs = componentDynamoNamespace(ns, graph.metadata.name, c);
  json env = json::array({
      envVar("DYN_COMPONENT", api::toString(type)),
      envVar("DYN_DISCOVERY_BACKEND", "kubernetes"),
      envVar("DYN_NAMESPACE", dynNs),
      envVar("DYN_PARENT_DGD_K8S_NAME", graph.metadata.name),
      envVar("DYN_PARENT_DGD_K8S_NAMESPACE", ns),
      fieldRefEnv("POD_NAME", "metadata.name"),
      fieldRefEnv("POD_NAMESPACE", "metadata.namespace"),
      fieldRefEnv("POD_UID", "metadata.uid"),
  });
  if (type == api::ComponentType::kFrontend) {
    const std::string port = std::to_string(c.router && c.router->httpPort ? *c.router->httpPort : api::kFrontendHttpPort);
    env.push_back(envVar("DYNAMO_PORT", port));
    env.push_back(envVar("DYN_HTTP_PORT", port));
    env.push_back(envVar("DYN_NAMESPACE_PREFIX", dynNs));
    // Every worker generation "<prefix>-<8 hex>" and nothing else (worker_generation.h).
    env.push_back(envVar("DYN_NAMESPACE_PREFIX_STRICT", "true"));
  } else if (api::isWorkerType(type)) {
    env.push_back(envVar("DYN_HEALTH_CHECK_ENABLED", "false"));
    env.push_back(envVar("DYN_SYSTEM_ENABLED", "true"));
    env.push_back(envVar("DYN_SYSTEM_PORT", std::to_string(api::kSystemPort)));
    env.push_back(envVar("DYN_SYSTEM_USE_ENDPOINT_HEALTH_STATUS", "[\"generate\"]"));
    env.push_back(envVar("NIXL_TELEMETRY_ENABLE", "n"));
    env.push_back(envVar("NIXL_TELEMETRY_EXPORTER", "prometheus"));
    env.push_back(envVar("NIXL_TELEMETRY_PROMETHEUS_PORT", std::to_string(api::kNixlTelemetryPort)));
  } else if (type == api::ComponentType::kPlanner) {
    env.push_back(envVar("DYN_SYSTEM_PORT", std::to_string(api::kSystemPort)));
    env.push_back(envVar("PLANNER_PROMETHEUS_PORT", std::to_string(api::kPlannerMetricsPort)));
  }
  if (!options.prometheusEndpoint.empty()) env.push_back(envVar("PROMETHEUS_ENDPOINT", options.prometheusEndpoint));
  return env;
}

struct ServicePort {
  const char* name;
  int port;
};

ServicePort servicePort(const api::Component& c) {
  if (c.type == api::ComponentType::kFrontend) {
    return {"http", static_cast<int>(c.router && c.router->httpPort ? *c.router->httpPort : api::kFrontendHttpPort)};
  }
  return {"system", api::kSystemPort};
}

// Upstream's switch: annotation nvidia.com/enable-metrics "false" on the DGD, or on the
// component's podTemplate, turns scraping off; any other value, or none, leaves it on.
bool metricsEnabled(const api::Dgd& graph, const json& pod) {
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
json podTemplateFor(const api::Dgd& graph, const api::Component& c, const std::string& ns,
                    const json& labels, const std::string& deploymentName, const RenderOptions& options,
                    std::vector<api::FieldError>& errors) {
  const std::string path = "spec.components[" + std::to_string(&c - graph.spec.components.data()) + "]";
  json explicitPt = lowerPodTemplate(graph, c, errors);
  const auto type = c.type.value_or(api::ComponentType::kWorker);
  const ServicePort sp = servicePort(c);

  json pod = std::move(explicitPt);
  // Upstream's labels win over a podTemplate's: the Service selects on them.
  json& podLabels = pod["metadata"]["labels"];
  for (auto it = labels.begin(); it != labels.end(); ++it) podLabels[it.key()] = it.value();
  podLabels[kLabelSelector] = deploymentName;
  // "false" rather than no label: turning scraping off is then a change the apply carries.
  podLabels[kLabelMetricsEnabled] = metricsEnabled(graph, pod) ? "true" : "false";
  // The rest of upstream's defaults apply only where the podTemplate says nothing (the
  // same outcome as a strategic merge of the podTemplate over them, without copying it).
  for (const auto& [k, v] : graph.spec.annotations) {
    json& a = pod["metadata"]["annotations"];
    if (!a.contains(k)) a[k] = v;
  }
  json& spec = pod["spec"];
  if (!spec.contains("serviceAccountName")) {
    spec["serviceAccountName"] =
        type == api::ComponentType::kPlanner ? kPlannerServiceAccount : serviceAccountName(graph.metadata.name);
  }
  if (!spec.contains("terminationGracePeriodSeconds")) spec["terminationGracePeriodSeconds"] = 60;
  json& main = mainContainer(pod);
  addIfAbsent(main["ports"], "containerPort", json(sp.port),
              {{"name", sp.name}, {"containerPort", sp.port}, {"protocol", "TCP"}});
  if (type == api::ComponentType::kPlanner) {
    addIfAbsent(main["ports"], "containerPort", json(api::kPlannerMetricsPort),
                {{"name", "metrics"}, {"containerPort", api::kPlannerMetricsPort}, {"protocol", "TCP"}});
  }
  const std::string shm = c.sharedMemorySize.value_or(api::kDefaultSharedMemorySize);
  const auto shmQuantity = object::Quantity::parse(shm);
  if (!shmQuantity || !shmQuantity->is_zero()) {
    addIfAbsent(spec["volumes"], "name", json(kSharedMemoryVolume),
                {{"name", kSharedMemoryVolume}, {"emptyDir", {{"medium", "Memory"}, {"sizeLimit", shm}}}});
    addIfAbsent(main["volumeMounts"], "mountPath", json("/dev/shm"),
                {{"name", kSharedMemoryVolume}, {"mountPath", "/dev/shm"}});
  }
  // compilationCache: upstream's applyCompilationCache / applyCompilationCacheVolume. The
  // PVC is mounted writable at the cache path (a mount of the same PVC there is kept); vLLM
  // is pointed at it with VLLM_CACHE_ROOT, which a podTemplate value of its own overrides.
  json cacheEnv = json::array();
  if (auto cache = api::compilationCache(graph, c)) {
    addIfAbsent(spec["volumes"], "name", json(cache->pvcName),
                {{"name", cache->pvcName}, {"persistentVolumeClaim", {{"claimName", cache->pvcName}}}});
    addIfAbsent(main["volumeMounts"], "mountPath", json(cache->mountPath),
                {{"name", cache->pvcName}, {"mountPath", cache->mountPath}});
    if (api::detectedFramework(graph) == api::BackendFramework::kVllm) {
      cacheEnv.push_back(envVar("VLLM_CACHE_ROOT", cache->mountPath));
    }
  }
  // Env: injected < spec.env < the podTemplate's (which already holds components[].env).
  json specEnv = json::array();
  for (const auto& e : graph.spec.env) specEnv.push_back(envJson(e));
  json env = mergeEnv(mergeEnv(mergeEnv(injectedEnv(graph, c, ns, options), std::move(cacheEnv)), std::move(specEnv)),
                      main.contains("env") ? std::move(main["env"]) : json::array());
  sortBy(env, "name");
  main["env"] = std::move(env);
  // Default probes only where the podTemplate has none: a probe is replaced whole, never
  // merged field by field with a default.
  if (type == api::ComponentType::kFrontend) {
    if (!main.contains("livenessProbe")) main["livenessProbe"] = httpProbe("/live", "http", 10, 1, 3, 15);
    if (!main.contains("readinessProbe")) main["readinessProbe"] = httpProbe("/health", "http", 10, 3, 3, 10);
  } else if (api::isWorkerType(type) || type == api::ComponentType::kPlanner) {
    // The planner's startup probe allows 2 h too: it waits for the workers to be ready.
    if (!main.contains("startupProbe")) main["startupProbe"] = httpProbe("/live", "system", 10, 5, 720);
    if (!main.contains("livenessProbe")) main["livenessProbe"] = httpProbe("/live", "system", 5, 4, 1);
    if (!main.contains("readinessProbe")) main["readinessProbe"] = httpProbe("/health", "system", 10, 4, 3);
  }
  if (main.contains("volumeMounts")) sortBy(main["volumeMounts"], "mountPath");
  if (main.contains("ports")) sortByNumber(main["ports"], "containerPort");
  if (pod["spec"].contains("volumes")) sortBy(pod["spec"]["volumes"], "name");
  try {
    object::canonicalize_resources(pod["spec"]);
  } catch (const object::QuantityError& e) {
    errors.push_back({path + ".podTemplate.spec." + e.path(), e.what()});
  }
  return pod;
}

json deploymentFor(const api::Dgd& graph, const api::Component& c, const std::string& ns,
                   const RenderOptions& options, std::vector<api::FieldError>& errors) {
  const std::string name = api::childName(graph.metadata.name, c.name);
  const json labels = componentLabels(graph, c, ns);
  json matchLabels(json::value_t::object);
  put(matchLabels, kLabelSelector, name);
  json selector(json::value_t::object);
  put(selector, "matchLabels", std::move(matchLabels));
  json spec(json::value_t::object);
  put(spec, "replicas", c.replicas.value_or(api::kDefaultReplicas));
  put(spec, "selector", std::move(selector));
  put(spec, "template", podTemplateFor(graph, c, ns, labels, name, options, errors));
  json d(json::value_t::object);
  put(d, "apiVersion", "apps/v1");
  put(d, "kind", "Deployment");
  put(d, "metadata", childMetadata(graph, name, ns, labels));
  put(d, "spec", std::move(spec));
  return d;
}

json serviceFor(const api::Dgd& graph, const api::Component& c, const std::string& ns) {
  const std::string name = api::childName(graph.metadata.name, c.name);
  json labels = componentLabels(graph, c, ns);
  // Kubernetes discovery: the Service's EndpointSlices are the workers' readiness signal.
  labels[kLabelDiscoveryBackend] = "kubernetes";
  labels[kLabelDiscoveryEnabled] = "true";
  const ServicePort sp = servicePort(c);
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
  put(svc, "metadata", childMetadata(graph, name, ns, labels));
  put(svc, "spec", std::move(spec));
  return svc;
}

int kindRank(const json& o) {
  static const std::map<std::string, int> kOrder = {
      {"ServiceAccount", 0}, {"Role", 1},      {"RoleBinding", 2}, {"PersistentVolumeClaim", 3},
      {"Job", 4},            {"ComputeDomain", 5}, {"ConfigMap", 6}, {"Service", 7}, {"Deployment", 8},
      {"DynamoGraphDeployment", -1}};
  auto it = kOrder.find(o.value("kind", std::string()));
  return it == kOrder.end() ? 9 : it->second;
}

void sortObjects(std::vector<json>& objects) {
  std::stable_sort(objects.begin(), objects.end(), [](const json& a, const json& b) {
    const int ra = kindRank(a), rb = kindRank(b);
    if (ra != rb) return ra < rb;
    return stringAt(a["metadata"], "name") < stringAt(b["metadata"], "name");
  });
}

// Graph-level objects the lowered pods depend on (shared by render and toUpstream).
void addSupportObjects(const api::Dgd& graph, const std::string& ns, std::vector<json>& out,
                       std::vector<api::FieldError>& errors) {
  if (auto pvc = modelCachePvc(graph, ns)) out.push_back(std::move(*pvc));
  if (auto job = downloadJob(graph, ns, errors)) out.push_back(std::move(*job));
  if (auto cd = computeDomain(graph, ns)) out.push_back(std::move(*cd));
  if (auto cm = sglangConfigMap(graph, ns)) out.push_back(std::move(*cm));
}

}  // namespace

RenderResult render(const api::Dgd& graph, const RenderOptions& options) {
  RenderResult r;
  const std::string ns = namespaceOf(graph, options.defaultNamespace);
  for (auto& o : discoveryRbac(graph, ns)) r.objects.push_back(std::move(o));
  for (auto& o : plannerRbac(graph, ns, options.plannerClusterRole)) r.objects.push_back(std::move(o));
  addSupportObjects(graph, ns, r.objects, r.errors);
  for (size_t i = 0; i < graph.spec.components.size(); ++i) {
    const api::Component& c = graph.spec.components[i];
    r.objects.push_back(serviceFor(graph, c, ns));
    json deployment = deploymentFor(graph, c, ns, options, r.errors);
    // Upstream's rollout annotations (api/rollout.h); validate() reports bad values.
    if (auto strategy = api::deploymentStrategy(graph, i, nullptr)) deployment["spec"]["strategy"] = std::move(*strategy);
    r.objects.push_back(std::move(deployment));
  }
  stampWorkerGeneration(r.objects);
  sortObjects(r.objects);
  return r;
}

RenderResult toUpstream(const api::Dgd& graph, const RenderOptions& options) {
  RenderResult r;
  const std::string ns = namespaceOf(graph, options.defaultNamespace);
  json dgd = api::toJson(graph);
  json& spec = dgd["spec"];
  for (const char* typed : {"recipe", "model", "placement", "smokeTest"}) spec.erase(typed);
  dgd.erase("status");
  for (size_t i = 0; i < graph.spec.components.size(); ++i) {
    json& c = spec["components"][i];
    c["podTemplate"] = lowerPodTemplate(graph, graph.spec.components[i], r.errors);
    for (const char* typed : {"engine", "router", "env"}) c.erase(typed);
  }
  r.objects.push_back(std::move(dgd));
  addSupportObjects(graph, ns, r.objects, r.errors);
  sortObjects(r.objects);
  return r;
}

}  // namespace dgd::render
