// Graph-level children: discovery RBAC, ComputeDomain, SGLang ConfigMap, model-cache PVC
// and download Job.
#include "render/objects.h"

#include <cstdint>
#include <cstdio>

#include "dgd/api/yaml.h"
#include "dgd/object/quantity.h"
#include "dgd/render/engine_args.h"
#include "dgd/render/render.h"

namespace dgd::render::detail {

std::vector<json> discovery_rbac(const api::Dgd& graph, const std::string& ns) {
  const std::string dgd = graph.metadata.name;
  const json labels = graph_labels(graph);
  json sa = {{"apiVersion", "v1"}, {"kind", "ServiceAccount"},
             {"metadata", child_metadata(graph, service_account_name(dgd), ns, labels)}};
  // What the Dynamo runtime's Kubernetes discovery reads and writes (upstream's Role).
  json rules = json::array({
      {{"apiGroups", json::array({""})}, {"resources", json::array({"endpoints", "pods"})},
       {"verbs", json::array({"get", "list", "watch"})}},
      {{"apiGroups", json::array({"discovery.k8s.io"})}, {"resources", json::array({"endpointslices"})},
       {"verbs", json::array({"get", "list", "watch"})}},
      {{"apiGroups", json::array({"nvidia.com"})}, {"resources", json::array({"dynamoworkermetadatas"})},
       {"verbs", json::array({"create", "delete", "get", "list", "patch", "update", "watch"})}},
  });
  json role = {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "Role"},
               {"metadata", child_metadata(graph, role_name(dgd), ns, labels)}, {"rules", std::move(rules)}};
  json binding = {{"apiVersion", "rbac.authorization.k8s.io/v1"}, {"kind", "RoleBinding"},
                  {"metadata", child_metadata(graph, role_binding_name(dgd), ns, labels)},
                  {"roleRef", {{"apiGroup", "rbac.authorization.k8s.io"}, {"kind", "Role"}, {"name", role_name(dgd)}}},
                  {"subjects", json::array({{{"kind", "ServiceAccount"},
                                             {"name", service_account_name(dgd)},
                                             {"namespace", ns}}})}};
  std::vector<json> out;
  out.reserve(3);
  out.push_back(std::move(sa));
  out.push_back(std::move(role));
  out.push_back(std::move(binding));
  return out;
}

std::optional<json> compute_domain(const api::Dgd& graph, const std::string& ns) {
  const auto& p = graph.spec.placement;
  if (!p || !p->nvlink || !p->nvlink->compute_domain.value_or(false)) return std::nullopt;
  const std::string dgd = graph.metadata.name;
  // numNodes 0: pods start as soon as their node's IMEX daemon is up (kube-api.md §9.1).
  return json{{"apiVersion", "resource.nvidia.com/v1beta1"}, {"kind", "ComputeDomain"},
              {"metadata", child_metadata(graph, compute_domain_name(dgd), ns, graph_labels(graph))},
              {"spec", {{"numNodes", 0},
                        {"channel", {{"allocationMode", "Single"},
                                     {"resourceClaimTemplate", {{"name", claim_template_name(dgd)}}}}}}}};
}

std::optional<json> sglang_config_map(const api::Dgd& graph, const std::string& ns) {
  if (framework_of(graph) != api::BackendFramework::kSglang) return std::nullopt;
  json data = json::object();
  const api::Model model = graph.spec.model.value_or(api::Model{});
  for (const auto& c : graph.spec.components) {
    if (!c.engine || !c.type || !api::is_worker_type(*c.type)) continue;
    data[sglang_config_key(graph, c)] = api::json_to_yaml(sglang_config(model, *c.type, *c.engine));
  }
  if (data.empty()) return std::nullopt;
  return json{{"apiVersion", "v1"}, {"kind", "ConfigMap"},
              {"metadata", child_metadata(graph, sglang_config_map_name(graph.metadata.name), ns, graph_labels(graph))},
              {"data", data}};
}

namespace {

// Metadata of the model-cache PVC and download Job: they belong to the cache, which
// DGDs may share, so nothing in them names one DGD (no DGD label, no spec.labels or
// spec.annotations); otherwise each sharing DGD would rewrite them to its own.
json cache_metadata(const api::Dgd& graph, const std::string& name, const std::string& ns, const std::string& claim,
                   bool owned) {
  json labels = {{kLabelManagedBy, kManagedByValue}, {kLabelModelCache, claim}};
  json m = child_metadata(graph, name, ns, labels, owned);
  m.erase("annotations");
  return m;
}

}  // namespace

std::optional<json> model_cache_pvc(const api::Dgd& graph, const std::string& ns) {
  const auto& m = graph.spec.model;
  if (!m || !m->cache || !m->cache->claim_name || !m->cache->create) return std::nullopt;
  const auto& create = *m->cache->create;
  json spec = {{"accessModes", json::array({create.access_mode.value_or("ReadWriteMany")})}};
  if (create.size) {
    // Canonical, as the API server stores it (validation rejected malformed sizes).
    spec["resources"]["requests"]["storage"] = object::canonical_quantity(*create.size).value_or(*create.size);
  }
  if (create.storage_class_name) spec["storageClassName"] = *create.storage_class_name;
  // A kept cache has no owner, so deleting the DGD does not delete 500 GB of weights.
  const bool owned = !m->cache->keep_on_delete.value_or(true);
  return json{{"apiVersion", "v1"}, {"kind", "PersistentVolumeClaim"},
              {"metadata", cache_metadata(graph, *m->cache->claim_name, ns, *m->cache->claim_name, owned)},
              {"spec", std::move(spec)}};
}

