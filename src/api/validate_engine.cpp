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

bool isBlackwellOnly(GpuProduct g) { return g == GpuProduct::kH200; }

// A vLLM flag the renderer emits from a typed field, and whether that field is set.
struct ManagedFlag {
  std::string_view flag;
  std::string_view field;
  bool (*set)(const Engine&);
};

#define DGD_FLAG(flag, field, expr) ManagedFlag{flag, field, [](const Engine& e) -> bool { return (expr); }}
const ManagedFlag kVllmFlags[] = {
    DGD_FLAG("--tensor-parallel-size", "tensorParallelSize", e.tensorParallelSize.has_value()),
    DGD_FLAG("-tp", "tensorParallelSize", e.tensorParallelSize.has_value()),
    DGD_FLAG("--data-parallel-size", "dataParallelSize", e.dataParallelSize.has_value()),
    DGD_FLAG("-dp", "dataParallelSize", e.dataParallelSize.has_value()),
    DGD_FLAG("--pipeline-parallel-size", "pipelineParallelSize", e.pipelineParallelSize.has_value()),
    DGD_FLAG("--enable-expert-parallel", "expertParallel", e.expertParallel.has_value()),
    DGD_FLAG("--enable-eplb", "eplb", e.eplb.has_value()),
    DGD_FLAG("--eplb-config", "eplb", e.eplb.has_value()),
    DGD_FLAG("--enable-ep-weight-filter", "epWeightFilter", e.epWeightFilter.has_value()),
    DGD_FLAG("--moe-backend", "moeBackend", e.moeBackend.has_value()),
    DGD_FLAG("--kv-cache-dtype", "kvCacheDtype", e.kvCacheDtype.has_value()),
    DGD_FLAG("--attention-config", "attention", e.attention.has_value()),
    DGD_FLAG("--attention-backend", "attention", e.attention.has_value()),
    DGD_FLAG("--compilation-config", "compilation", e.compilation.has_value()),
    DGD_FLAG("--speculative-config", "speculative", e.speculative.has_value()),
    DGD_FLAG("--max-model-len", "maxModelLen", e.maxModelLen.has_value()),
    DGD_FLAG("--max-num-seqs", "maxNumSeqs", e.maxNumSeqs.has_value()),
    DGD_FLAG("--max-num-batched-tokens", "maxNumBatchedTokens", e.maxNumBatchedTokens.has_value()),
    DGD_FLAG("--gpu-memory-utilization", "gpuMemoryUtilization", e.gpuMemoryUtilization.has_value()),
    DGD_FLAG("--block-size", "blockSize", e.blockSize.has_value()),
    DGD_FLAG("--max-cudagraph-capture-size", "maxCudagraphCaptureSize", e.maxCudagraphCaptureSize.has_value()),
    DGD_FLAG("--long-prefill-token-threshold", "longPrefillTokenThreshold", e.longPrefillTokenThreshold.has_value()),
    DGD_FLAG("--prefix-cache-retention-interval", "prefixCacheRetentionInterval",
             e.prefixCacheRetentionInterval.has_value()),
    DGD_FLAG("--enable-prefix-caching", "prefixCaching", e.prefixCaching.has_value()),
    DGD_FLAG("--no-enable-prefix-caching", "prefixCaching", e.prefixCaching.has_value()),
    DGD_FLAG("--no-async-scheduling", "asyncScheduling", e.asyncScheduling.has_value()),
    DGD_FLAG("--no-scheduler-reserve-full-isl", "schedulerReserveFullIsl", e.schedulerReserveFullIsl.has_value()),
    DGD_FLAG("--no-enable-flashinfer-autotune", "flashinferAutotune", e.flashinferAutotune.has_value()),
    DGD_FLAG("--trust-remote-code", "trustRemoteCode", e.trustRemoteCode.has_value()),
    DGD_FLAG("--numa-bind", "numaBind", e.numaBind.has_value()),
    DGD_FLAG("--language-model-only", "languageModelOnly", e.languageModelOnly.has_value()),
    DGD_FLAG("--tokenizer-mode", "parsers.tokenizerMode", e.parsers && e.parsers->tokenizerMode),
    DGD_FLAG("--reasoning-parser", "parsers.reasoningParser", e.parsers && e.parsers->reasoningParser),
    DGD_FLAG("--tool-call-parser", "parsers.toolCallParser", e.parsers && e.parsers->toolCallParser),
    DGD_FLAG("--dyn-reasoning-parser", "parsers.dynReasoningParser", e.parsers && e.parsers->dynReasoningParser),
    DGD_FLAG("--dyn-tool-call-parser", "parsers.dynToolCallParser", e.parsers && e.parsers->dynToolCallParser),
    DGD_FLAG("--kv-events-config", "kvEvents", e.kvEvents.has_value()),
    DGD_FLAG("--kv-transfer-config", "kvTransfer", e.kvTransfer.has_value()),
    DGD_FLAG("--disaggregation-mode", "type", ((void)e, true)),
    DGD_FLAG("--config", "sglang", ((void)e, true)),
};
#undef DGD_FLAG

}  // namespace

