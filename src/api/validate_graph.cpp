// Cross-field rules over the whole graph (see validate.h). Rules about something
// missing run only on a complete graph; rules about two stated things always run.
#include <optional>

#include "api/checker.h"
#include "dgd/api/parse.h"

namespace dgd::api::detail {
namespace {

std::string specJson(const Speculative& s) {
  Engine e;
  e.speculative = s;
  return toJson(e)["speculative"].dump();
}

std::string componentPath(size_t i) { return "spec.components[" + std::to_string(i) + "]"; }

// The speculative block as the engine sees it (nullopt when off).
std::optional<Speculative> effectiveSpeculative(const Engine& e) {
  if (!e.speculative || !e.speculative->enabled.value_or(true)) return std::nullopt;
  Speculative s = *e.speculative;
  s.enabled.reset();
  return s;
}

}  // namespace

void Checker::checkGraph() {
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
      error(componentPath(prefills.front()) + ".type", "a prefill component needs a decode component to hand its KV cache to: add one, or use type worker for aggregated serving");
    }
    // Upstream accepts a graph whose only workers are decode: the container's own args
    // decide how the engine runs. A typed engine block renders disaggregation flags, and
    // those need a prefill side.
    if (!decodes.empty() && prefills.empty()) {
      for (size_t i : decodes) {
        if (!comps[i].engine) continue;
        error(componentPath(i) + ".type", "a decode component with an engine block renders --disaggregation-mode "
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
    std::string p = componentPath(i) + ".engine.kvTransfer";
    if (complete_ && fw == BackendFramework::kVllm && !(e.kvTransfer && e.kvTransfer->connector)) {
      error(p + ".connector", "disaggregated serving needs a KV-transfer connector (e.g. NixlConnector)");
    }
    if (complete_ && fw == BackendFramework::kSglang && !(e.kvTransfer && e.kvTransfer->transferBackend)) {
      error(p + ".transferBackend", "disaggregated serving needs a transfer backend (e.g. mooncake)");
    }
  }
  const Engine* firstPrefill = nullptr;
  size_t firstPrefillIndex = 0;
  for (size_t i : prefills) {
    if (comps[i].engine) {
      firstPrefill = &*comps[i].engine;
      firstPrefillIndex = i;
      break;
    }
  }
  if (firstPrefill) {
    const std::string pp = componentPath(firstPrefillIndex) + ".engine";
    for (size_t i : decodes) {
      if (!comps[i].engine) continue;
      const Engine& d = *comps[i].engine;
      const std::string dp = componentPath(i) + ".engine";
      auto ps = effectiveSpeculative(*firstPrefill);
      auto ds = effectiveSpeculative(d);
      if (ps && ds && *ps != *ds) {
        error(dp + ".speculative", "differs from " + pp + ".speculative: prefill and decode must run the same "
                                   "speculative config (" + specJson(*ps) + " vs " + specJson(*ds) + ")");
      } else if (complete_ && (ps.has_value() != ds.has_value())) {
        const auto& one = ps ? *ps : *ds;
        if (one.method == "dspark") {
          error(ps ? dp + ".speculative" : pp + ".speculative",
                "DSpark must be configured identically on prefill and decode; it is set on " +
                    std::string(ps ? "prefill" : "decode") + " only");
        }
      }
      if (firstPrefill->kvTransfer && d.kvTransfer) {
        const auto& a = *firstPrefill->kvTransfer;
        const auto& b = *d.kvTransfer;
        if (a.connector && b.connector && *a.connector != *b.connector) {
          error(dp + ".kvTransfer.connector", "\"" + *b.connector + "\" differs from the prefill connector \"" + *a.connector + "\"");
        }
        if (a.transferBackend && b.transferBackend && *a.transferBackend != *b.transferBackend) {
          error(dp + ".kvTransfer.transferBackend", "\"" + *b.transferBackend + "\" differs from the prefill backend \"" +
                                                        *a.transferBackend + "\"");
        }
      }
      if (firstPrefill->blockSize && d.blockSize && *firstPrefill->blockSize != *d.blockSize) {
        error(dp + ".blockSize", "differs from " + pp + ".blockSize (" + std::to_string(*firstPrefill->blockSize) +
                                     "): KV blocks are transferred as they are");
      }
      if (firstPrefill->kvCacheDtype && d.kvCacheDtype && *firstPrefill->kvCacheDtype != *d.kvCacheDtype) {
        error(dp + ".kvCacheDtype", "differs from " + pp + ".kvCacheDtype (" + *firstPrefill->kvCacheDtype +
                                        "): KV blocks are transferred as they are");
      }
    }
  }

  // Static UCX_NET_DEVICES fights the per-pod NIC selection.
  if (rdma && (rdma->nicSelection == NicSelection::kSriov || rdma->nicSelection == NicSelection::kPcieMap)) {
    for (const auto& env : envs_) {
      if (env.name == "UCX_NET_DEVICES") {
        error(env.path, std::string("a static UCX_NET_DEVICES overrides the NIC selected per pod by nicSelection ") +
                            toString(*rdma->nicSelection) + " (spec.placement.rdma.nicSelection): remove it");
      }
      if (env.name == "VLLM_GPU_NIC_PCIE_MAPPING" && rdma->nicSelection == NicSelection::kPcieMap) {
        error(env.path, "VLLM_GPU_NIC_PCIE_MAPPING is rendered from spec.placement.rdma.pcieMap: remove it");
      }
    }
  }
  if (rdma && rdma->nicSelection == NicSelection::kPcieMap && fw == BackendFramework::kSglang) {
    error("spec.placement.rdma.nicSelection", "pcieMap drives vLLM's VLLM_GPU_NIC_PCIE_MAPPING; it has no SGLang equivalent");
  }

  // SGLang recipes exist for GB200 only.
  if (fw == BackendFramework::kSglang && g && *g != GpuProduct::kGB200 && (spec.recipe || !engines.empty())) {
    error("spec.placement.gpu", std::string("there is no SGLang recipe for ") + toString(*g) +
                                    ": SGLang is available on GB200 only; select vLLM, or GB200");
  }

  // GB200 KV transfer without RDMA runs over NVLink and needs one clique.
  if (g == GpuProduct::kGB200 && disaggregated && placement && placement->nvlink &&
      placement->nvlink->sameClique == false && !(rdma && rdma->resource)) {
    error("spec.placement.nvlink.sameClique", "disaggregated GB200 without RDMA moves KV over NVLink: prefill and "
                                              "decode must share one NVLink clique (a split serves empty answers)");
  }
  if (complete_ && placement && placement->separatePrefillDecode.value_or(false) && !disaggregated) {
    error("spec.placement.separatePrefillDecode", "needs prefill and decode components");
  }

  // Frontend router against the workers it routes to.
  for (size_t f : frontends) {
    const Component& fc = comps[f];
    if (!fc.router) continue;
    const Router& r = *fc.router;
    const std::string rp = componentPath(f) + ".router";
    bool kvMode = !r.mode || *r.mode == RouterMode::kKv;
    if (complete_ && r.conditionalDisaggregation && r.conditionalDisaggregation->enabled.value_or(true) &&
        prefills.empty()) {
      error(rp + ".conditionalDisaggregation", "needs prefill and decode components");
    }
    bool anyPublishes = false;
    for (size_t i : engines) {
      const Engine& e = *comps[i].engine;
      const std::string ep = componentPath(i) + ".engine";
      if (r.blockSize && e.blockSize && *r.blockSize != *e.blockSize) {
        error(rp + ".blockSize", std::to_string(*r.blockSize) + " differs from " + ep + ".blockSize (" +
                                     std::to_string(*e.blockSize) + "): KV-aware routing would miss every block");
      }
      bool publishes = e.kvEvents && e.kvEvents->enabled.value_or(true);
      anyPublishes = anyPublishes || publishes;
      if (kvMode && publishes && e.kvEvents->enableKvCacheEvents == false) {
        error(ep + ".kvEvents.enableKvCacheEvents", "false silently degrades KV-aware routing to load-based routing");
      }
    }
    // In disaggregated graphs only prefill may publish (the recipes do so); one publisher suffices.
    if (complete_ && r.kvEvents.value_or(false) && !engines.empty() && !anyPublishes) {
      error(rp + ".kvEvents", "the router consumes KV events but no worker publishes any (engine.kvEvents)");
    }
  }
}

}  // namespace dgd::api::detail
