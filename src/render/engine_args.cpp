#include "dgd/render/engine_args.h"

#include <algorithm>
#include <cctype>
#include <charconv>

#include <nlohmann/json.hpp>

#include "dgd/api/defaults.h"

namespace dgd::render {
namespace {

using nlohmann::json;
using ordered = nlohmann::ordered_json;
using Args = std::vector<std::string>;

void flag(Args& a, const char* name, const std::optional<std::string>& v) {
  if (v) {
    a.emplace_back(name);
    a.push_back(*v);
  }
}
void flag(Args& a, const char* name, const std::optional<int64_t>& v) {
  if (v) {
    a.emplace_back(name);
    a.push_back(std::to_string(*v));
  }
}
void flag(Args& a, const char* name, const std::optional<double>& v) {
  if (v) {
    a.emplace_back(name);
    a.push_back(formatNumber(*v));
  }
}
// A switch: present when true.
void flag(Args& a, const char* name, const std::optional<bool>& v) {
  if (v.value_or(false)) a.emplace_back(name);
}
// A boolean with an explicit negative spelling ("--x" / "--no-x").
void toggle(Args& a, const char* on, const char* off, const std::optional<bool>& v) {
  if (v) a.emplace_back(*v ? on : off);
}
void jsonFlag(Args& a, const char* name, const ordered& j) {
  a.emplace_back(name);
  a.push_back(j.dump());
}

bool kvEventsOn(const api::Engine& e) { return e.kvEvents && e.kvEvents->enabled.value_or(true); }
bool speculativeOn(const api::Engine& e) {
  return e.speculative && e.speculative->enabled.value_or(true) && e.speculative->method;
}

ordered kvEventsConfig(const api::KvEvents& k) {
  ordered j;
  j["publisher"] = k.publisher.value_or(api::kDefaultKvEventsPublisher);
  j["topic"] = k.topic.value_or(api::kDefaultKvEventsTopic);
  j["endpoint"] = "tcp://*:" + std::to_string(k.port.value_or(api::kDefaultKvEventsPort));
  if (k.enableKvCacheEvents) j["enable_kv_cache_events"] = *k.enableKvCacheEvents;
  return j;
}

const char* disaggMode(api::ComponentType t) {
  switch (t) {
    case api::ComponentType::kPrefill: return "prefill";
    case api::ComponentType::kDecode: return "decode";
    default: return nullptr;
  }
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

}  // namespace

std::string formatNumber(double v, int minDecimals) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  if (s.find_first_of("eE") != std::string::npos) return s;
  if (minDecimals > 0) {
    size_t dot = s.find('.');
    if (dot == std::string::npos) {
      s += '.';
      dot = s.size() - 1;
    }
    while (static_cast<int>(s.size() - dot - 1) < minDecimals) s += '0';
  }
  return s;
}

int kvEventsPort(const api::Engine& engine) {
  if (!kvEventsOn(engine)) return 0;
  return static_cast<int>(engine.kvEvents->port.value_or(api::kDefaultKvEventsPort));
}

std::vector<std::string> vllmArgs(const api::Model& model, api::ComponentType type,
                                  const api::Engine& e) {
  Args a = {"-m", "dynamo.vllm"};
  if (const char* mode = disaggMode(type)) {
    a.emplace_back("--disaggregation-mode");
    a.emplace_back(mode);
  }
  if (e.kvTransfer && e.kvTransfer->connector) {
    const auto& k = *e.kvTransfer;
    ordered j;
    j["kv_connector"] = *k.connector;
    j["kv_role"] = k.role.value_or(api::kDefaultKvRole);
    j["kv_buffer_device"] = k.bufferDevice.value_or(api::kDefaultKvBufferDevice);
    if (!k.backends.empty() || k.numThreads) {
      ordered extra = ordered::object();
      if (!k.backends.empty()) extra["backends"] = k.backends;
      if (k.numThreads) extra["num_threads"] = *k.numThreads;
      j["kv_connector_extra_config"] = extra;
    }
    jsonFlag(a, "--kv-transfer-config", j);
  }
  flag(a, "--model", model.id);
  flag(a, "--served-model-name", model.servedName ? model.servedName : model.id);
  flag(a, "--trust-remote-code", e.trustRemoteCode);
  if (e.parsers) flag(a, "--tokenizer-mode", e.parsers->tokenizerMode);
  flag(a, "--tensor-parallel-size", e.tensorParallelSize);
  flag(a, "--data-parallel-size", e.dataParallelSize);
  flag(a, "--pipeline-parallel-size", e.pipelineParallelSize);
  flag(a, "--enable-expert-parallel", e.expertParallel);
  flag(a, "--moe-backend", e.moeBackend);
  flag(a, "--enable-ep-weight-filter", e.epWeightFilter);
  if (e.eplb && e.eplb->enabled.value_or(true)) {
    a.emplace_back("--enable-eplb");
    if (e.eplb->communicator) jsonFlag(a, "--eplb-config", ordered{{"communicator", *e.eplb->communicator}});
  }
  flag(a, "--numa-bind", e.numaBind);
  flag(a, "--language-model-only", e.languageModelOnly);
  if (e.parsers) {
    flag(a, "--reasoning-parser", e.parsers->reasoningParser);
    flag(a, "--tool-call-parser", e.parsers->toolCallParser);
    flag(a, "--dyn-reasoning-parser", e.parsers->dynReasoningParser);
    flag(a, "--dyn-tool-call-parser", e.parsers->dynToolCallParser);
    flag(a, "--dyn-enable-structural-tag", e.parsers->dynEnableStructuralTag);
  }
  if (kvEventsOn(e)) jsonFlag(a, "--kv-events-config", kvEventsConfig(*e.kvEvents));
  flag(a, "--max-model-len", e.maxModelLen);
  flag(a, "--max-num-seqs", e.maxNumSeqs);
  flag(a, "--max-num-batched-tokens", e.maxNumBatchedTokens);
  flag(a, "--gpu-memory-utilization", e.gpuMemoryUtilization);
  flag(a, "--kv-cache-dtype", e.kvCacheDtype);
  flag(a, "--block-size", e.blockSize);
  flag(a, "--max-cudagraph-capture-size", e.maxCudagraphCaptureSize);
  flag(a, "--long-prefill-token-threshold", e.longPrefillTokenThreshold);
  flag(a, "--prefix-cache-retention-interval", e.prefixCacheRetentionInterval);
  toggle(a, "--enable-prefix-caching", "--no-enable-prefix-caching", e.prefixCaching);
  toggle(a, "--async-scheduling", "--no-async-scheduling", e.asyncScheduling);
  toggle(a, "--scheduler-reserve-full-isl", "--no-scheduler-reserve-full-isl", e.schedulerReserveFullIsl);
  toggle(a, "--enable-flashinfer-autotune", "--no-enable-flashinfer-autotune", e.flashinferAutotune);
  if (e.compilation && (e.compilation->cudagraphMode || !e.compilation->customOps.empty())) {
    ordered j = ordered::object();
    if (e.compilation->cudagraphMode) j["cudagraph_mode"] = *e.compilation->cudagraphMode;
    if (!e.compilation->customOps.empty()) j["custom_ops"] = e.compilation->customOps;
    jsonFlag(a, "--compilation-config", j);
  }
  if (e.attention) {
    const auto& at = *e.attention;
    const bool options = at.indexerKvDtype || at.indexerSparseLogits || at.useFp4IndexerCache;
    if (!options) {
      flag(a, "--attention-backend", at.backend);
    } else {
      ordered j;
      if (at.indexerKvDtype) j["indexer_kv_dtype"] = *at.indexerKvDtype;
      if (at.indexerSparseLogits) j["indexer_sparse_logits"] = *at.indexerSparseLogits;
      if (at.useFp4IndexerCache) j["use_fp4_indexer_cache"] = *at.useFp4IndexerCache;
      if (at.backend) j["backend"] = *at.backend;
      jsonFlag(a, "--attention-config", j);
    }
  }
  if (speculativeOn(e)) {
    const auto& s = *e.speculative;
    ordered j;
    j["method"] = *s.method;
    if (s.draftModel) j["model"] = *s.draftModel;
    if (s.numSpeculativeTokens) j["num_speculative_tokens"] = *s.numSpeculativeTokens;
    if (s.draftSampleMethod) j["draft_sample_method"] = *s.draftSampleMethod;
    if (s.rejectionSampleMethod) j["rejection_sample_method"] = *s.rejectionSampleMethod;
    if (s.adaptiveVerification) j["enable_adaptive_verification"] = *s.adaptiveVerification;
    jsonFlag(a, "--speculative-config", j);
  }
  a.insert(a.end(), e.extraArgs.begin(), e.extraArgs.end());
  return a;
}

nlohmann::json sglangConfig(const api::Model& model, api::ComponentType type, const api::Engine& e) {
  json c = json::object();
  auto put = [&c](const char* key, const auto& opt) {
    if (opt) c[key] = *opt;
  };
  put("model-path", model.id);
  put("served-model-name", model.servedName ? model.servedName : model.id);
  put("trust-remote-code", e.trustRemoteCode);
  put("tp-size", e.tensorParallelSize);
  put("dp-size", e.dataParallelSize);
  put("pp-size", e.pipelineParallelSize);
  put("ep-size", e.expertParallelSize);
  put("moe-runner-backend", e.moeBackend);
  put("kv-cache-dtype", e.kvCacheDtype);
  put("context-length", e.maxModelLen);
  put("max-running-requests", e.maxNumSeqs);
  put("page-size", e.blockSize);
  if (e.flashinferAutotune && !*e.flashinferAutotune) c["disable-flashinfer-autotune"] = true;
  if (e.parsers) {
    put("reasoning-parser", e.parsers->reasoningParser);
    put("tool-call-parser", e.parsers->toolCallParser);
  }
  if (speculativeOn(e)) {
    const auto& s = *e.speculative;
    c["speculative-algorithm"] = upper(*s.method);
    put("speculative-draft-model-path", s.draftModel);
    put("speculative-num-steps", s.numSteps);
    put("speculative-eagle-topk", s.eagleTopk);
    put("speculative-num-draft-tokens", s.numDraftTokens);
    put("speculative-dspark-block-size", s.dsparkBlockSize);
  }
  if (const char* mode = disaggMode(type)) c["disaggregation-mode"] = mode;
  if (e.kvTransfer) {
    put("disaggregation-transfer-backend", e.kvTransfer->transferBackend);
    put("disaggregation-bootstrap-port", e.kvTransfer->bootstrapPort);
  }
  if (e.sglang) {
    const auto& g = *e.sglang;
    put("mem-fraction-static", g.memFractionStatic);
    put("chunked-prefill-size", g.chunkedPrefillSize);
    put("max-prefill-tokens", g.maxPrefillTokens);
    put("load-balance-method", g.loadBalanceMethod);
    put("watchdog-timeout", g.watchdogTimeout);
    put("enable-metrics", g.enableMetrics);
    put("host", g.host);
    put("port", g.port);
    if (g.extraConfig.is_object()) {
      for (auto it = g.extraConfig.begin(); it != g.extraConfig.end(); ++it) c[it.key()] = it.value();
    }
  }
  return c;
}

std::vector<std::string> sglangArgs(const std::string& configPath, api::ComponentType /*type*/,
                                    const api::Engine& e) {
  Args a = {"-m", "dynamo.sglang", "--config", configPath};
  if (kvEventsOn(e)) jsonFlag(a, "--kv-events-config", kvEventsConfig(*e.kvEvents));
  if (e.parsers) {
    flag(a, "--dyn-reasoning-parser", e.parsers->dynReasoningParser);
    flag(a, "--dyn-tool-call-parser", e.parsers->dynToolCallParser);
    flag(a, "--dyn-enable-structural-tag", e.parsers->dynEnableStructuralTag);
  }
  if (e.sglang) {
    // Must stay on the command line: a deprecated alias of this key breaks the
    // config-file parser (recipes.md §3).
    flag(a, "--cuda-graph-max-bs-decode", e.sglang->cudaGraphMaxBsDecode);
    if (!e.sglang->cudaGraphBs.empty()) {
      a.emplace_back("--cuda-graph-bs");
      for (auto v : e.sglang->cudaGraphBs) a.push_back(std::to_string(v));
    }
    flag(a, "--prefill-round-robin-balance", e.sglang->prefillRoundRobinBalance);
  }
  a.insert(a.end(), e.extraArgs.begin(), e.extraArgs.end());
  return a;
}

std::vector<std::string> frontendArgs(const api::Router& r) {
  Args a = {"-m", "dynamo.frontend"};
  flag(a, "--router-kv-events", r.kvEvents);
  flag(a, "--kv-cache-block-size", r.blockSize);
  flag(a, "--router-reset-states", r.resetStates);
  flag(a, "--router-temperature", r.temperature);
  flag(a, "--trust-remote-code", r.trustRemoteCode);
  flag(a, "--http-host", r.httpHost);
  a.emplace_back("--http-port");
  a.push_back(std::to_string(r.httpPort.value_or(api::kFrontendHttpPort)));
  a.insert(a.end(), r.extraArgs.begin(), r.extraArgs.end());
  return a;
}

std::vector<std::pair<std::string, std::string>> routerEnv(const api::Router& r) {
  std::vector<std::pair<std::string, std::string>> env;
  if (r.mode) env.emplace_back("DYN_ROUTER_MODE", api::toString(*r.mode));
  if (r.decodeActiveRequestWeight) {
    env.emplace_back("DYN_ROUTER_DECODE_ACTIVE_REQUEST_WEIGHT", std::to_string(*r.decodeActiveRequestWeight));
  }
  if (r.conditionalDisaggregation) {
    const auto& c = *r.conditionalDisaggregation;
    const bool on = c.enabled.value_or(true);
    env.emplace_back("DYN_ROUTER_CONDITIONAL_DISAGG", on ? "true" : "false");
    if (on && (c.policy || c.effIslThreshold || c.effIslRatioThreshold || c.decodeBusyThreshold)) {
      // Built by hand: the recipes write ratios with two decimals ("0.70").
      std::string j = "{";
      auto add = [&j](const std::string& kv) {
        if (j.size() > 1) j += ',';
        j += kv;
      };
      if (c.policy) add("\"policy\":" + json(*c.policy).dump());
      if (c.effIslThreshold) add("\"eff_isl_threshold\":" + std::to_string(*c.effIslThreshold));
      if (c.effIslRatioThreshold) add("\"eff_isl_ratio_threshold\":" + formatNumber(*c.effIslRatioThreshold, 2));
      if (c.decodeBusyThreshold) add("\"decode_busy_threshold\":" + formatNumber(*c.decodeBusyThreshold, 2));
      j += '}';
      env.emplace_back("DYN_ROUTER_CONDITIONAL_DISAGG_CONFIG", j);
    }
  }
  return env;
}

}  // namespace dgd::render