void Checker::checkEngine(size_t, const Component& c, const Engine& e, const std::string& path) {
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
  range(path + ".tensorParallelSize", e.tensorParallelSize, 1, 64);
  range(path + ".dataParallelSize", e.dataParallelSize, 1, 1024);
  range(path + ".pipelineParallelSize", e.pipelineParallelSize, 1, 64);
  range(path + ".expertParallelSize", e.expertParallelSize, 1, 1024);
  if (e.expertParallelSize && vllm) {
    error(path + ".expertParallelSize", "vLLM derives the expert-parallel size from TP×DP: use expertParallel: true");
  }
  if (sglang && e.expertParallelSize && e.tensorParallelSize && *e.expertParallelSize >= 1 &&
      *e.tensorParallelSize >= 1 && *e.tensorParallelSize % *e.expertParallelSize != 0) {
    error(path + ".expertParallelSize", "must divide tensorParallelSize (" + std::to_string(*e.tensorParallelSize) + ")");
  }
  // GPUs per pod must match the parallel layout, or the engine fails after loading the model.
  if (auto gpus = mainContainerGpus(c.podTemplate)) {
    int64_t tp = e.tensorParallelSize.value_or(1), dp = e.dataParallelSize.value_or(1),
            pp = e.pipelineParallelSize.value_or(1);
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
    bool ep = e.expertParallel.value_or(false) || e.expertParallelSize.value_or(1) > 1;
    if (on && !ep && (complete_ || e.expertParallel.has_value())) {
      error(path + ".eplb.enabled", "expert-parallel load balancing needs expert parallelism: set expertParallel: true");
    }
    if (e.eplb->communicator && !syntax::isLowerIdentifier(*e.eplb->communicator)) {
      error(path + ".eplb.communicator", "\"" + shown(*e.eplb->communicator) + "\" is not a communicator name (e.g. torch_gloo)");
    }
  }

  // Kernels.
  oneOf(path + ".moeBackend", e.moeBackend, kMoeBackends);
  oneOf(path + ".kvCacheDtype", e.kvCacheDtype, kKvCacheDtypes);
  const auto g = gpu();
  const std::string onGpu = g ? std::string(" (placement.gpu is ") + toString(*g) + ")" : "";
  if (g && isBlackwellOnly(*g)) {
    if (e.moeBackend && contains(kBlackwellMoe, *e.moeBackend)) {
      error(path + ".moeBackend", "\"" + *e.moeBackend + "\" needs Blackwell (B200/GB200)" + onGpu +
                                      "; H200 recipes use flashinfer_cutlass or marlin");
    }
    if (e.kvCacheDtype && contains(kBlackwellKvDtypes, *e.kvCacheDtype)) {
      error(path + ".kvCacheDtype", "\"" + *e.kvCacheDtype + "\" needs Blackwell (B200/GB200)" + onGpu + "; use fp8_ds_mla");
    }
  }
  if (e.attention) {
    const Attention& a = *e.attention;
    if (a.backend && !syntax::isUpperIdentifier(*a.backend)) {
      error(path + ".attention.backend", "\"" + shown(*a.backend) + "\" is not an attention backend name (e.g. FLASHINFER_MLA)");
    }
    oneOf(path + ".attention.indexerKvDtype", a.indexerKvDtype, kIndexerKvDtypes);
    if (g && isBlackwellOnly(*g)) {
      if (a.backend && contains(kBlackwellAttention, *a.backend)) {
        error(path + ".attention.backend", "\"" + *a.backend + "\" needs Blackwell (B200/GB200)" + onGpu +
                                               "; leave it unset on H200 (runtime default) or use FLASHINFER_MLA");
      }
      if (a.indexerKvDtype == "mxfp4") {
        error(path + ".attention.indexerKvDtype", "the MXFP4 sparse indexer needs Blackwell (B200/GB200)" + onGpu);
      }
      if (a.useFp4IndexerCache.value_or(false)) {
        error(path + ".attention.useFp4IndexerCache", "the FP4 indexer cache needs Blackwell (B200/GB200)" + onGpu);
      }
    }
  }
  if (e.compilation) {
    oneOf(path + ".compilation.cudagraphMode", e.compilation->cudagraphMode, kCudagraphModes);
    for (size_t i = 0; i < e.compilation->customOps.size(); ++i) {
      const std::string& op = e.compilation->customOps[i];
      std::string_view name = op;
      if (!name.empty() && (name[0] == '+' || name[0] == '-')) name.remove_prefix(1);
      if (!syntax::isLowerIdentifier(name)) {
        error(path + ".compilation.customOps[" + std::to_string(i) + "]", "\"" + shown(op) + "\" is not a custom-op name (all, none, +op, -op)");
      }
    }
  }

  // Speculative decoding.
  if (e.speculative) {
    const Speculative& s = *e.speculative;
    std::string sp = path + ".speculative";
    oneOf(sp + ".method", s.method, kSpecMethods);
    range(sp + ".numSpeculativeTokens", s.numSpeculativeTokens, 1, 8);
    oneOf(sp + ".draftSampleMethod", s.draftSampleMethod, {"probabilistic", "greedy"});
    if (s.rejectionSampleMethod && !syntax::isLowerIdentifier(*s.rejectionSampleMethod)) {
      error(sp + ".rejectionSampleMethod", "\"" + shown(*s.rejectionSampleMethod) + "\" is not a method name (e.g. block)");
    }
    range(sp + ".numSteps", s.numSteps, 1, 16);
    range(sp + ".eagleTopk", s.eagleTopk, 1, 16);
    range(sp + ".numDraftTokens", s.numDraftTokens, 1, 64);
    range(sp + ".dsparkBlockSize", s.dsparkBlockSize, 1, 64);
    if (s.draftModel && !syntax::isModelId(*s.draftModel) && !syntax::isCleanAbsolutePath(*s.draftModel)) {
      error(sp + ".draftModel", "must be a model id or an absolute path");
    }
    bool on = s.enabled.value_or(true);
    if (on && complete_ && !s.method) error(sp + ".method", "required: dspark, mtp, eagle, ...");
    if (on && s.method == "dspark" && s.adaptiveVerification.value_or(false)) {
      error(sp + ".adaptiveVerification", "must stay false with DSpark: adaptive verification causes illegal memory "
                                          "accesses in this runtime");
    }
    if (vllm) {
      if (on && complete_ && s.method && !s.numSpeculativeTokens && *s.method != "ngram") {
        error(sp + ".numSpeculativeTokens", "required by vLLM's speculative config");
      }
      for (auto [set, name] : {std::pair{s.numSteps.has_value(), "numSteps"}, {s.eagleTopk.has_value(), "eagleTopk"},
                               {s.numDraftTokens.has_value(), "numDraftTokens"},
                               {s.dsparkBlockSize.has_value(), "dsparkBlockSize"}}) {
        if (set) error(sp + "." + name, "is an SGLang setting; vLLM uses numSpeculativeTokens");
      }
    }
    if (sglang) {
      for (auto [set, name] : {std::pair{s.draftSampleMethod.has_value(), "draftSampleMethod"},
                               {s.rejectionSampleMethod.has_value(), "rejectionSampleMethod"},
                               {s.adaptiveVerification.has_value(), "adaptiveVerification"}}) {
        if (set) error(sp + "." + name, "is a vLLM setting with no SGLang equivalent");
      }
    }
  }

  // Limits.
  range(path + ".maxModelLen", e.maxModelLen, 1, 16 * 1024 * 1024);
  range(path + ".maxNumSeqs", e.maxNumSeqs, 1, 65536);
  range(path + ".maxNumBatchedTokens", e.maxNumBatchedTokens, 1, 16 * 1024 * 1024);
  if (e.gpuMemoryUtilization && !(*e.gpuMemoryUtilization > 0 && *e.gpuMemoryUtilization <= 1)) {
    error(path + ".gpuMemoryUtilization", "must be in (0, 1], got " + std::to_string(*e.gpuMemoryUtilization));
  }
  if (e.blockSize && !(syntax::isPowerOfTwo(*e.blockSize) && *e.blockSize <= 1024)) {
    error(path + ".blockSize", "must be a power of two 1..1024, got " + std::to_string(*e.blockSize));
  }
  range(path + ".maxCudagraphCaptureSize", e.maxCudagraphCaptureSize, 1, 8192);
  range(path + ".longPrefillTokenThreshold", e.longPrefillTokenThreshold, 1, 16 * 1024 * 1024);
  range(path + ".prefixCacheRetentionInterval", e.prefixCacheRetentionInterval, 1, 1 << 30);
  if (vllm && e.maxNumBatchedTokens && e.maxNumSeqs && *e.maxNumBatchedTokens < *e.maxNumSeqs) {
    error(path + ".maxNumBatchedTokens", "must be at least maxNumSeqs (" + std::to_string(*e.maxNumSeqs) + "): vLLM refuses to start otherwise");
  }
  if (vllm && e.longPrefillTokenThreshold && e.maxNumBatchedTokens && *e.longPrefillTokenThreshold > *e.maxNumBatchedTokens) {
    error(path + ".longPrefillTokenThreshold", "must not exceed maxNumBatchedTokens (" + std::to_string(*e.maxNumBatchedTokens) + ")");
  }

  // Parsers.
  if (e.parsers) {
    const Parsers& p = *e.parsers;
    std::string pp = path + ".parsers";
    for (auto [v, name] : {std::pair{&p.tokenizerMode, "tokenizerMode"}, {&p.reasoningParser, "reasoningParser"},
                           {&p.toolCallParser, "toolCallParser"}, {&p.dynReasoningParser, "dynReasoningParser"},
                           {&p.dynToolCallParser, "dynToolCallParser"}}) {
      if (*v && !syntax::isLowerIdentifier(**v)) {
        error(pp + "." + name, "\"" + shown(**v) + "\" is not a parser name (e.g. deepseek_v41)");
      }
    }
    if (p.toolCallParser && p.dynToolCallParser) {
      error(pp + ".toolCallParser", "do not combine the engine tool-call parser with the Dynamo one "
                                    "(dynToolCallParser): tool calls would be parsed twice; keep dynToolCallParser");
    }
  }

  // KV events.
  if (e.kvEvents) {
    const KvEvents& k = *e.kvEvents;
    std::string kp = path + ".kvEvents";
    oneOf(kp + ".publisher", k.publisher, {"zmq"});
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
  if (e.kvTransfer) {
    const KvTransfer& t = *e.kvTransfer;
    std::string tp = path + ".kvTransfer";
    oneOf(tp + ".connector", t.connector, kConnectors);
    oneOf(tp + ".role", t.role, {"kv_both", "kv_producer", "kv_consumer"});
    oneOf(tp + ".bufferDevice", t.bufferDevice, {"cuda", "cpu"});
    for (size_t i = 0; i < t.backends.size(); ++i) {
      if (!contains(kNixlBackends, t.backends[i])) {
        error(tp + ".backends[" + std::to_string(i) + "]",
              "unsupported NIXL backend \"" + shown(t.backends[i]) + "\": must be one of: " + listOf(kNixlBackends));
      }
    }
    std::set<std::string> uniq(t.backends.begin(), t.backends.end());
    if (uniq.size() != t.backends.size()) error(tp + ".backends", "lists a backend twice");
    range(tp + ".numThreads", t.numThreads, 1, 64);
    oneOf(tp + ".transferBackend", t.transferBackend, {"mooncake", "nixl", "ascend", "mori", "fake"});
    range(tp + ".bootstrapPort", t.bootstrapPort, 1024, 65535);
    if (t.bootstrapPort && (*t.bootstrapPort == kSystemPort || *t.bootstrapPort == kFrontendHttpPort)) {
      error(tp + ".bootstrapPort", "port " + std::to_string(*t.bootstrapPort) + " is reserved");
    }
    if ((!t.backends.empty() || t.numThreads) && t.connector && *t.connector != "NixlConnector") {
      error(tp + ".backends", "backends and numThreads configure NixlConnector only");
    }
    if (vllm) {
      if (complete_ && !t.connector && (t.role || t.bufferDevice || !t.backends.empty() || t.numThreads)) {
        error(tp + ".connector", "required: without a connector vLLM gets no --kv-transfer-config");
      }
      if (t.transferBackend) error(tp + ".transferBackend", "is an SGLang setting; vLLM uses connector");
      if (t.bootstrapPort) error(tp + ".bootstrapPort", "is an SGLang setting");
    }
    if (sglang) {
      for (auto [set, name] : {std::pair{t.connector.has_value(), "connector"}, {t.role.has_value(), "role"},
                               {t.bufferDevice.has_value(), "bufferDevice"}, {!t.backends.empty(), "backends"},
                               {t.numThreads.has_value(), "numThreads"}}) {
        if (set) error(tp + "." + name, "is a vLLM setting; SGLang uses transferBackend (e.g. mooncake)");
      }
    }
  }

  // SGLang-only block.
  if (e.sglang) {
    const SglangSettings& s = *e.sglang;
    std::string sp = path + ".sglang";
    if (vllm) error(sp, "SGLang settings with backendFramework vllm");
    if (s.memFractionStatic && !(*s.memFractionStatic > 0 && *s.memFractionStatic < 1)) {
      error(sp + ".memFractionStatic", "must be in (0, 1)");
    }
    if (s.chunkedPrefillSize && *s.chunkedPrefillSize != -1 && (*s.chunkedPrefillSize < 1 || *s.chunkedPrefillSize > 16 * 1024 * 1024)) {
      error(sp + ".chunkedPrefillSize", "must be -1 (disabled) or 1..16777216");
    }
    range(sp + ".maxPrefillTokens", s.maxPrefillTokens, 1, 16 * 1024 * 1024);
    oneOf(sp + ".loadBalanceMethod", s.loadBalanceMethod,
          {"round_robin", "shortest_queue", "minimum_tokens", "follow_bootstrap_room", "total_requests", "total_tokens"});
    range(sp + ".watchdogTimeout", s.watchdogTimeout, 1, 7 * 24 * 3600);
    if (s.host && (s.host->empty() || !syntax::isImageRef(*s.host))) error(sp + ".host", "must be an address");
    range(sp + ".port", s.port, 1024, 65535);
    if (s.port && (*s.port == kSystemPort || *s.port == kFrontendHttpPort)) error(sp + ".port", "port is reserved");
    range(sp + ".cudaGraphMaxBsDecode", s.cudaGraphMaxBsDecode, 1, 4096);
    for (size_t i = 0; i < s.cudaGraphBs.size(); ++i) {
      if (s.cudaGraphBs[i] < 1 || s.cudaGraphBs[i] > 4096) {
        error(sp + ".cudaGraphBs[" + std::to_string(i) + "]", "must be 1..4096");
      }
    }
    if (!s.extraConfig.is_null()) {
      if (!s.extraConfig.is_object()) {
        error(sp + ".extraConfig", "must be a map of SGLang config keys");
      } else {
        for (auto it = s.extraConfig.begin(); it != s.extraConfig.end(); ++it) {
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
    if (e.kvEvents && e.kvEvents->enabled.value_or(true)) {
      ports.emplace_back(e.kvEvents->port.value_or(kDefaultKvEventsPort), "kvEvents.port");
    }
    if (e.kvTransfer && e.kvTransfer->bootstrapPort) ports.emplace_back(*e.kvTransfer->bootstrapPort, "kvTransfer.bootstrapPort");
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
    for (auto [set, name] : {std::pair{e.expertParallel.has_value(), "expertParallel"},
                             {e.attention.has_value(), "attention"},
                             {e.prefixCaching.has_value(), "prefixCaching"},
                             {e.parsers && e.parsers->tokenizerMode.has_value(), "parsers.tokenizerMode"},
                             {e.speculative && e.speculative->numSpeculativeTokens.has_value(),
                              "speculative.numSpeculativeTokens"},
                             {e.epWeightFilter.has_value(), "epWeightFilter"},
                             {e.compilation.has_value(), "compilation"},
                             {e.maxNumBatchedTokens.has_value(), "maxNumBatchedTokens"},
                             {e.maxCudagraphCaptureSize.has_value(), "maxCudagraphCaptureSize"},
                             {e.longPrefillTokenThreshold.has_value(), "longPrefillTokenThreshold"},
                             {e.prefixCacheRetentionInterval.has_value(), "prefixCacheRetentionInterval"},
                             {e.asyncScheduling.has_value(), "asyncScheduling"},
                             {e.schedulerReserveFullIsl.has_value(), "schedulerReserveFullIsl"},
                             {e.numaBind.has_value(), "numaBind"},
                             {e.languageModelOnly.has_value(), "languageModelOnly"},
                             {e.gpuMemoryUtilization.has_value(), "gpuMemoryUtilization"}}) {
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
  for (size_t i = 0; i < e.extraArgs.size(); ++i) {
    const std::string& arg = e.extraArgs[i];
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

void Checker::checkRouter(size_t, const Component&, const Router& r, const std::string& path) {
  if (r.blockSize && !(syntax::isPowerOfTwo(*r.blockSize) && *r.blockSize <= 1024)) {
    error(path + ".blockSize", "must be a power of two 1..1024, got " + std::to_string(*r.blockSize));
  }
  range(path + ".decodeActiveRequestWeight", r.decodeActiveRequestWeight, 0, 10000);
  if (r.temperature && !(*r.temperature >= 0 && *r.temperature <= 100)) error(path + ".temperature", "must be 0..100");
  range(path + ".httpPort", r.httpPort, 1024, 65535);
  if (r.httpPort && *r.httpPort == kSystemPort) error(path + ".httpPort", "9090 is the system port");
  if (r.httpHost && (r.httpHost->empty() || !syntax::isImageRef(*r.httpHost))) error(path + ".httpHost", "must be an address");
  bool kvMode = !r.mode || *r.mode == RouterMode::kKv;
  if (!kvMode) {
    if (r.kvEvents.value_or(false)) error(path + ".kvEvents", "KV events feed the KV router: set mode: kv");
    if (r.decodeActiveRequestWeight) error(path + ".decodeActiveRequestWeight", "applies to the KV router: set mode: kv");
    if (r.resetStates.value_or(false)) error(path + ".resetStates", "applies to the KV router: set mode: kv");
  }
  if (r.conditionalDisaggregation) {
    const auto& cd = *r.conditionalDisaggregation;
    std::string cp = path + ".conditionalDisaggregation";
    oneOf(cp + ".policy", cd.policy, {"isl_bounding"});
    range(cp + ".effIslThreshold", cd.effIslThreshold, 0, 16 * 1024 * 1024);
    if (cd.effIslRatioThreshold && !(*cd.effIslRatioThreshold >= 0 && *cd.effIslRatioThreshold <= 1)) {
      error(cp + ".effIslRatioThreshold", "must be in [0, 1]");
    }
    if (cd.decodeBusyThreshold && !(*cd.decodeBusyThreshold >= 0 && *cd.decodeBusyThreshold <= 1)) {
      error(cp + ".decodeBusyThreshold", "must be in [0, 1]");
    }
    bool thresholds = cd.effIslThreshold || cd.effIslRatioThreshold || cd.decodeBusyThreshold;
    if (thresholds && !cd.policy) error(cp + ".policy", "required with thresholds (e.g. isl_bounding)");
  }
  for (size_t i = 0; i < r.extraArgs.size(); ++i) {
    const std::string& a = r.extraArgs[i];
    std::string ap = path + ".extraArgs[" + std::to_string(i) + "]";
    if (a.empty()) error(ap, "must not be empty");
    std::string_view flag = a;
    if (size_t eq = flag.find('='); eq != std::string_view::npos) flag = flag.substr(0, eq);
    if ((flag == "--router-mode" && r.mode) || (flag == "--router-kv-events" && r.kvEvents) ||
        (flag == "--kv-cache-block-size" && r.blockSize) || (flag == "--router-reset-states" && r.resetStates) ||
        (flag == "--http-port" && r.httpPort) || (flag == "--http-host" && r.httpHost) ||
        (flag == "--router-temperature" && r.temperature) || (flag == "--trust-remote-code" && r.trustRemoteCode) ||
        (flag == "--router-conditional-disagg" && r.conditionalDisaggregation)) {
      error(ap, std::string(flag) + " duplicates a router field; remove one of them");
    }
  }
}

}  // namespace dgd::api::detail
