// Cross-field rules over the whole graph (see validate.h). Rules about something
// missing run only on a complete graph; rules about two stated things always run.
#include <optional>

#include "api/checker.h"
#include "dgd/api/parse.h"

namespace dgd::api::detail {
namespace {

std::string spec_json(const Speculative& s) {
  Engine e;
  e.speculative = s;
  return to_json(e)["speculative"].dump();
}

std::string component_path(size_t i) { return "spec.components[" + std::to_string(i) + "]"; }

// The speculative block as the engine sees it (nullopt when off).
std::optional<Speculative> effective_speculative(const Engine& e) {
  if (!e.speculative || !e.speculative->enabled.value_or(true)) return std::nullopt;
  Speculative s = *e.speculative;
  s.enabled.reset();
  return s;
}

}  // namespace

void Checker::check_graph() {
  const Spec& spec = dgd_.spec;
  const auto& comps = spec.components;
  const auto fw = framework();
  const auto g = gpu();
  const Placement* placement = spec.placement ? &*spec.placement : nullptr;
  const Rdma* rdma = placement && placement->rdma ? &*placement->rdma : nullptr;

  std::vector<size_t> prefills, decodes, engines, frontends;
  for (size_t i = 0; i < comps.size(); ++i) {
    if (comps[i].type == ComponentType::kPrefill) prefills.push_back(i);
    if (comps[i].type == ComponentType::kDecode) decodes.push_back(i);
    if (comps[i].type == ComponentType::kFrontend) frontends.push_back(i);
    if (comps[i].engine && comps[i].type != ComponentType::kFrontend) engines.push_back(i);
  }
  const bool disaggregated = !prefills.empty() || !decodes.empty();

  // Disaggregation needs both roles.
  if (complete_) {
    if (!prefills.empty() && decodes.empty()) {
      error(component_path(prefills.front()) + ".type", "a prefill component needs a decode component to hand its KV cache to: add one, or use type worker for aggregated serving");
    }
    // Upstream accepts a graph whose only workers are decode: the container's own args
    // decide how the engine runs. A typed engine block renders disaggregation flags, and
    // those need a prefill side.
    if (!decodes.empty() && prefills.empty()) {
      for (size_t i : decodes) {
        if (!comps[i].engine) continue;
        error(component_path(i) + ".type", "a decode component with an engine block renders --disaggregation-mode "
                                          "decode and needs a prefill component: add one, or use type worker "
                                          "for aggregated serving");
        break;
      }
    }
  }

  // Typed engines need the model they serve.
  if (complete_ && !engines.empty() && !(spec.model && spec.model->id)) {
    error("spec.model.id", "required: the engine blocks render --model / model-path from it");
  }

  // Disaggregation without a KV-transfer connector; prefill and decode must agree on
  // what crosses the wire.
  for (size_t i : engines) {
    const Component& c = comps[i];
    if (c.type != ComponentType::kPrefill && c.type != ComponentType::kDecode) continue;
    const Engine& e = *c.engine;
    std::string p = component_path(i) + ".engine.kvTransfer";
    if (complete_ && fw == BackendFramework::kVllm && !(e.kv_transfer && e.kv_transfer->connector)) {
      error(p + ".connector", "disaggregated serving needs a KV-transfer connector (e.g. NixlConnector)");
    }
    if (complete_ && fw == BackendFramework::kSglang && !(e.kv_transfer && e.kv_transfer->transfer_backend)) {
      error(p + ".transferBackend", "disaggregated serving needs a transfer backend (e.g. mooncake)");
    }
  }
  const Engine* first_prefill = nullptr;
  size_t first_prefill_index = 0;
  for (size_t i : prefills) {
    if (comps[i].engine) {
      first_prefill = &*comps[i].engine;
      first_prefill_index = i;
      break;
    }
  }
  if (first_prefill) {
    const std::string pp = component_path(first_prefill_index) + ".engine";
    for (size_t i : decodes) {
      if (!comps[i].engine) continue;
      const Engine& d = *comps[i].engine;
      const std::string dp = component_path(i) + ".engine";
      auto ps = effective_speculative(*first_prefill);
      auto ds = effective_speculative(d);
      if (ps && ds && *ps != *ds) {
        error(dp + ".speculative", "differs from " + pp + ".speculative: prefill and decode must run the same "
                                   "speculative config (" + spec_json(*ps) + " vs " + spec_json(*ds) + ")");
      } else if (complete_ && (ps.has_value() != ds.has_value())) {
        const auto& one = ps ? *ps : *ds;
        if (one.method == "dspark") {
          error(ps ? dp + ".speculative" : pp + ".speculative",
                "DSpark must be configured identically on prefill and decode; it is set on " +
                    std::string(ps ? "prefill" : "decode") + " only");
        }
      }
      if (first_prefill->kv_transfer && d.kv_transfer) {
        const auto& a = *first_prefill->kv_transfer;
        const auto& b = *d.kv_transfer;
        if (a.connector && b.connector && *a.connector != *b.connector) {
          error(dp + ".kvTransfer.connector", "\"" + *b.connector + "\" differs from the prefill connector \"" + *a.connector + "\"");
        }
        if (a.transfer_backend && b.transfer_backend && *a.transfer_backend != *b.transfer_backend) {
          error(dp + ".kvTransfer.transferBackend", "\"" + *b.transfer_backend + "\" differs from the prefill backend \"" +
                                                        *a.transfer_backend + "\"");
        }
      }
      if (first_prefill->block_size && d.block_size && *first_prefill->block_size != *d.block_size) {
        error(dp + ".blockSize", "differs from " + pp + ".blockSize (" + std::to_string(*first_prefill->block_size) +
                                     "): KV blocks are transferred as they are");
      }
      if (first_prefill->kv_cache_dtype && d.kv_cache_dtype && *first_prefill->kv_cache_dtype != *d.kv_cache_dtype) {
        error(dp + ".kvCacheDtype", "differs from " + pp + ".kvCacheDtype (" + *first_prefill->kv_cache_dtype +
                                        "): KV blocks are transferred as they are");
      }
    }
  }

  // Static UCX_NET_DEVICES fights the per-pod NIC selection.
  if (rdma && (rdma->nic_selection == NicSelection::kSriov || rdma->nic_selection == NicSelection::kPcieMap)) {
    for (const auto& env : envs_) {
      if (env.name == "UCX_NET_DEVICES") {
        error(env.path, std::string("a static UCX_NET_DEVICES overrides the NIC selected per pod by nicSelection ") +
                            to_string(*rdma->nic_selection) + " (spec.placement.rdma.nicSelection): remove it");
      }
      if (env.name == "VLLM_GPU_NIC_PCIE_MAPPING" && rdma->nic_selection == NicSelection::kPcieMap) {
        error(env.path, "VLLM_GPU_NIC_PCIE_MAPPING is rendered from spec.placement.rdma.pcieMap: remove it");
      }
    }
  }
  if (rdma && rdma->nic_selection == NicSelection::kPcieMap && fw == BackendFramework::kSglang) {
    error("spec.placement.rdma.nicSelection", "pcieMap drives vLLM's VLLM_GPU_NIC_PCIE_MAPPING; it has no SGLang equivalent");
  }

  // SGLang recipes exist for GB200 only.
  if (fw == BackendFramework::kSglang && g && *g != GpuProduct::kGB200 && (spec.recipe || !engines.empty())) {
    error("spec.placement.gpu", std::string("there is no SGLang recipe for ") + to_string(*g) +
                                    ": SGLang is available on GB200 only; select vLLM, or GB200");
  }

  // GB200 KV transfer without RDMA runs over NVLink and needs one clique.
  if (g == GpuProduct::kGB200 && disaggregated && placement && placement->nvlink &&
      placement->nvlink->same_clique == false && !(rdma && rdma->resource)) {
    error("spec.placement.nvlink.sameClique", "disaggregated GB200 without RDMA moves KV over NVLink: prefill and "
                                              "decode must share one NVLink clique (a split serves empty answers)");
  }
  if (complete_ && placement && placement->separate_prefill_decode.value_or(false) && !disaggregated) {
    error("spec.placement.separatePrefillDecode", "needs prefill and decode components");
  }

  // Frontend router against the workers it routes to.
  for (size_t f : frontends) {
    const Component& fc = comps[f];
    if (!fc.router) continue;
    const Router& r = *fc.router;
    const std::string rp = component_path(f) + ".router";
    bool kv_mode = !r.mode || *r.mode == RouterMode::kKv;
    if (complete_ && r.conditional_disaggregation && r.conditional_disaggregation->enabled.value_or(true) &&
        prefills.empty()) {
      error(rp + ".conditionalDisaggregation", "needs prefill and decode components");
    }
    bool any_publishes = false;
    for (size_t i : engines) {
      const Engine& e = *comps[i].engine;
      const std::string ep = component_path(i) + ".engine";
      if (r.block_size && e.block_size && *r.block_size != *e.block_size) {
        error(rp + ".blockSize", std::to_string(*r.block_size) + " differs from " + ep + ".blockSize (" +
                                     std::to_string(*e.block_size) + "): KV-aware routing would miss every block");
      }
      bool publishes = e.kv_events && e.kv_events->enabled.value_or(true);
      any_publishes = any_publishes || publishes;
      if (kv_mode && publishes && e.kv_events->enable_kv_cache_events == false) {
        error(ep + ".kvEvents.enableKvCacheEvents", "false silently degrades KV-aware routing to load-based routing");
      }
    }
    // In disaggregated graphs only prefill may publish (the recipes do so); one publisher suffices.
    if (complete_ && r.kv_events.value_or(false) && !engines.empty() && !any_publishes) {
      error(rp + ".kvEvents", "the router consumes KV events but no worker publishes any (engine.kvEvents)");
    }
  }
}

}  // namespace dgd::api::detail
