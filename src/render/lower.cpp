// Layer 1 of render: the typed blocks of one component become an explicit podTemplate,
// and the user's podTemplate is merged over it (render.h).
#include <nlohmann/json.hpp>

#include "dgd/object/field_schema.h"
#include "dgd/object/strategic_merge.h"
#include "dgd/recipes/catalog.h"
#include "dgd/render/engine_args.h"
#include "dgd/render/render.h"
#include "render/internal.h"

namespace dgd::render {
namespace {

using nlohmann::json;
using namespace detail;

constexpr const char* kNicScript = "scripts/select-rdma-nics.sh";
constexpr const char* kRdmaLimitsScript = "scripts/rdma-limits.sh";

const char* gpu_product_label(api::GpuProduct g) {
  switch (g) {
    case api::GpuProduct::kB200: return "NVIDIA-B200";
    case api::GpuProduct::kGB200: return "NVIDIA-GB200";
    case api::GpuProduct::kH200: return "NVIDIA-H200";
  }
  return "";
}
const char* gpu_arch(api::GpuProduct g) { return g == api::GpuProduct::kGB200 ? "arm64" : "amd64"; }

// The SR-IOV device plugin's address variable for a resource name: PCIDEVICE_ + upper
// case with '.', '/' and '-' as '_' (rdma/ib → PCIDEVICE_RDMA_IB).
std::string pci_device_var(const std::string& resource) {
  std::string v = "PCIDEVICE_";
  for (unsigned char c : resource) v += (c == '.' || c == '/' || c == '-') ? '_' : static_cast<char>(std::toupper(c));
  return v;
}

json string_array(const std::vector<std::string>& v) { return json(v); }

void add_toleration(json& spec, const json& t) {
  json& list = spec["tolerations"];
  if (!list.is_array()) list = json::array();
  for (const auto& existing : list) {
    if (existing == t) return;
  }
  list.push_back(t);
}

// Start-up wrapper: bash runs the embedded script, the engine command follows as "$@".
json wrapper_command(const char* script_path, std::vector<api::FieldError>& errors, const std::string& path) {
  const std::string* script = recipes::embedded_file(script_path);
  if (script == nullptr) {
    errors.push_back({path, std::string("internal: embedded script ") + script_path + " is missing"});
    return json::array({"python3"});
  }
  return json::array({"/bin/bash", "-lc", *script, "--", "python3"});
}

// Sets `command` when a start-up wrapper is needed (it is applied after the user's
// podTemplate is merged, so a user's own command still wins).
void lower_placement(const api::Dgd& graph, const api::Component& c, json& pt, json& env, json& command,
                    std::vector<api::FieldError>& errors, const std::string& path) {
  if (!graph.spec.placement) return;
  const api::Placement& p = *graph.spec.placement;
  json& spec = pt["spec"];
  const bool worker = c.type && api::is_worker_type(*c.type);
  json& main = main_container(pt);

  // Every pod: the cluster's extra node selector and tolerations.
  for (const auto& [k, v] : p.node_selector) spec["nodeSelector"][k] = v;
  if (p.tolerations.is_array()) {
    for (const auto& t : p.tolerations) add_toleration(spec, t);
  }
  if (!worker) return;

  if (p.gpu) {
    spec["nodeSelector"]["nvidia.com/gpu.product"] = gpu_product_label(*p.gpu);
    spec["nodeSelector"]["kubernetes.io/arch"] = gpu_arch(*p.gpu);
    add_toleration(spec, {{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}});
    if (*p.gpu == api::GpuProduct::kGB200) {
      // GB200 trays are commonly tainted by architecture so that amd64-only images
      // stay off them (recipes.md §5.6: the GB200 recipes tolerate this taint).
      add_toleration(spec, {{"key", "kubernetes.io/arch"}, {"operator", "Equal"}, {"value", "arm64"},
                           {"effect", "NoSchedule"}});
    }
  }

  if (p.rdma && p.rdma->resource && p.rdma->per_worker) {
    const std::string count = std::to_string(*p.rdma->per_worker);
    main["resources"]["requests"][*p.rdma->resource] = count;
    main["resources"]["limits"][*p.rdma->resource] = count;
  }
  if (p.rdma) {
    const auto mode = p.rdma->nic_selection.value_or(api::NicSelection::kNone);
    if (mode == api::NicSelection::kSriov) {
      // UCX_NET_DEVICES is derived at start from the NICs the device plugin assigned.
      command = wrapper_command(kNicScript, errors, path);
      const std::string var = pci_device_var(p.rdma->resource.value_or("rdma/ib"));
      if (var != "PCIDEVICE_RDMA_IB") env.push_back(env_var("RDMA_PCIDEVICE_VAR", var));
      if (p.rdma->per_worker && *p.rdma->per_worker != 4) {
        env.push_back(env_var("RDMA_NIC_COUNT", std::to_string(*p.rdma->per_worker)));
      }
    } else {
      // Pinned KV buffers need an unlimited memlock limit for RDMA registration.
      command = wrapper_command(kRdmaLimitsScript, errors, path);
      if (mode == api::NicSelection::kPcieMap && !p.rdma->pcie_map.empty()) {
        std::string map;
        for (const auto& e : p.rdma->pcie_map) {
          if (!map.empty()) map += ',';
          map += e.gpu.value_or("") + "=" + e.nic.value_or("");
        }
        env.push_back(env_var("VLLM_GPU_NIC_PCIE_MAPPING", map));
        env.push_back(env_var("VLLM_NIC_SELECTION_VARS", "UCX_NET_DEVICES:1"));
      }
    }
  }

  const std::string dgd = graph.metadata.name;
  if (p.nvlink && p.nvlink->compute_domain.value_or(false)) {
    spec["resourceClaims"] = json::array(
        {{{"name", kComputeDomainClaim}, {"resourceClaimTemplateName", claim_template_name(dgd)}}});
    main["resources"]["claims"] = json::array({{{"name", kComputeDomainClaim}}});
  }
  if (p.nvlink && p.nvlink->same_clique.value_or(false)) {
    // Required pod affinity on the clique label: every worker of the graph lands in the
    // clique of the first one (a split would answer HTTP 200 with empty content).
    spec["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = json::array(
        {{{"labelSelector",
           {{"matchLabels", {{kLabelDgdName, dgd}}},
            {"matchExpressions",
             json::array({{{"key", kLabelComponentType},
                           {"operator", "In"},
                           {"values", json::array({"decode", "prefill", "worker"})}}})}}},
          {"topologyKey", "nvidia.com/gpu.clique"}}});
  }
  if (p.separate_prefill_decode.value_or(false) &&
      (c.type == api::ComponentType::kPrefill || c.type == api::ComponentType::kDecode)) {
    const char* other = c.type == api::ComponentType::kPrefill ? "decode" : "prefill";
    spec["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = json::array(
        {{{"labelSelector", {{"matchLabels", {{kLabelDgdName, dgd}, {kLabelComponentType, other}}}}},
          {"topologyKey", "kubernetes.io/hostname"}}});
  }
}

void lower_model_cache(const api::Dgd& graph, json& pt, json& env) {
  if (!graph.spec.model || !graph.spec.model->cache || !graph.spec.model->cache->claim_name) return;
  const api::ModelCache& cache = *graph.spec.model->cache;
  const std::string claim = *cache.claim_name;
  const std::string mount = cache.mount_path.value_or("/" + claim);
  json volume = {{"name", claim}, {"persistentVolumeClaim", {{"claimName", claim}}}};
  json volume_mount = {{"name", claim}, {"mountPath", mount}};
  if (cache.read_only.value_or(false)) {
    volume["persistentVolumeClaim"]["readOnly"] = true;
    volume_mount["readOnly"] = true;
  }
  pt["spec"]["volumes"].push_back(volume);
  main_container(pt)["volumeMounts"].push_back(volume_mount);
  env.push_back(env_var("HF_HOME", mount));
}

}  // namespace

json lower_pod_template(const api::Dgd& graph, const api::Component& c, std::vector<api::FieldError>& errors) {
  const std::string path = "spec.components[" +
                           std::to_string(&c - graph.spec.components.data()) + "]";
  static const json kEmpty = json::object();
  const json& user = c.pod_template.is_object() ? c.pod_template : kEmpty;
  const json* user_main = nullptr;
  if (user.contains("spec") && user["spec"].contains("containers") && user["spec"]["containers"].is_array()) {
    for (const auto& ct : user["spec"]["containers"]) {
      if (string_at(ct, "name") == "main") user_main = &ct;
    }
  }
  const bool user_command = user_main && (user_main->contains("command") || user_main->contains("args"));

  json pt = {{"spec", {{"containers", json::array({{{"name", "main"}}})}}}};
  json env = json::array();
  // Generated command, args and env are put in after the user's podTemplate is merged
  // over the rest (the user's command / args replace them, env merges by name): the same
  // result as merging them in first, without copying them through the merge.
  json command;  // null: none generated
  json args;
  const auto type = c.type.value_or(api::ComponentType::kWorker);
  static const api::Model kNoModel;
  const api::Model& model = graph.spec.model ? *graph.spec.model : kNoModel;

  if (type == api::ComponentType::kFrontend) {
    if (c.router || !user_command) {
      const api::Router router = c.router.value_or(api::Router{});
      command = json::array({"python3"});
      args = string_array(frontend_args(router));
      for (const auto& [k, v] : router_env(router)) env.push_back(env_var(k, v));
    }
  } else if (api::is_worker_type(type)) {
    if (c.engine) {
      json& main = main_container(pt);
      command = json::array({"python3"});
      if (framework_of(graph) == api::BackendFramework::kSglang) {
        const std::string key = sglang_config_key(graph, c);
        args = string_array(sglang_args(std::string(kSglangConfigDir) + "/" + key, type, *c.engine));
        pt["spec"]["volumes"].push_back(
            {{"name", kSglangConfigVolume}, {"configMap", {{"name", sglang_config_map_name(graph.metadata.name)}}}});
        main["volumeMounts"].push_back({{"name", kSglangConfigVolume}, {"mountPath", kSglangConfigDir}, {"readOnly", true}});
        if (c.engine->kv_transfer && c.engine->kv_transfer->bootstrap_port) {
          main["ports"].push_back({{"name", "bootstrap"},
                                   {"containerPort", *c.engine->kv_transfer->bootstrap_port},
                                   {"protocol", "TCP"}});
        }
      } else {
        args = string_array(vllm_args(model, type, *c.engine));
      }
      if (int port = kv_events_port(*c.engine)) {
        main["ports"].push_back({{"name", "kv-events"}, {"containerPort", port}, {"protocol", "TCP"}});
      }
    }
    lower_model_cache(graph, pt, env);
  }
  lower_placement(graph, c, pt, env, command, errors, path);

  json out = std::move(pt);
  if (!user.empty()) {
    try {
      out = object::strategic_merge(out, user, object::pod_template_spec_schema());
    } catch (const std::exception& e) {
      errors.push_back({path + ".podTemplate", std::string("cannot merge over the operator's defaults: ") + e.what()});
    }
  }
  json& main = main_container(out);
  if (!command.is_null() && !main.contains("command")) main["command"] = std::move(command);
  if (!args.is_null() && !main.contains("args")) main["args"] = std::move(args);
  if (!env.empty()) main["env"] = merge_env(std::move(env), main.contains("env") ? std::move(main["env"]) : json::array());
  // components[].env wins over everything above, then the list is sorted by name.
  json cenv = json::array();
  for (const auto& e : c.env) cenv.push_back(env_json(e));
  json merged = merge_env(main.contains("env") ? std::move(main["env"]) : json::array(), std::move(cenv));
  sort_by(merged, "name");
  if (!merged.empty()) main["env"] = std::move(merged);
  if (main.contains("volumeMounts")) sort_by(main["volumeMounts"], "mountPath");
  if (main.contains("ports")) sort_by_number(main["ports"], "containerPort");
  if (out["spec"].contains("volumes")) sort_by(out["spec"]["volumes"], "name");
  return out;
}

}  // namespace dgd::render
