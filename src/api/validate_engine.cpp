// Validation of components[].engine and components[].router (see validate.h).
#include <set>

#include "api/checker.h"
#include "api/syntax.h"
#include "dgd/api/defaults.h"

namespace dgd::api::detail {
namespace {

using syntax::shown;

const std::initializer_list<std::string_view> kMoeBackends = {
    "auto", "triton", "triton_kernel", "deep_gemm", "deep_gemm_mega_moe", "cutlass", "flashinfer_cutlass",
    "flashinfer_trtllm", "flashinfer_cutedsl", "flashinfer_mxfp4", "marlin", "aiter"};
// MoE kernels built for Blackwell (SM100) only.
const std::initializer_list<std::string_view> kBlackwellMoe = {"deep_gemm_mega_moe", "flashinfer_trtllm",
                                                                   "flashinfer_mxfp4"};
const std::initializer_list<std::string_view> kKvCacheDtypes = {
    "auto", "bfloat16", "fp8", "fp8_e4m3", "fp8_e5m2", "fp8_inc", "fp8_ds_mla", "nvfp4_ds_mla", "nvfp4"};
const std::initializer_list<std::string_view> kBlackwellKvDtypes = {"nvfp4_ds_mla", "nvfp4"};
const std::initializer_list<std::string_view> kBlackwellAttention = {"FLASHMLA_MEGA_ATTN_DSV41", "CUTLASS_MLA"};
const std::initializer_list<std::string_view> kIndexerKvDtypes = {"auto", "bfloat16", "fp8", "mxfp4"};
const std::initializer_list<std::string_view> kCudagraphModes = {"NONE", "PIECEWISE", "FULL", "FULL_DECODE_ONLY",
                                                                     "FULL_AND_PIECEWISE"};
const std::initializer_list<std::string_view> kSpecMethods = {"dspark", "mtp",   "eagle",  "eagle3",
                                                                  "nextn",  "ngram", "medusa", "draft_model"};
const std::initializer_list<std::string_view> kConnectors = {"NixlConnector",     "LMCacheConnectorV1",
                                                                 "MooncakeConnector", "P2pNcclConnector",
                                                                 "MultiConnector",    "OffloadingConnector"};
const std::initializer_list<std::string_view> kNixlBackends = {"UCX",   "UCX_MO", "LIBFABRIC", "GDS",     "GDS_MT",
                                                                   "POSIX", "OBJ",    "MOONCAKE",  "GPUNETIO", "HF3FS"};

bool is_blackwell_only(GpuProduct g) { return g == GpuProduct::kH200; }

// A vLLM flag the renderer emits from a typed field, and whether that field is set.
struct ManagedFlag {
  std::string_view flag;
  std::string_view field;
  bool (*set)(const Engine&);
};

#define DGD_FLAG(flag, field, expr) ManagedFlag{flag, field, [](const Engine& e) -> bool { return (expr); }}
const ManagedFlag kVllmFlags[] = {
    DGD_FLAG("--tensor-parallel-size", "tensorParallelSize", e.tensor_parallel_size.has_value()),
    DGD_FLAG("-tp", "tensorParallelSize", e.tensor_parallel_size.has_value()),
    DGD_FLAG("--data-parallel-size", "dataParallelSize", e.data_parallel_size.has_value()),
    DGD_FLAG("-dp", "dataParallelSize", e.data_parallel_size.has_value()),
    DGD_FLAG("--pipeline-parallel-size", "pipelineParallelSize", e.pipeline_parallel_size.has_value()),
    DGD_FLAG("--enable-expert-parallel", "expertParallel", e.expert_parallel.has_value()),
    DGD_FLAG("--enable-eplb", "eplb", e.eplb.has_value()),
    DGD_FLAG("--eplb-config", "eplb", e.eplb.has_value()),
    DGD_FLAG("--enable-ep-weight-filter", "epWeightFilter", e.ep_weight_filter.has_value()),
    DGD_FLAG("--moe-backend", "moeBackend", e.moe_backend.has_value()),
    DGD_FLAG("--kv-cache-dtype", "kvCacheDtype", e.kv_cache_dtype.has_value()),
    DGD_FLAG("--attention-config", "attention", e.attention.has_value()),
    DGD_FLAG("--attention-backend", "attention", e.attention.has_value()),
    DGD_FLAG("--compilation-config", "compilation", e.compilation.has_value()),
    DGD_FLAG("--speculative-config", "speculative", e.speculative.has_value()),
    DGD_FLAG("--max-model-len", "maxModelLen", e.max_model_len.has_value()),
    DGD_FLAG("--max-num-seqs", "maxNumSeqs", e.max_num_seqs.has_value()),
    DGD_FLAG("--max-num-batched-tokens", "maxNumBatchedTokens", e.max_num_batched_tokens.has_value()),
    DGD_FLAG("--gpu-memory-utilization", "gpuMemoryUtilization", e.gpu_memory_utilization.has_value()),
    DGD_FLAG("--block-size", "blockSize", e.block_size.has_value()),
    DGD_FLAG("--max-cudagraph-capture-size", "maxCudagraphCaptureSize", e.max_cudagraph_capture_size.has_value()),
    DGD_FLAG("--long-prefill-token-threshold", "longPrefillTokenThreshold", e.long_prefill_token_threshold.has_value()),
    DGD_FLAG("--prefix-cache-retention-interval", "prefixCacheRetentionInterval",
             e.prefix_cache_retention_interval.has_value()),
    DGD_FLAG("--enable-prefix-caching", "prefixCaching", e.prefix_caching.has_value()),
    DGD_FLAG("--no-enable-prefix-caching", "prefixCaching", e.prefix_caching.has_value()),
    DGD_FLAG("--no-async-scheduling", "asyncScheduling", e.async_scheduling.has_value()),
    DGD_FLAG("--no-scheduler-reserve-full-isl", "schedulerReserveFullIsl", e.scheduler_reserve_full_isl.has_value()),
    DGD_FLAG("--no-enable-flashinfer-autotune", "flashinferAutotune", e.flashinfer_autotune.has_value()),
    DGD_FLAG("--trust-remote-code", "trustRemoteCode", e.trust_remote_code.has_value()),
    DGD_FLAG("--numa-bind", "numaBind", e.numa_bind.has_value()),
    DGD_FLAG("--language-model-only", "languageModelOnly", e.language_model_only.has_value()),
    DGD_FLAG("--tokenizer-mode", "parsers.tokenizerMode", e.parsers && e.parsers->tokenizer_mode),
    DGD_FLAG("--reasoning-parser", "parsers.reasoningParser", e.parsers && e.parsers->reasoning_parser),
    DGD_FLAG("--tool-call-parser", "parsers.toolCallParser", e.parsers && e.parsers->tool_call_parser),
    DGD_FLAG("--dyn-reasoning-parser", "parsers.dynReasoningParser", e.parsers && e.parsers->dyn_reasoning_parser),
    DGD_FLAG("--dyn-tool-call-parser", "parsers.dynToolCallParser", e.parsers && e.parsers->dyn_tool_call_parser),
    DGD_FLAG("--kv-events-config", "kvEvents", e.kv_events.has_value()),
    DGD_FLAG("--kv-transfer-config", "kvTransfer", e.kv_transfer.has_value()),
    DGD_FLAG("--disaggregation-mode", "type", ((void)e, true)),
    DGD_FLAG("--config", "sglang", ((void)e, true)),
};
#undef DGD_FLAG

}  // namespace

void Checker::check_engine(size_t, const Component& c, const Engine& e, const std::string& path) {
  const auto fw = framework();
  const bool vllm = fw == BackendFramework::kVllm;
  const bool sglang = fw == BackendFramework::kSglang;
  if (fw == BackendFramework::kTrtllm) {
    error(path, "typed engine settings support vllm and sglang; for trtllm write the args in podTemplate");
    return;
  }
  if (!fw && complete_) {
    error("spec.backendFramework", "required with typed engine settings (vllm or sglang): it selects how the "
                                   "engine block is rendered");
  }

  // Parallelism.
  range(path + ".tensorParallelSize", e.tensor_parallel_size, 1, 64);
  range(path + ".dataParallelSize", e.data_parallel_size, 1, 1024);
  range(path + ".pipelineParallelSize", e.pipeline_parallel_size, 1, 64);
  range(path + ".expertParallelSize", e.expert_parallel_size, 1, 1024);
  if (e.expert_parallel_size && vllm) {
    error(path + ".expertParallelSize", "vLLM derives the expert-parallel size from TP×DP: use expertParallel: true");
  }
  if (sglang && e.expert_parallel_size && e.tensor_parallel_size && *e.expert_parallel_size >= 1 &&
      *e.tensor_parallel_size >= 1 && *e.tensor_parallel_size % *e.expert_parallel_size != 0) {
    error(path + ".expertParallelSize", "must divide tensorParallelSize (" + std::to_string(*e.tensor_parallel_size) + ")");
  }
  // GPUs per pod must match the parallel layout, or the engine fails after loading the model.
  if (auto gpus = main_container_gpus(c.pod_template)) {
    int64_t tp = e.tensor_parallel_size.value_or(1), dp = e.data_parallel_size.value_or(1),
            pp = e.pipeline_parallel_size.value_or(1);
    if (tp >= 1 && tp <= 64 && dp >= 1 && dp <= 1024 && pp >= 1 && pp <= 64) {
      int64_t want = sglang ? tp * pp : tp * dp * pp;  // SGLang's dp-size splits attention inside TP
      if (want != *gpus) {
        std::string layout = sglang ? "tensorParallelSize × pipelineParallelSize"
                                    : "tensorParallelSize × dataParallelSize × pipelineParallelSize";
        error(path + ".tensorParallelSize", layout + " = " + std::to_string(want) + " but the main container requests " +
                                                std::to_string(*gpus) + " nvidia.com/gpu");
      }
    }
  }

  // EPLB.
  if (e.eplb) {
    bool on = e.eplb->enabled.value_or(true);
    bool ep = e.expert_parallel.value_or(false) || e.expert_parallel_size.value_or(1) > 1;
    if (on && !ep && (complete_ || e.expert_parallel.has_value())) {
      error(path + ".eplb.enabled", "expert-parallel load balancing needs expert parallelism: set expertParallel: true");
    }
    if (e.eplb->communicator && !syntax::is_lower_identifier(*e.eplb->communicator)) {
      error(path + ".eplb.communicator", "\"" + shown(*e.eplb->communicator) + "\" is not a communicator name (e.g. torch_gloo)");
    }
  }

  // Kernels.
  one_of(path + ".moeBackend", e.moe_backend, kMoeBackends);
  one_of(path + ".kvCacheDtype", e.kv_cache_dtype, kKvCacheDtypes);
  const auto g = gpu();
  const std::string on_gpu = g ? std::string(" (placement.gpu is ") + to_string(*g) + ")" : "";
  if (g && is_blackwell_only(*g)) {
    if (e.moe_backend && contains(kBlackwellMoe, *e.moe_backend)) {
      error(path + ".moeBackend", "\"" + *e.moe_backend + "\" needs Blackwell (B200/GB200)" + on_gpu +
                                      "; H200 recipes use flashinfer_cutlass or marlin");
    }
    if (e.kv_cache_dtype && contains(kBlackwellKvDtypes, *e.kv_cache_dtype)) {
      error(path + ".kvCacheDtype", "\"" + *e.kv_cache_dtype + "\" needs Blackwell (B200/GB200)" + on_gpu + "; use fp8_ds_mla");
    }
  }
  if (e.attention) {
    const Attention& a = *e.attention;
    if (a.backend && !syntax::is_upper_identifier(*a.backend)) {
      error(path + ".attention.backend", "\"" + shown(*a.backend) + "\" is not an attention backend name (e.g. FLASHINFER_MLA)");
    }
    one_of(path + ".attention.indexerKvDtype", a.indexer_kv_dtype, kIndexerKvDtypes);
    if (g && is_blackwell_only(*g)) {
      if (a.backend && contains(kBlackwellAttention, *a.backend)) {
        error(path + ".attention.backend", "\"" + *a.backend + "\" needs Blackwell (B200/GB200)" + on_gpu +
                                               "; leave it unset on H200 (runtime default) or use FLASHINFER_MLA");
      }
      if (a.indexer_kv_dtype == "mxfp4") {
        error(path + ".attention.indexerKvDtype", "the MXFP4 sparse indexer needs Blackwell (B200/GB200)" + on_gpu);
      }
      if (a.use_fp4_indexer_cache.value_or(false)) {
        error(path + ".attention.useFp4IndexerCache", "the FP4 indexer cache needs Blackwell (B200/GB200)" + on_gpu);
      }
    }
  }
  if (e.compilation) {
    one_of(path + ".compilation.cudagraphMode", e.compilation->cudagraph_mode, kCudagraphModes);
    for (size_t i = 0; i < e.compilation->custom_ops.size(); ++i) {
      const std::string& op = e.compilation->custom_ops[i];
      std::string_view name = op;
      if (!name.empty() && (name[0] == '+' || name[0] == '-')) name.remove_prefix(1);
      if (!syntax::is_lower_identifier(name)) {
        error(path + ".compilation.customOps[" + std::to_string(i) + "]", "\"" + shown(op) + "\" is not a custom-op name (all, none, +op, -op)");
      }
    }
  }

  // Speculative decoding.
  if (e.speculative) {
    const Speculative& s = *e.speculative;
    std::string sp = path + ".speculative";
    one_of(sp + ".method", s.method, kSpecMethods);
    range(sp + ".numSpeculativeTokens", s.num_speculative_tokens, 1, 8);
    one_of(sp + ".draftSampleMethod", s.draft_sample_method, {"probabilistic", "greedy"});
    if (s.rejection_sample_method && !syntax::is_lower_identifier(*s.rejection_sample_method)) {
      error(sp + ".rejectionSampleMethod", "\"" + shown(*s.rejection_sample_method) + "\" is not a method name (e.g. block)");
    }
    range(sp + ".numSteps", s.num_steps, 1, 16);
    range(sp + ".eagleTopk", s.eagle_topk, 1, 16);
    range(sp + ".numDraftTokens", s.num_draft_tokens, 1, 64);
    range(sp + ".dsparkBlockSize", s.dspark_block_size, 1, 64);
    if (s.draft_model && !syntax::is_model_id(*s.draft_model) && !syntax::is_clean_absolute_path(*s.draft_model)) {
      error(sp + ".draftModel", "must be a model id or an absolute path");
    }
    bool on = s.enabled.value_or(true);
    if (on && complete_ && !s.method) error(sp + ".method", "required: dspark, mtp, eagle, ...");
    if (on && s.method == "dspark" && s.adaptive_verification.value_or(false)) {
      error(sp + ".adaptiveVerification", "must stay false with DSpark: adaptive verification causes illegal memory "
                                          "accesses in this runtime");
    }
    if (vllm) {
      if (on && complete_ && s.method && !s.num_speculative_tokens && *s.method != "ngram") {
        error(sp + ".numSpeculativeTokens", "required by vLLM's speculative config");
      }
      for (auto [set, name] : {std::pair{s.num_steps.has_value(), "numSteps"}, {s.eagle_topk.has_value(), "eagleTopk"},
                               {s.num_draft_tokens.has_value(), "numDraftTokens"},
                               {s.dspark_block_size.has_value(), "dsparkBlockSize"}}) {
        if (set) error(sp + "." + name, "is an SGLang setting; vLLM uses numSpeculativeTokens");
      }
    }
    if (sglang) {
      for (auto [set, name] : {std::pair{s.draft_sample_method.has_value(), "draftSampleMethod"},
                               {s.rejection_sample_method.has_value(), "rejectionSampleMethod"},
                               {s.adaptive_verification.has_value(), "adaptiveVerification"}}) {
        if (set) error(sp + "." + name, "is a vLLM setting with no SGLang equivalent");
      }
    }
  }

  // Limits.
  range(path + ".maxModelLen", e.max_model_len, 1, 16 * 1024 * 1024);
  range(path + ".maxNumSeqs", e.max_num_seqs, 1, 65536);
  range(path + ".maxNumBatchedTokens", e.max_num_batched_tokens, 1, 16 * 1024 * 1024);
  if (e.gpu_memory_utilization && !(*e.gpu_memory_utilization > 0 && *e.gpu_memory_utilization <= 1)) {
    error(path + ".gpuMemoryUtilization", "must be in (0, 1], got " + std::to_string(*e.gpu_memory_utilization));
  }
  if (e.block_size && !(syntax::is_power_of_two(*e.block_size) && *e.block_size <= 1024)) {
    error(path + ".blockSize", "must be a power of two 1..1024, got " + std::to_string(*e.block_size));
  }
  range(path + ".maxCudagraphCaptureSize", e.max_cudagraph_capture_size, 1, 8192);
  range(path + ".longPrefillTokenThreshold", e.long_prefill_token_threshold, 1, 16 * 1024 * 1024);
  range(path + ".prefixCacheRetentionInterval", e.prefix_cache_retention_interval, 1, 1 << 30);
  if (vllm && e.max_num_batched_tokens && e.max_num_seqs && *e.max_num_batched_tokens < *e.max_num_seqs) {
    error(path + ".maxNumBatchedTokens", "must be at least maxNumSeqs (" + std::to_string(*e.max_num_seqs) + "): vLLM refuses to start otherwise");
  }
  if (vllm && e.long_prefill_token_threshold && e.max_num_batched_tokens && *e.long_prefill_token_threshold > *e.max_num_batched_tokens) {
    error(path + ".longPrefillTokenThreshold", "must not exceed maxNumBatchedTokens (" + std::to_string(*e.max_num_batched_tokens) + ")");
  }

  // Parsers.
  if (e.parsers) {
    const Parsers& p = *e.parsers;
    std::string pp = path + ".parsers";
    for (auto [v, name] : {std::pair{&p.tokenizer_mode, "tokenizerMode"}, {&p.reasoning_parser, "reasoningParser"},
                           {&p.tool_call_parser, "toolCallParser"}, {&p.dyn_reasoning_parser, "dynReasoningParser"},
                           {&p.dyn_tool_call_parser, "dynToolCallParser"}}) {
      if (*v && !syntax::is_lower_identifier(**v)) {
        error(pp + "." + name, "\"" + shown(**v) + "\" is not a parser name (e.g. deepseek_v41)");
      }
    }
    if (p.tool_call_parser && p.dyn_tool_call_parser) {
      error(pp + ".toolCallParser", "do not combine the engine tool-call parser with the Dynamo one "
                                    "(dynToolCallParser): tool calls would be parsed twice; keep dynToolCallParser");
    }
  }

  // KV events.
  if (e.kv_events) {
    const KvEvents& k = *e.kv_events;
    std::string kp = path + ".kvEvents";
    one_of(kp + ".publisher", k.publisher, {"zmq"});
    if (k.topic) {
      bool ok = !k.topic->empty() && k.topic->size() <= 253;
      for (unsigned char ch : *k.topic) ok = ok && ch > 0x20 && ch != 0x7f && ch != '"' && ch != '\\';
      if (!ok) error(kp + ".topic", "must be 1..253 printable characters without spaces or quotes");
    }
    range(kp + ".port", k.port, 1024, 65535);
    if (k.port && (*k.port == kSystemPort || *k.port == kNixlTelemetryPort || *k.port == kFrontendHttpPort)) {
      error(kp + ".port", "port " + std::to_string(*k.port) + " is reserved (8000 http, 9090 system, 19090 NIXL telemetry)");
    }
  }

  // KV transfer.
  if (e.kv_transfer) {
    const KvTransfer& t = *e.kv_transfer;
    std::string tp = path + ".kvTransfer";
    one_of(tp + ".connector", t.connector, kConnectors);
    one_of(tp + ".role", t.role, {"kv_both", "kv_producer", "kv_consumer"});
    one_of(tp + ".bufferDevice", t.buffer_device, {"cuda", "cpu"});
    for (size_t i = 0; i < t.backends.size(); ++i) {
      if (!contains(kNixlBackends, t.backends[i])) {
        error(tp + ".backends[" + std::to_string(i) + "]",
              "unsupported NIXL backend \"" + shown(t.backends[i]) + "\": must be one of: " + list_of(kNixlBackends));
      }
    }
    std::set<std::string> uniq(t.backends.begin(), t.backends.end());
    if (uniq.size() != t.backends.size()) error(tp + ".backends", "lists a backend twice");
    range(tp + ".numThreads", t.num_threads, 1, 64);
    one_of(tp + ".transferBackend", t.transfer_backend, {"mooncake", "nixl", "ascend", "mori", "fake"});
    range(tp + ".bootstrapPort", t.bootstrap_port, 1024, 65535);
    if (t.bootstrap_port && (*t.bootstrap_port == kSystemPort || *t.bootstrap_port == kFrontendHttpPort)) {
      error(tp + ".bootstrapPort", "port " + std::to_string(*t.bootstrap_port) + " is reserved");
    }
    if ((!t.backends.empty() || t.num_threads) && t.connector && *t.connector != "NixlConnector") {
      error(tp + ".backends", "backends and numThreads configure NixlConnector only");
    }
    if (vllm) {
      if (complete_ && !t.connector && (t.role || t.buffer_device || !t.backends.empty() || t.num_threads)) {
        error(tp + ".connector", "required: without a connector vLLM gets no --kv-transfer-config");
      }
      if (t.transfer_backend) error(tp + ".transferBackend", "is an SGLang setting; vLLM uses connector");
      if (t.bootstrap_port) error(tp + ".bootstrapPort", "is an SGLang setting");
    }
    if (sglang) {
      for (auto [set, name] : {std::pair{t.connector.has_value(), "connector"}, {t.role.has_value(), "role"},
                               {t.buffer_device.has_value(), "bufferDevice"}, {!t.backends.empty(), "backends"},
                               {t.num_threads.has_value(), "numThreads"}}) {
        if (set) error(tp + "." + name, "is a vLLM setting; SGLang uses transferBackend (e.g. mooncake)");
      }
    }
  }

  // SGLang-only block.
  if (e.sglang) {
    const SglangSettings& s = *e.sglang;
    std::string sp = path + ".sglang";
    if (vllm) error(sp, "SGLang settings with backendFramework vllm");
    if (s.mem_fraction_static && !(*s.mem_fraction_static > 0 && *s.mem_fraction_static < 1)) {
      error(sp + ".memFractionStatic", "must be in (0, 1)");
    }
    if (s.chunked_prefill_size && *s.chunked_prefill_size != -1 && (*s.chunked_prefill_size < 1 || *s.chunked_prefill_size > 16 * 1024 * 1024)) {
      error(sp + ".chunkedPrefillSize", "must be -1 (disabled) or 1..16777216");
    }
    range(sp + ".maxPrefillTokens", s.max_prefill_tokens, 1, 16 * 1024 * 1024);
    one_of(sp + ".loadBalanceMethod", s.load_balance_method,
          {"round_robin", "shortest_queue", "minimum_tokens", "follow_bootstrap_room", "total_requests", "total_tokens"});
    range(sp + ".watchdogTimeout", s.watchdog_timeout, 1, 7 * 24 * 3600);
    if (s.host && (s.host->empty() || !syntax::is_image_ref(*s.host))) error(sp + ".host", "must be an address");
    range(sp + ".port", s.port, 1024, 65535);
    if (s.port && (*s.port == kSystemPort || *s.port == kFrontendHttpPort)) error(sp + ".port", "port is reserved");
    range(sp + ".cudaGraphMaxBsDecode", s.cuda_graph_max_bs_decode, 1, 4096);
    for (size_t i = 0; i < s.cuda_graph_bs.size(); ++i) {
      if (s.cuda_graph_bs[i] < 1 || s.cuda_graph_bs[i] > 4096) {
        error(sp + ".cudaGraphBs[" + std::to_string(i) + "]", "must be 1..4096");
      }
    }
    if (!s.extra_config.is_null()) {
      if (!s.extra_config.is_object()) {
        error(sp + ".extraConfig", "must be a map of SGLang config keys");
      } else {
        for (auto it = s.extra_config.begin(); it != s.extra_config.end(); ++it) {
          const std::string& k = it.key();
          if (k == "cuda-graph-max-bs-decode") {
            error(sp + ".extraConfig." + k, "must stay on the command line (a deprecated alias breaks the config "
                                            "parser): use sglang.cudaGraphMaxBsDecode");
          } else if (contains({"model-path", "served-model-name", "tp-size", "ep-size", "dp-size", "pp-size",
                               "page-size", "context-length", "max-running-requests", "mem-fraction-static",
                               "disaggregation-mode", "disaggregation-transfer-backend",
                               "disaggregation-bootstrap-port", "speculative-algorithm", "kv-cache-dtype"},
                              k)) {
            error(sp + ".extraConfig." + shown(k), "is a typed setting: use its engine field instead (docs/api.md)");
          }
        }
      }
    }
  }

  // Ports the engine opens in one pod must not collide.
  {
    std::vector<std::pair<int64_t, std::string>> ports;
    if (e.kv_events && e.kv_events->enabled.value_or(true)) {
      ports.emplace_back(e.kv_events->port.value_or(kDefaultKvEventsPort), "kvEvents.port");
    }
    if (e.kv_transfer && e.kv_transfer->bootstrap_port) ports.emplace_back(*e.kv_transfer->bootstrap_port, "kvTransfer.bootstrapPort");
    if (e.sglang && e.sglang->port) ports.emplace_back(*e.sglang->port, "sglang.port");
    for (size_t i = 0; i < ports.size(); ++i) {
      for (size_t j = i + 1; j < ports.size(); ++j) {
        if (ports[i].first == ports[j].first) {
          error(path + "." + ports[j].second, "port " + std::to_string(ports[j].first) + " is also " +
                                                  ports[i].second + " in this pod");
        }
      }
    }
  }

  // vLLM-only settings under SGLang (the SGLang renderer has no place for them).
  if (sglang) {
    for (auto [set, name] : {std::pair{e.expert_parallel.has_value(), "expertParallel"},
                             {e.attention.has_value(), "attention"},
                             {e.prefix_caching.has_value(), "prefixCaching"},
                             {e.parsers && e.parsers->tokenizer_mode.has_value(), "parsers.tokenizerMode"},
                             {e.speculative && e.speculative->num_speculative_tokens.has_value(),
                              "speculative.numSpeculativeTokens"},
                             {e.ep_weight_filter.has_value(), "epWeightFilter"},
                             {e.compilation.has_value(), "compilation"},
                             {e.max_num_batched_tokens.has_value(), "maxNumBatchedTokens"},
                             {e.max_cudagraph_capture_size.has_value(), "maxCudagraphCaptureSize"},
                             {e.long_prefill_token_threshold.has_value(), "longPrefillTokenThreshold"},
                             {e.prefix_cache_retention_interval.has_value(), "prefixCacheRetentionInterval"},
                             {e.async_scheduling.has_value(), "asyncScheduling"},
                             {e.scheduler_reserve_full_isl.has_value(), "schedulerReserveFullIsl"},
                             {e.numa_bind.has_value(), "numaBind"},
                             {e.language_model_only.has_value(), "languageModelOnly"},
                             {e.gpu_memory_utilization.has_value(), "gpuMemoryUtilization"}}) {
      if (set) {
        std::string_view n = name;
        std::string hint = n == "gpuMemoryUtilization" ? " (memFractionStatic)"
                           : n == "expertParallel" ? " (expertParallelSize is SGLang's ep-size)"
                           : n == "speculative.numSpeculativeTokens" ? " (numDraftTokens / numSteps / dsparkBlockSize)"
                                                                     : "";
        error(path + "." + name, "is a vLLM setting; with SGLang use the sglang block" + hint + " or sglang.extraConfig");
      }
    }
  }

  // Escape hatch must not fight the typed flags.
  for (size_t i = 0; i < e.extra_args.size(); ++i) {
    const std::string& arg = e.extra_args[i];
    std::string ap = path + ".extraArgs[" + std::to_string(i) + "]";
    if (arg.empty()) {
      error(ap, "must not be empty");
      continue;
    }
    std::string_view flag = arg;
    if (size_t eq = flag.find('='); eq != std::string_view::npos) flag = flag.substr(0, eq);
    for (const auto& m : kVllmFlags) {
      if (flag != m.flag || !m.set(e)) continue;
      if (m.field == "type") {
        if (c.type == ComponentType::kPrefill || c.type == ComponentType::kDecode) {
          error(ap, "--disaggregation-mode comes from the component type; remove it");
        }
      } else if (m.field == "sglang") {
        if (sglang) error(ap, "--config is rendered from the engine block; use sglang.extraConfig for more keys");
      } else {
        error(ap, std::string(flag) + " duplicates engine." + std::string(m.field) + "; remove one of them");
      }
    }
  }
}

void Checker::check_router(size_t, const Component&, const Router& r, const std::string& path) {
  if (r.block_size && !(syntax::is_power_of_two(*r.block_size) && *r.block_size <= 1024)) {
    error(path + ".blockSize", "must be a power of two 1..1024, got " + std::to_string(*r.block_size));
  }
  range(path + ".decodeActiveRequestWeight", r.decode_active_request_weight, 0, 10000);
  if (r.temperature && !(*r.temperature >= 0 && *r.temperature <= 100)) error(path + ".temperature", "must be 0..100");
  range(path + ".httpPort", r.http_port, 1024, 65535);
  if (r.http_port && *r.http_port == kSystemPort) error(path + ".httpPort", "9090 is the system port");
  if (r.http_host && (r.http_host->empty() || !syntax::is_image_ref(*r.http_host))) error(path + ".httpHost", "must be an address");
  bool kv_mode = !r.mode || *r.mode == RouterMode::kKv;
  if (!kv_mode) {
    if (r.kv_events.value_or(false)) error(path + ".kvEvents", "KV events feed the KV router: set mode: kv");
    if (r.decode_active_request_weight) error(path + ".decodeActiveRequestWeight", "applies to the KV router: set mode: kv");
    if (r.reset_states.value_or(false)) error(path + ".resetStates", "applies to the KV router: set mode: kv");
  }
  if (r.conditional_disaggregation) {
    const auto& cd = *r.conditional_disaggregation;
    std::string cp = path + ".conditionalDisaggregation";
    one_of(cp + ".policy", cd.policy, {"isl_bounding"});
    range(cp + ".effIslThreshold", cd.eff_isl_threshold, 0, 16 * 1024 * 1024);
    if (cd.eff_isl_ratio_threshold && !(*cd.eff_isl_ratio_threshold >= 0 && *cd.eff_isl_ratio_threshold <= 1)) {
      error(cp + ".effIslRatioThreshold", "must be in [0, 1]");
    }
    if (cd.decode_busy_threshold && !(*cd.decode_busy_threshold >= 0 && *cd.decode_busy_threshold <= 1)) {
      error(cp + ".decodeBusyThreshold", "must be in [0, 1]");
    }
    bool thresholds = cd.eff_isl_threshold || cd.eff_isl_ratio_threshold || cd.decode_busy_threshold;
    if (thresholds && !cd.policy) error(cp + ".policy", "required with thresholds (e.g. isl_bounding)");
  }
  for (size_t i = 0; i < r.extra_args.size(); ++i) {
    const std::string& a = r.extra_args[i];
    std::string ap = path + ".extraArgs[" + std::to_string(i) + "]";
    if (a.empty()) error(ap, "must not be empty");
    std::string_view flag = a;
    if (size_t eq = flag.find('='); eq != std::string_view::npos) flag = flag.substr(0, eq);
    if ((flag == "--router-mode" && r.mode) || (flag == "--router-kv-events" && r.kv_events) ||
        (flag == "--kv-cache-block-size" && r.block_size) || (flag == "--router-reset-states" && r.reset_states) ||
        (flag == "--http-port" && r.http_port) || (flag == "--http-host" && r.http_host) ||
        (flag == "--router-temperature" && r.temperature) || (flag == "--trust-remote-code" && r.trust_remote_code) ||
        (flag == "--router-conditional-disagg" && r.conditional_disaggregation)) {
      error(ap, std::string(flag) + " duplicates a router field; remove one of them");
    }
  }
}

}  // namespace dgd::api::detail
