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
    a.push_back(format_number(*v));
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
void json_flag(Args& a, const char* name, const ordered& j) {
  a.emplace_back(name);
  a.push_back(j.dump());
}

bool kv_events_on(const api::Engine& e) { return e.kv_events && e.kv_events->enabled.value_or(true); }
bool speculative_on(const api::Engine& e) {
  return e.speculative && e.speculative->enabled.value_or(true) && e.speculative->method;
}

ordered kv_events_config(const api::KvEvents& k) {
  ordered j;
  j["publisher"] = k.publisher.value_or(api::kDefaultKvEventsPublisher);
  j["topic"] = k.topic.value_or(api::kDefaultKvEventsTopic);
  j["endpoint"] = "tcp://*:" + std::to_string(k.port.value_or(api::kDefaultKvEventsPort));
  if (k.enable_kv_cache_events) j["enable_kv_cache_events"] = *k.enable_kv_cache_events;
  return j;
}

const char* disagg_mode(api::ComponentType t) {
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

std::string format_number(double v, int min_decimals) {
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  std::string s(buf, res.ptr);
  if (s.find_first_of("eE") != std::string::npos) return s;
  if (min_decimals > 0) {
    size_t dot = s.find('.');
    if (dot == std::string::npos) {
      s += '.';
      dot = s.size() - 1;
    }
    while (static_cast<int>(s.size() - dot - 1) < min_decimals) s += '0';
  }
  return s;
}

int kv_events_port(const api::Engine& engine) {
  if (!kv_events_on(engine)) return 0;
  return static_cast<int>(engine.kv_events->port.value_or(api::kDefaultKvEventsPort));
}

std::vector<std::string> vllm_args(const api::Model& model, api::ComponentType type,
                                  const api::Engine& e) {
  Args a = {"-m", "dynamo.vllm"};
  if (const char* mode = disagg_mode(type)) {
    a.emplace_back("--disaggregation-mode");
    a.emplace_back(mode);
  }
  if (e.kv_transfer && e.kv_transfer->connector) {
    const auto& k = *e.kv_transfer;
    ordered j;
    j["kv_connector"] = *k.connector;
    j["kv_role"] = k.role.value_or(api::kDefaultKvRole);
    j["kv_buffer_device"] = k.buffer_device.value_or(api::kDefaultKvBufferDevice);
    if (!k.backends.empty() || k.num_threads) {
      ordered extra = ordered::object();
      if (!k.backends.empty()) extra["backends"] = k.backends;
      if (k.num_threads) extra["num_threads"] = *k.num_threads;
      j["kv_connector_extra_config"] = extra;
    }
    json_flag(a, "--kv-transfer-config", j);
  }
  flag(a, "--model", model.id);
  flag(a, "--served-model-name", model.served_name ? model.served_name : model.id);
  flag(a, "--trust-remote-code", e.trust_remote_code);
  if (e.parsers) flag(a, "--tokenizer-mode", e.parsers->tokenizer_mode);
  flag(a, "--tensor-parallel-size", e.tensor_parallel_size);
  flag(a, "--data-parallel-size", e.data_parallel_size);
  flag(a, "--pipeline-parallel-size", e.pipeline_parallel_size);
  flag(a, "--enable-expert-parallel", e.expert_parallel);
  flag(a, "--moe-backend", e.moe_backend);
  flag(a, "--enable-ep-weight-filter", e.ep_weight_filter);
  if (e.eplb && e.eplb->enabled.value_or(true)) {
    a.emplace_back("--enable-eplb");
    if (e.eplb->communicator) json_flag(a, "--eplb-config", ordered{{"communicator", *e.eplb->communicator}});
  }
  flag(a, "--numa-bind", e.numa_bind);
  flag(a, "--language-model-only", e.language_model_only);
  if (e.parsers) {
    flag(a, "--reasoning-parser", e.parsers->reasoning_parser);
    flag(a, "--tool-call-parser", e.parsers->tool_call_parser);
    flag(a, "--dyn-reasoning-parser", e.parsers->dyn_reasoning_parser);
    flag(a, "--dyn-tool-call-parser", e.parsers->dyn_tool_call_parser);
    flag(a, "--dyn-enable-structural-tag", e.parsers->dyn_enable_structural_tag);
  }
  if (kv_events_on(e)) json_flag(a, "--kv-events-config", kv_events_config(*e.kv_events));
  flag(a, "--max-model-len", e.max_model_len);
  flag(a, "--max-num-seqs", e.max_num_seqs);
  flag(a, "--max-num-batched-tokens", e.max_num_batched_tokens);
  flag(a, "--gpu-memory-utilization", e.gpu_memory_utilization);
  flag(a, "--kv-cache-dtype", e.kv_cache_dtype);
  flag(a, "--block-size", e.block_size);
  flag(a, "--max-cudagraph-capture-size", e.max_cudagraph_capture_size);
  flag(a, "--long-prefill-token-threshold", e.long_prefill_token_threshold);
  flag(a, "--prefix-cache-retention-interval", e.prefix_cache_retention_interval);
  toggle(a, "--enable-prefix-caching", "--no-enable-prefix-caching", e.prefix_caching);
  toggle(a, "--async-scheduling", "--no-async-scheduling", e.async_scheduling);
  toggle(a, "--scheduler-reserve-full-isl", "--no-scheduler-reserve-full-isl", e.scheduler_reserve_full_isl);
  toggle(a, "--enable-flashinfer-autotune", "--no-enable-flashinfer-autotune", e.flashinfer_autotune);
  if (e.compilation && (e.compilation->cudagraph_mode || !e.compilation->custom_ops.empty())) {
    ordered j = ordered::object();
    if (e.compilation->cudagraph_mode) j["cudagraph_mode"] = *e.compilation->cudagraph_mode;
    if (!e.compilation->custom_ops.empty()) j["custom_ops"] = e.compilation->custom_ops;
    json_flag(a, "--compilation-config", j);
  }
  if (e.attention) {
    const auto& at = *e.attention;
    const bool options = at.indexer_kv_dtype || at.indexer_sparse_logits || at.use_fp4_indexer_cache;
    if (!options) {
      flag(a, "--attention-backend", at.backend);
    } else {
      ordered j;
      if (at.indexer_kv_dtype) j["indexer_kv_dtype"] = *at.indexer_kv_dtype;
      if (at.indexer_sparse_logits) j["indexer_sparse_logits"] = *at.indexer_sparse_logits;
      if (at.use_fp4_indexer_cache) j["use_fp4_indexer_cache"] = *at.use_fp4_indexer_cache;
      if (at.backend) j["backend"] = *at.backend;
      json_flag(a, "--attention-config", j);
    }
  }
  if (speculative_on(e)) {
    const auto& s = *e.speculative;
    ordered j;
    j["method"] = *s.method;
    if (s.draft_model) j["model"] = *s.draft_model;
    if (s.num_speculative_tokens) j["num_speculative_tokens"] = *s.num_speculative_tokens;
    if (s.draft_sample_method) j["draft_sample_method"] = *s.draft_sample_method;
    if (s.rejection_sample_method) j["rejection_sample_method"] = *s.rejection_sample_method;
    if (s.adaptive_verification) j["enable_adaptive_verification"] = *s.adaptive_verification;
    json_flag(a, "--speculative-config", j);
  }
  a.insert(a.end(), e.extra_args.begin(), e.extra_args.end());
  return a;
}

nlohmann::json sglang_config(const api::Model& model, api::ComponentType type, const api::Engine& e) {
  json c = json::object();
  auto put = [&c](const char* key, const auto& opt) {
    if (opt) c[key] = *opt;
  };
  put("model-path", model.id);
  put("served-model-name", model.served_name ? model.served_name : model.id);
  put("trust-remote-code", e.trust_remote_code);
  put("tp-size", e.tensor_parallel_size);
  put("dp-size", e.data_parallel_size);
  put("pp-size", e.pipeline_parallel_size);
  put("ep-size", e.expert_parallel_size);
  put("moe-runner-backend", e.moe_backend);
  put("kv-cache-dtype", e.kv_cache_dtype);
  put("context-length", e.max_model_len);
  put("max-running-requests", e.max_num_seqs);
  put("page-size", e.block_size);
  if (e.flashinfer_autotune && !*e.flashinfer_autotune) c["disable-flashinfer-autotune"] = true;
  if (e.parsers) {
    put("reasoning-parser", e.parsers->reasoning_parser);
    put("tool-call-parser", e.parsers->tool_call_parser);
  }
  if (speculative_on(e)) {
    const auto& s = *e.speculative;
    c["speculative-algorithm"] = upper(*s.method);
    put("speculative-draft-model-path", s.draft_model);
    put("speculative-num-steps", s.num_steps);
    put("speculative-eagle-topk", s.eagle_topk);
    put("speculative-num-draft-tokens", s.num_draft_tokens);
    put("speculative-dspark-block-size", s.dspark_block_size);
  }
  if (const char* mode = disagg_mode(type)) c["disaggregation-mode"] = mode;
  if (e.kv_transfer) {
    put("disaggregation-transfer-backend", e.kv_transfer->transfer_backend);
    put("disaggregation-bootstrap-port", e.kv_transfer->bootstrap_port);
  }
  if (e.sglang) {
    const auto& g = *e.sglang;
    put("mem-fraction-static", g.mem_fraction_static);
    put("chunked-prefill-size", g.chunked_prefill_size);
    put("max-prefill-tokens", g.max_prefill_tokens);
    put("load-balance-method", g.load_balance_method);
    put("watchdog-timeout", g.watchdog_timeout);
    put("enable-metrics", g.enable_metrics);
    put("host", g.host);
    put("port", g.port);
    if (g.extra_config.is_object()) {
      for (auto it = g.extra_config.begin(); it != g.extra_config.end(); ++it) c[it.key()] = it.value();
    }
  }
  return c;
}

std::vector<std::string> sglang_args(const std::string& config_path, api::ComponentType /*type*/,
                                    const api::Engine& e) {
  Args a = {"-m", "dynamo.sglang", "--config", config_path};
  if (kv_events_on(e)) json_flag(a, "--kv-events-config", kv_events_config(*e.kv_events));
  if (e.parsers) {
    flag(a, "--dyn-reasoning-parser", e.parsers->dyn_reasoning_parser);
    flag(a, "--dyn-tool-call-parser", e.parsers->dyn_tool_call_parser);
    flag(a, "--dyn-enable-structural-tag", e.parsers->dyn_enable_structural_tag);
  }
  if (e.sglang) {
    // Must stay on the command line: a deprecated alias of this key breaks the
    // config-file parser (recipes.md §3).
    flag(a, "--cuda-graph-max-bs-decode", e.sglang->cuda_graph_max_bs_decode);
    if (!e.sglang->cuda_graph_bs.empty()) {
      a.emplace_back("--cuda-graph-bs");
      for (auto v : e.sglang->cuda_graph_bs) a.push_back(std::to_string(v));
    }
    flag(a, "--prefill-round-robin-balance", e.sglang->prefill_round_robin_balance);
  }
  a.insert(a.end(), e.extra_args.begin(), e.extra_args.end());
  return a;
}

std::vector<std::string> frontend_args(const api::Router& r) {
  Args a = {"-m", "dynamo.frontend"};
  flag(a, "--router-kv-events", r.kv_events);
  flag(a, "--kv-cache-block-size", r.block_size);
  flag(a, "--router-reset-states", r.reset_states);
  flag(a, "--router-temperature", r.temperature);
  flag(a, "--trust-remote-code", r.trust_remote_code);
  flag(a, "--http-host", r.http_host);
  a.emplace_back("--http-port");
  a.push_back(std::to_string(r.http_port.value_or(api::kFrontendHttpPort)));
  a.insert(a.end(), r.extra_args.begin(), r.extra_args.end());
  return a;
}

std::vector<std::pair<std::string, std::string>> router_env(const api::Router& r) {
  std::vector<std::pair<std::string, std::string>> env;
  if (r.mode) env.emplace_back("DYN_ROUTER_MODE", api::to_string(*r.mode));
  if (r.decode_active_request_weight) {
    env.emplace_back("DYN_ROUTER_DECODE_ACTIVE_REQUEST_WEIGHT", std::to_string(*r.decode_active_request_weight));
  }
  if (r.conditional_disaggregation) {
    const auto& c = *r.conditional_disaggregation;
    const bool on = c.enabled.value_or(true);
    env.emplace_back("DYN_ROUTER_CONDITIONAL_DISAGG", on ? "true" : "false");
    if (on && (c.policy || c.eff_isl_threshold || c.eff_isl_ratio_threshold || c.decode_busy_threshold)) {
      // Built by hand: the recipes write ratios with two decimals ("0.70").
      std::string j = "{";
      auto add = [&j](const std::string& kv) {
        if (j.size() > 1) j += ',';
        j += kv;
      };
      if (c.policy) add("\"policy\":" + json(*c.policy).dump());
      if (c.eff_isl_threshold) add("\"eff_isl_threshold\":" + std::to_string(*c.eff_isl_threshold));
      if (c.eff_isl_ratio_threshold) add("\"eff_isl_ratio_threshold\":" + format_number(*c.eff_isl_ratio_threshold, 2));
      if (c.decode_busy_threshold) add("\"decode_busy_threshold\":" + format_number(*c.decode_busy_threshold, 2));
      j += '}';
      env.emplace_back("DYN_ROUTER_CONDITIONAL_DISAGG_CONFIG", j);
    }
  }
  return env;
}

}  // namespace dgd::render