std::string download_job_name(const std::string& claim, const std::string& model_id, const std::string& revision) {
  // FNV-1a over model and revision: one Job per (cache, model, revision), so DGDs
  // sharing a cache share the Job, and a new revision gets a new Job.
  uint32_t h = 2166136261u;
  for (unsigned char ch : model_id + "@" + revision) {
    h ^= ch;
    h *= 16777619u;
  }
  char hex[9];
  std::snprintf(hex, sizeof hex, "%08x", h);
  std::string base = claim.substr(0, 63 - 18);
  return base + "-download-" + hex;
}

std::optional<json> download_job(const api::Dgd& graph, const std::string& ns, std::vector<api::FieldError>& errors) {
  const auto& m = graph.spec.model;
  if (!m || !m->download || !m->download->enabled.value_or(true) || !m->id || !m->cache || !m->cache->claim_name) {
    return std::nullopt;
  }
  const std::string claim = *m->cache->claim_name;
  const std::string mount = m->cache->mount_path.value_or("/" + claim);
  const std::string revision = m->revision.value_or("");
  const bool fast = m->download->high_performance.value_or(true);
  json env = json::array({env_var("HF_HOME", mount), env_var("HF_XET_HIGH_PERFORMANCE", fast ? "1" : "0"),
                          env_var("MODEL_ID", *m->id)});
  if (!revision.empty()) env.push_back(env_var("MODEL_REVISION", revision));
  if (m->download->token_secret_ref && m->download->token_secret_ref->name) {
    // The token only by reference: the Secret's value never appears in the object.
    env.push_back({{"name", "HF_TOKEN"},
                   {"valueFrom", {{"secretKeyRef", {{"name", *m->download->token_secret_ref->name},
                                                    {"key", m->download->token_secret_ref->key.value_or("HF_TOKEN")}}}}}});
  }
  sort_by(env, "name");
  // The model id travels in an env var, never spliced into the shell text. `hf download`
  // resumes partial downloads, so a retried Job continues where it stopped.
  // The pins are validated (name==version: nothing a shell interprets).
  std::string pip = "pip install --no-cache-dir";
  const std::vector<std::string> defaults = {"huggingface_hub==1.16.4"};
  for (const auto& pkg : m->download->packages.empty() ? defaults : m->download->packages) pip += " " + pkg;
  std::string script = "set -eu\n" + pip + "\n";
  script += revision.empty() ? "hf download \"$MODEL_ID\"\n" : "hf download \"$MODEL_ID\" --revision \"$MODEL_REVISION\"\n";
  json container = {
      {"name", "download"},
      {"image", m->download->image.value_or("python:3.10-slim")},
      {"command", json::array({"sh", "-c", script})},
      {"env", std::move(env)},
      {"securityContext", {{"allowPrivilegeEscalation", false},
                           {"capabilities", {{"drop", json::array({"ALL"})}}},
                           {"seccompProfile", {{"type", "RuntimeDefault"}}}}},
      // A failed download's last log lines become the pod's termination message, which
      // the DGD's ModelCacheReady condition quotes (e.g. "401 Client Error: Unauthorized").
      {"terminationMessagePolicy", "FallbackToLogsOnError"},
      {"volumeMounts", json::array({{{"name", "model-cache"}, {"mountPath", mount}}})}};
  if (m->download->resources.is_object() && !m->download->resources.empty()) {
    container["resources"] = m->download->resources;
  }
  // The Job is shared by the DGDs on this cache, model and revision, and owned by the
  // PVC once the reconciler knows its uid (reconcile/model_cache.h); the placeholder
  // owner here is the DGD's, as for every child. Its pod must not carry the graph's
  // name label either: the recipe pages wait for `kubectl wait --for=condition=Ready pod
  // -l <dgd-name label>`, and a Completed download pod never turns Ready.
  json meta = cache_metadata(graph, download_job_name(claim, *m->id, revision), ns, claim, true);
  json pod_labels = meta["labels"];
  meta["annotations"]["nvidia.com/model-id"] = *m->id;
  if (!revision.empty()) meta["annotations"]["nvidia.com/model-revision"] = revision;
  json pod_spec = {{"restartPolicy", "Never"},
                 {"containers", json::array({std::move(container)})},
                 {"volumes", json::array({{{"name", "model-cache"}, {"persistentVolumeClaim", {{"claimName", claim}}}}})}};
  try {
    object::canonicalize_resources(pod_spec);  // canonical, as the API server stores them
  } catch (const object::QuantityError& e) {
    errors.push_back({"spec.model.download.resources", e.what()});
    return std::nullopt;
  }
  return json{{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", std::move(meta)},
              {"spec", {{"backoffLimit", 3}, {"completions", 1}, {"parallelism", 1},
                        {"template", {{"metadata", {{"labels", std::move(pod_labels)}}}, {"spec", std::move(pod_spec)}}}}}};
}

}  // namespace dgd::render::detail

namespace dgd::render {

std::string download_job_name(const std::string& claim, const std::string& model_id, const std::string& revision) {
  return detail::download_job_name(claim, model_id, revision);
}

}  // namespace dgd::render
