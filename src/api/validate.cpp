// Per-field validation: names, ranges, enums, quantities (see validate.h).
#include "dgd/api/validate.h"

#include <algorithm>
#include <cctype>
#include <cstring>
#include <set>

#include "api/checker.h"
#include "api/syntax.h"
#include "dgd/api/defaults.h"
#include "dgd/api/parse.h"
#include "dgd/api/rollout.h"

namespace dgd::api {
namespace detail {

using syntax::shown;

bool contains(std::initializer_list<std::string_view> set, std::string_view v) {
  return std::find(set.begin(), set.end(), v) != set.end();
}

std::string list_of(std::initializer_list<std::string_view> set) {
  std::string out;
  for (auto s : set) {
    if (!out.empty()) out += ", ";
    out += s;
  }
  return out;
}

std::vector<FieldError> Checker::take() {
  static constexpr std::string_view kPrefix = "spec.components[";
  for (auto& e : out_) {
    if (e.path.compare(0, kPrefix.size(), kPrefix) != 0) continue;
    size_t end = e.path.find(']', kPrefix.size());
    if (end == std::string::npos) continue;
    size_t index = 0;
    bool digits = end > kPrefix.size();
    for (size_t i = kPrefix.size(); i < end && digits; ++i) {
      digits = e.path[i] >= '0' && e.path[i] <= '9';
      if (digits && index < 1'000'000) index = index * 10 + static_cast<size_t>(e.path[i] - '0');
    }
    if (digits && index < dgd_.spec.components.size()) e.component = syntax::shown(dgd_.spec.components[index].name);
  }
  return std::move(out_);
}

void Checker::range(const std::string& path, const std::optional<int64_t>& v, int64_t lo, int64_t hi) {
  if (v && (*v < lo || *v > hi)) {
    error(path, "must be " + std::to_string(lo) + ".." + std::to_string(hi) + ", got " + std::to_string(*v));
  }
}

void Checker::one_of(const std::string& path, const std::optional<std::string>& v,
                    std::initializer_list<std::string_view> allowed) {
  if (v && !contains(allowed, *v)) {
    error(path, "unsupported value \"" + shown(*v) + "\": must be one of: " + list_of(allowed));
  }
}

const nlohmann::json* main_container(const nlohmann::json& pod_template, size_t* index) {
  if (!pod_template.is_object()) return nullptr;
  auto spec = pod_template.find("spec");
  if (spec == pod_template.end() || !spec->is_object()) return nullptr;
  auto containers = spec->find("containers");
  if (containers == spec->end() || !containers->is_array()) return nullptr;
  for (size_t i = 0; i < containers->size(); ++i) {
    const auto& c = (*containers)[i];
    if (c.is_object() && c.value("name", nlohmann::json()) == "main") {
      if (index) *index = i;
      return &c;
    }
  }
  return nullptr;
}

std::optional<int64_t> main_container_gpus(const nlohmann::json& pod_template) {
  const nlohmann::json* main = main_container(pod_template);
  if (!main) return std::nullopt;
  auto resources = main->find("resources");
  if (resources == main->end() || !resources->is_object()) return std::nullopt;
  for (const char* kind : {"limits", "requests"}) {
    auto list = resources->find(kind);
    if (list == resources->end() || !list->is_object()) continue;
    auto gpu = list->find("nvidia.com/gpu");
    if (gpu == list->end()) continue;
    if (gpu->is_number_integer()) return gpu->get<int64_t>();
    if (gpu->is_string()) {
      auto q = syntax::parse_quantity(gpu->get<std::string>());
      if (q && *q >= 0 && *q < 1e6 && *q == static_cast<double>(static_cast<int64_t>(*q))) {
        return static_cast<int64_t>(*q);
      }
    }
    return std::nullopt;
  }
  return std::nullopt;
}

void Checker::check_all() {
  check_metadata();
  check_spec();
}

void Checker::check_metadata() {
  if (dgd_.api_version != kApiVersion) {
    if (dgd_.api_version == "nvidia.com/v1alpha1") {
      error("apiVersion", "nvidia.com/v1alpha1 is not served by dgd-operator: convert the file to "
                          "nvidia.com/v1beta1 with `dgdctl convert -f FILE` (or `kubectl dgd convert -f FILE`)");
    } else {
      error("apiVersion", "must be nvidia.com/v1beta1, got \"" + shown(dgd_.api_version) + "\"");
    }
  }
  if (dgd_.kind != kKind) error("kind", "must be DynamoGraphDeployment, got \"" + shown(dgd_.kind) + "\"");
  const ObjectMeta& m = dgd_.metadata;
  if (m.name.empty()) {
    error("metadata.name", "required");
  } else if (!syntax::is_dns1035_label(m.name)) {
    error("metadata.name", "\"" + shown(m.name) +
                               "\" is not a valid name: lower-case letters, digits and '-', starting with a letter, "
                               "ending with a letter or digit, at most 63 characters (it prefixes Service names)");
  }
  if (!m.namespace_.empty() && !syntax::is_dns1123_label(m.namespace_)) {
    error("metadata.namespace", "\"" + shown(m.namespace_) + "\" is not a valid namespace name");
  }
  check_string_map(m.labels, "metadata.labels", true);
  check_string_map(m.annotations, "metadata.annotations", false);
}

void Checker::check_string_map(const std::map<std::string, std::string>& m, const std::string& path, bool labels) {
  size_t total = 0;
  for (const auto& [k, v] : m) {
    if (!syntax::is_qualified_name(k)) {
      error(path + "." + shown(k), "invalid key: [prefix/]name with a DNS prefix and a name of at most 63 "
                                   "alphanumerics, '-', '_' or '.'");
    }
    if (labels && !syntax::is_label_value(v)) {
      error(path + "." + shown(k), "invalid label value \"" + shown(v) +
                                       "\": at most 63 alphanumerics, '-', '_' or '.', starting and ending "
                                       "with an alphanumeric");
    }
    total += k.size() + v.size();
  }
  if (!labels && total > 256 * 1024) error(path, "total size must not exceed 256 KiB");
}

void Checker::check_env_list(const std::vector<EnvVar>& env, const std::string& path, int component) {
  std::set<std::string> seen;
  for (size_t i = 0; i < env.size(); ++i) {
    const EnvVar& e = env[i];
    std::string p = path + "[" + std::to_string(i) + "]";
    if (e.name.empty()) {
      error(p + ".name", "required");
    } else if (!syntax::is_env_var_name(e.name)) {
      error(p + ".name", "\"" + shown(e.name) + "\" is not a valid environment variable name");
    } else if (!seen.insert(e.name).second) {
      error(p + ".name", "duplicate variable \"" + shown(e.name) + "\" in this list");
    }
    if (e.value && !e.value_from.is_null()) error(p, "set either value or valueFrom, not both");
    if (!e.value_from.is_null() && !e.value_from.is_object()) error(p + ".valueFrom", "must be an object");
    envs_.push_back({&e, e.name, e.value.value_or(""), p, component});
  }
}

void Checker::check_spec() {
  const Spec& s = dgd_.spec;
  if (s.recipe) {
    // <model>/<framework>/<target>, each a lower-case name (dots allowed in the model).
    const std::string& r = *s.recipe;
    size_t a = r.find('/');
    size_t b = a == std::string::npos ? a : r.find('/', a + 1);
    bool ok = a != std::string::npos && b != std::string::npos && r.find('/', b + 1) == std::string::npos &&
              syntax::is_dns1123_subdomain(r.substr(0, a)) && syntax::is_dns1123_label(r.substr(a + 1, b - a - 1)) &&
              syntax::is_dns1123_label(r.substr(b + 1));
    if (!ok) {
      error("spec.recipe", "\"" + shown(r) + "\" is not a recipe name: <model>/<framework>/<target>, e.g. "
                                              "deepseek-v4.1-flash/vllm/disagg-h200-agentic (`dgdctl recipes list`)");
    } else if (s.backend_framework) {
      std::string fw = r.substr(a + 1, b - a - 1);
      if (fw != to_string(*s.backend_framework)) {
        error("spec.backendFramework", std::string("\"") + to_string(*s.backend_framework) +
                                           "\" contradicts the recipe's framework \"" + fw + "\"");
      }
    }
  }
  check_env_list(s.env, "spec.env", -1);
  check_string_map(s.annotations, "spec.annotations", false);
  check_string_map(s.labels, "spec.labels", true);
  if (s.model) check_model(*s.model, "spec.model");
  if (s.placement) check_placement(*s.placement, "spec.placement");
  if (s.smoke_test) check_smoke_test(*s.smoke_test, "spec.smokeTest");

  // Upstream spec fields outside the typed blocks: implemented or refused, never ignored.
  for (auto it = s.extra.begin(); it != s.extra.end(); ++it) check_upstream_spec_field(it.key(), it.value());

  const auto& comps = s.components;
  if (comps.size() > kMaxComponents) {
    error("spec.components", "at most " + std::to_string(kMaxComponents) + " components, got " +
                                 std::to_string(comps.size()));
  }
  if (complete_ && comps.empty()) error("spec.components", "at least one component is required");
  std::map<std::string, size_t> seen;  // lower-case name → first index
  std::set<std::string> rollout_paths;  // a bad spec.annotations value is reported once
  for (size_t i = 0; i < comps.size(); ++i) {
    check_component(i, comps[i]);
    std::vector<FieldError> rollout;
    deployment_strategy(dgd_, i, &rollout);
    for (auto& e : rollout) {
      if (rollout_paths.insert(e.path).second) error(e.path, e.message);
    }
    if (comps[i].name.empty()) continue;
    std::string lower = comps[i].name;
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
    auto [it, inserted] = seen.emplace(lower, i);
    if (!inserted) {
      error("spec.components[" + std::to_string(i) + "].name",
            "\"" + shown(comps[i].name) + "\" duplicates spec.components[" + std::to_string(it->second) +
                "].name (names are unique case-insensitively)");
    }
  }
}

void Checker::check_model(const Model& m, const std::string& path) {
  if (m.id && !syntax::is_model_id(*m.id)) {
    error(path + ".id", "\"" + shown(*m.id) + "\" is not a Hugging Face model id ([org/]name of letters, "
                                              "digits, '.', '_', '-')");
  }
  if (m.served_name) {
    bool ok = !m.served_name->empty() && m.served_name->size() <= 256;
    for (unsigned char c : *m.served_name) ok = ok && c > 0x20 && c != 0x7f && c != '\'' && c != '"';
    if (!ok) error(path + ".servedName", "must be 1..256 printable characters without spaces or quotes");
  }
  if (m.revision && !syntax::is_revision(*m.revision)) {
    error(path + ".revision", "\"" + shown(*m.revision) + "\" is not a revision (commit hash, branch or tag)");
  }
  if (m.cache) {
    const ModelCache& c = *m.cache;
    std::string cp = path + ".cache";
    if (c.claim_name && !syntax::is_dns1123_subdomain(*c.claim_name)) {
      error(cp + ".claimName", "\"" + shown(*c.claim_name) + "\" is not a valid PersistentVolumeClaim name");
    }
    if (complete_ && !c.claim_name) error(cp + ".claimName", "required");
    if (c.mount_path) {
      const std::string& mp = *c.mount_path;
      if (!syntax::is_clean_absolute_path(mp)) {
        error(cp + ".mountPath", "must be a clean absolute path, got \"" + shown(mp) + "\"");
      } else {
        for (const char* reserved : {"/", "/dev", "/dev/shm", "/proc", "/sys", "/etc", "/usr", "/bin", "/lib"}) {
          if (mp == reserved) error(cp + ".mountPath", "\"" + mp + "\" is a system directory");
        }
      }
    }
    if (c.create) {
      std::string p = cp + ".create";
      if (c.create->size) {
        auto q = syntax::parse_quantity(*c.create->size);
        if (!q) error(p + ".size", "\"" + shown(*c.create->size) + "\" is not a quantity (e.g. 1000Gi)");
        else if (*q <= 0) error(p + ".size", "must be greater than 0");
      } else if (complete_) {
        error(p + ".size", "required when the cache is created");
      }
      if (c.create->storage_class_name && !syntax::is_dns1123_subdomain(*c.create->storage_class_name)) {
        error(p + ".storageClassName", "\"" + shown(*c.create->storage_class_name) + "\" is not a valid name");
      }
      one_of(p + ".accessMode", c.create->access_mode,
            {"ReadWriteMany", "ReadWriteOnce", "ReadOnlyMany", "ReadWriteOncePod"});
    }
    if (c.keep_on_delete && !c.create) {
      error(cp + ".keepOnDelete", "only applies to a cache the operator creates (set cache.create)");
    }
  }
  if (m.download) {
    const ModelDownload& d = *m.download;
    std::string dp = path + ".download";
    if (d.token_secret_ref) {
      if (!d.token_secret_ref->name) error(dp + ".tokenSecretRef.name", "required");
      else if (!syntax::is_dns1123_subdomain(*d.token_secret_ref->name)) {
        error(dp + ".tokenSecretRef.name", "\"" + shown(*d.token_secret_ref->name) + "\" is not a valid Secret name");
      }
      if (d.token_secret_ref->key) {
        bool ok = !d.token_secret_ref->key->empty() && d.token_secret_ref->key->size() <= 253;
        for (char ch : *d.token_secret_ref->key) {
          ok = ok && (std::isalnum(static_cast<unsigned char>(ch)) || ch == '-' || ch == '_' || ch == '.');
        }
        if (!ok) error(dp + ".tokenSecretRef.key", "must be a Secret key: letters, digits, '-', '_', '.'");
      }
    }
    if (d.image && !syntax::is_image_ref(*d.image)) error(dp + ".image", "not a valid image reference");
    for (size_t i = 0; i < d.packages.size(); ++i) {
      // Exact pins only: reproducible downloads, and nothing the Job's shell would interpret.
      const std::string& pkg = d.packages[i];
      const size_t eq = pkg.find("==");
      auto word = [](std::string_view w, const char* extra) {
        if (w.empty() || !std::isalnum(static_cast<unsigned char>(w[0]))) return false;
        for (char ch : w) {
          if (!std::isalnum(static_cast<unsigned char>(ch)) && std::strchr(extra, ch) == nullptr) return false;
        }
        return true;
      };
      if (eq == std::string::npos || pkg.size() > 128 || !word(std::string_view(pkg).substr(0, eq), "._-") ||
          !word(std::string_view(pkg).substr(eq + 2), ".+_-")) {
        error(dp + ".packages[" + std::to_string(i) + "]",
              "\"" + shown(pkg) + "\" is not an exactly pinned pip package (name==version, e.g. huggingface_hub==1.11.0)");
      }
    }
    if (!d.resources.is_null()) {
      if (!d.resources.is_object()) {
        error(dp + ".resources", "must be an object with requests / limits");
      } else {
        for (auto it = d.resources.begin(); it != d.resources.end(); ++it) {
          std::string rp = dp + ".resources." + syntax::shown(it.key());
          if (it.key() != "requests" && it.key() != "limits") {
            error(rp, "unknown field (requests, limits)");
          } else if (!it.value().is_object()) {
            error(rp, "must be a map of resource quantities");
          } else {
            for (auto q = it.value().begin(); q != it.value().end(); ++q) {
              bool ok = (q.value().is_number_integer() && q.value().get<int64_t>() >= 0) ||
                        (q.value().is_string() && syntax::parse_quantity(q.value().get<std::string>()).value_or(-1) >= 0);
              if (!ok) error(rp + "." + syntax::shown(q.key()), "is not a resource quantity (e.g. 8Gi, 2)");
            }
          }
        }
      }
    }
    bool enabled = d.enabled.value_or(true);
    if (complete_ && enabled) {
      if (!m.id) error(path + ".id", "required: the download Job fetches this model");
      if (!m.cache || !m.cache->claim_name) error(path + ".cache.claimName", "required: the download Job fills this cache");
    }
  }
}

void Checker::check_placement(const Placement& p, const std::string& path) {
  if (p.rdma) {
    const Rdma& r = *p.rdma;
    std::string rp = path + ".rdma";
    if (r.resource) {
      if (!syntax::is_extended_resource_name(*r.resource)) {
        error(rp + ".resource", "\"" + shown(*r.resource) + "\" is not an extended resource name (e.g. rdma/ib)");
      } else if (*r.resource == "nvidia.com/gpu" || r.resource->find("kubernetes.io/") != std::string::npos) {
        error(rp + ".resource", "\"" + *r.resource + "\" is not an RDMA device resource");
      }
    }
    range(rp + ".perWorker", r.per_worker, 1, 64);
    if (r.per_worker && !r.resource) error(rp + ".resource", "required with perWorker");
    if (r.nic_selection == NicSelection::kSriov && !r.resource) {
      error(rp + ".nicSelection", "sriov selects NICs from the SR-IOV device plugin's PCIDEVICE_* variables: "
                                  "set rdma.resource (e.g. rdma/ib) and rdma.perWorker");
    }
    if (r.nic_selection == NicSelection::kPcieMap && r.pcie_map.empty()) {
      error(rp + ".pcieMap", "required with nicSelection pcieMap: list each GPU's PCI address and its NIC's");
    }
    if (!r.pcie_map.empty() && r.nic_selection && r.nic_selection != NicSelection::kPcieMap) {
      error(rp + ".pcieMap", std::string("is only used with nicSelection pcieMap (nicSelection is ") +
                                 to_string(*r.nic_selection) + ")");
    }
    std::set<std::string> gpus, nics;
    for (size_t i = 0; i < r.pcie_map.size(); ++i) {
      std::string ep = rp + ".pcieMap[" + std::to_string(i) + "]";
      const PcieMapEntry& e = r.pcie_map[i];
      if (!e.gpu) error(ep + ".gpu", "required");
      else if (!syntax::is_pci_address(*e.gpu)) error(ep + ".gpu", "\"" + shown(*e.gpu) + "\" is not a PCI address");
      else if (!gpus.insert(*e.gpu).second) error(ep + ".gpu", "GPU " + *e.gpu + " is listed twice");
      if (!e.nic) error(ep + ".nic", "required");
      else if (!syntax::is_pci_address(*e.nic)) error(ep + ".nic", "\"" + shown(*e.nic) + "\" is not a PCI address");
      else if (!nics.insert(*e.nic).second) {
        error(ep + ".nic", "NIC " + *e.nic + " is listed twice: each GPU needs the NIC on its own PCIe switch");
      }
    }
    if (r.pcie_map.size() > 64) error(rp + ".pcieMap", "at most 64 entries");
  }
  if (p.nvlink && p.gpu && *p.gpu != GpuProduct::kGB200) {
    if (p.nvlink->compute_domain.value_or(false)) {
      error(path + ".nvlink.computeDomain", std::string("ComputeDomains need multi-node NVLink (GB200); "
                                                        "placement.gpu is ") + to_string(*p.gpu));
    }
    if (p.nvlink->same_clique.value_or(false)) {
      error(path + ".nvlink.sameClique", std::string("NVLink cliques exist on GB200 only; placement.gpu is ") +
                                             to_string(*p.gpu));
    }
  }
  for (const auto& [k, v] : p.node_selector) {
    if (!syntax::is_qualified_name(k)) error(path + ".nodeSelector." + shown(k), "invalid label key");
    if (!syntax::is_label_value(v)) error(path + ".nodeSelector." + shown(k), "invalid label value \"" + shown(v) + "\"");
  }
  if (!p.tolerations.is_null()) {
    if (!p.tolerations.is_array()) {
      error(path + ".tolerations", "must be a list of tolerations");
    } else {
      for (size_t i = 0; i < p.tolerations.size(); ++i) {
        if (!p.tolerations[i].is_object()) error(path + ".tolerations[" + std::to_string(i) + "]", "must be an object");
      }
    }
  }
}

void Checker::check_component(size_t ci, const Component& c) {
  std::string path = "spec.components[" + std::to_string(ci) + "]";
  if (c.name.empty()) {
    error(path + ".name", "required");
  } else if (!syntax::is_component_name(c.name)) {
    error(path + ".name", "\"" + shown(c.name) + "\" is not a valid component name: letters, digits and '-', "
                                                 "starting and ending with a letter or digit, at most 63");
  } else if (!dgd_.metadata.name.empty()) {
    std::string child = child_name(dgd_.metadata.name, c.name);
    // A worker's Deployment carries its generation, "-<8 hex>" (render/worker_generation.h),
    // and its name is a label value (nvidia.com/selector).
    const bool worker = !c.type || is_worker_type(*c.type);
    if (worker) child += "-xxxxxxxx";
    if (child.size() > 63) {
      error(path + ".name", (worker ? "worker Deployment name \"" + shown(child.substr(0, child.size() - 8)) +
                                          "<hash>\" is "
                                    : "child name \"" + shown(child) + "\" is ") +
                                std::to_string(child.size()) +
                                " characters; Kubernetes allows 63: shorten the DGD or component name");
    }
  }
  if (c.type) {
    if (*c.type == ComponentType::kEpp) {
      error(path + ".type", "type epp (the Gateway API endpoint picker) is not supported by dgd-operator (supported: "
                            "frontend, worker, prefill, decode, planner): remove this component; clients reach the "
                            "frontend Service <dgd>-<frontend component>");
    }
  } else if (complete_) {
    error(path + ".type", "required: one of frontend, worker, prefill, decode, planner");
  }
  if (c.replicas && (*c.replicas < 0 || *c.replicas > kMaxReplicas)) {
    error(path + ".replicas", "must be 0.." + std::to_string(kMaxReplicas) + ", got " + std::to_string(*c.replicas));
  }
  if (c.shared_memory_size) {
    auto q = syntax::parse_quantity(*c.shared_memory_size);
    if (!q) error(path + ".sharedMemorySize", "\"" + shown(*c.shared_memory_size) + "\" is not a quantity (e.g. 200Gi; \"0\" disables)");
    else if (*q < 0) error(path + ".sharedMemorySize", "must not be negative");
  }
  check_env_list(c.env, path + ".env", static_cast<int>(ci));
  check_pod_template(ci, c, path);

  for (auto it = c.extra.begin(); it != c.extra.end(); ++it) check_upstream_component_field(ci, c, it.key(), it.value());

  if (c.engine) {
    if (c.type == ComponentType::kFrontend) {
      error(path + ".engine", "engine settings apply to worker, prefill and decode components; use router on a frontend");
    } else {
      check_engine(ci, c, *c.engine, path + ".engine");
    }
  }
  if (c.router) {
    if (c.type && *c.type != ComponentType::kFrontend) {
      error(path + ".router", "router settings apply to the frontend component only");
    } else {
      check_router(ci, c, *c.router, path + ".router");
    }
  }
}

void Checker::check_pod_template(size_t ci, const Component& c, const std::string& path) {
  const nlohmann::json& pt = c.pod_template;
  std::string pp = path + ".podTemplate";
  if (pt.is_null()) {
    if (complete_ && c.type != ComponentType::kEpp) {
      error(pp, "required: a pod template with a container named main and its image");
    }
    return;
  }
  if (!pt.is_object()) return error(pp, "must be an object (a PodTemplateSpec)");
  auto spec = pt.find("spec");
  if (spec == pt.end() || spec->is_null()) {
    if (complete_) error(pp + ".spec.containers", "required: a container named main with an image");
    return;
  }
  if (!spec->is_object()) return error(pp + ".spec", "must be an object");
  auto containers = spec->find("containers");
  if (containers == spec->end() || containers->is_null()) {
    if (complete_) error(pp + ".spec.containers", "required: a container named main with an image");
    return;
  }
  if (!containers->is_array()) return error(pp + ".spec.containers", "must be a list");
  std::set<std::string> names;
  for (size_t k = 0; k < containers->size(); ++k) {
    const auto& ctr = (*containers)[k];
    std::string cp = pp + ".spec.containers[" + std::to_string(k) + "]";
    if (!ctr.is_object()) {
      error(cp, "must be an object");
      continue;
    }
    auto name = ctr.find("name");
    if (name == ctr.end() || !name->is_string() || !syntax::is_dns1123_label(name->get<std::string>())) {
      error(cp + ".name", "required: a DNS-1123 label");
    } else if (!names.insert(name->get<std::string>()).second) {
      error(cp + ".name", "duplicate container name \"" + name->get<std::string>() + "\"");
    }
  }
  size_t mi = 0;
  const nlohmann::json* main = main_container(pt, &mi);
  std::string mp = pp + ".spec.containers[" + std::to_string(mi) + "]";
  if (!main) {
    if (complete_) error(pp + ".spec.containers", "a container named main is required (it receives the operator's defaults)");
    return;
  }
  auto image = main->find("image");
  if (image == main->end() || image->is_null()) {
    if (complete_) error(mp + ".image", "required");
  } else if (!image->is_string() || !syntax::is_image_ref(image->get<std::string>())) {
    error(mp + ".image", "must be an image reference");
  }
  auto args = main->find("args");
  if (c.engine && args != main->end() && !args->is_null() && !(args->is_array() && args->empty())) {
    error(mp + ".args", "explicit args conflict with the engine block (the operator renders the engine flags): "
                        "remove the args, or remove engine and keep the upstream explicit style");
  }
  if (c.router && args != main->end() && !args->is_null() && !(args->is_array() && args->empty())) {
    error(mp + ".args", "explicit args conflict with the router block: remove one of them");
  }
  auto env = main->find("env");
  if (env != main->end() && !env->is_null()) {
    if (!env->is_array()) {
      error(mp + ".env", "must be a list");
    } else {
      for (size_t i = 0; i < env->size(); ++i) {
        const auto& e = (*env)[i];
        std::string ep = mp + ".env[" + std::to_string(i) + "]";
        if (!e.is_object() || !e.contains("name") || !e["name"].is_string()) {
          error(ep + ".name", "required");
          continue;
        }
        std::string value = e.contains("value") && e["value"].is_string() ? e["value"].get<std::string>() : "";
        if (e.contains("value") && !e["value"].is_string() && !e["value"].is_null()) {
          error(ep + ".value", "must be a string (quote it)");
        }
        envs_.push_back({nullptr, e["name"].get<std::string>(), value, ep, static_cast<int>(ci)});
      }
    }
  }
}

}  // namespace detail

std::string child_name(std::string_view dgd_name, std::string_view component_name) {
  std::string out(dgd_name);
  out += '-';
  for (char ch : component_name) {
    char c = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    out += c == '.' ? '-' : c;
  }
  return out;
}

std::vector<FieldError> parse_and_validate(std::string_view text, const ValidateOptions& options) {
  ParseResult r = parse(text);
  std::vector<FieldError> all = std::move(r.errors);
  if (!r.document) return all;
  auto more = validate(r.dgd, options);
  all.insert(all.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
  return all;
}

std::vector<FieldError> validate(const Dgd& dgd, const ValidateOptions& options) {
  bool complete = options.mode == ValidationMode::kComplete ||
                  (options.mode == ValidationMode::kAuto && !dgd.spec.recipe.has_value());
  detail::Checker checker(dgd, complete);
  checker.check_all();
  checker.check_graph();
  return checker.take();
}

}  // namespace dgd::api
