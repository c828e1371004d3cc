// One list of the model's JSON fields per struct, shared by parsing, serialization and
// model_field_paths(): adding a field here is the only edit the three need.
//
// describe(v, s) calls, for each field of s, v(name, member) — or v.passthrough(extra)
// for the struct's bag of unmodelled upstream fields, or v.quantity(name, member) for a
// resource quantity held as a string (JSON may give it as an integer, as Kubernetes allows). Visitors overload operator() per
// member type.
#pragma once

#include "dgd/api/dgd.h"

namespace dgd::api::detail {

template <class V> void describe(V& v, EnvVar& s) {
  v("name", s.name);
  v("value", s.value);
  v("valueFrom", s.value_from);
}
template <class V> void describe(V& v, SecretKeyRef& s) {
  v("name", s.name);
  v("key", s.key);
}
template <class V> void describe(V& v, ObjectMeta& s) {
  v("name", s.name);
  v("namespace", s.namespace_);
  v("labels", s.labels);
  v("annotations", s.annotations);
  v("generation", s.generation);
  v.passthrough(s.extra);
}
template <class V> void describe(V& v, ModelCacheCreate& s) {
  v.quantity("size", s.size);
  v("storageClassName", s.storage_class_name);
  v("accessMode", s.access_mode);
}
template <class V> void describe(V& v, ModelCache& s) {
  v("claimName", s.claim_name);
  v("mountPath", s.mount_path);
  v("readOnly", s.read_only);
  v("create", s.create);
  v("keepOnDelete", s.keep_on_delete);
}
template <class V> void describe(V& v, ModelDownload& s) {
  v("enabled", s.enabled);
  v("tokenSecretRef", s.token_secret_ref);
  v("image", s.image);
  v("highPerformance", s.high_performance);
  v("packages", s.packages);
  v("resources", s.resources);
}
template <class V> void describe(V& v, Model& s) {
  v("id", s.id);
  v("servedName", s.served_name);
  v("revision", s.revision);
  v("cache", s.cache);
  v("download", s.download);
}
template <class V> void describe(V& v, PcieMapEntry& s) {
  v("gpu", s.gpu);
  v("nic", s.nic);
}
template <class V> void describe(V& v, Rdma& s) {
  v("resource", s.resource);
  v("perWorker", s.per_worker);
  v("nicSelection", s.nic_selection);
  v("pcieMap", s.pcie_map);
}
template <class V> void describe(V& v, NvLink& s) {
  v("computeDomain", s.compute_domain);
  v("sameClique", s.same_clique);
}
template <class V> void describe(V& v, Placement& s) {
  v("gpu", s.gpu);
  v("rdma", s.rdma);
  v("nvlink", s.nvlink);
  v("separatePrefillDecode", s.separate_prefill_decode);
  v("nodeSelector", s.node_selector);
  v("tolerations", s.tolerations);
}
template <class V> void describe(V& v, Eplb& s) {
  v("enabled", s.enabled);
  v("communicator", s.communicator);
}
template <class V> void describe(V& v, Attention& s) {
  v("backend", s.backend);
  v("indexerKvDtype", s.indexer_kv_dtype);
  v("indexerSparseLogits", s.indexer_sparse_logits);
  v("useFp4IndexerCache", s.use_fp4_indexer_cache);
}
template <class V> void describe(V& v, Compilation& s) {
  v("cudagraphMode", s.cudagraph_mode);
  v("customOps", s.custom_ops);
}
template <class V> void describe(V& v, Speculative& s) {
  v("enabled", s.enabled);
  v("method", s.method);
  v("numSpeculativeTokens", s.num_speculative_tokens);
  v("draftSampleMethod", s.draft_sample_method);
  v("rejectionSampleMethod", s.rejection_sample_method);
  v("adaptiveVerification", s.adaptive_verification);
  v("draftModel", s.draft_model);
  v("numSteps", s.num_steps);
  v("eagleTopk", s.eagle_topk);
  v("numDraftTokens", s.num_draft_tokens);
  v("dsparkBlockSize", s.dspark_block_size);
}
template <class V> void describe(V& v, Parsers& s) {
  v("tokenizerMode", s.tokenizer_mode);
  v("reasoningParser", s.reasoning_parser);
  v("toolCallParser", s.tool_call_parser);
  v("dynReasoningParser", s.dyn_reasoning_parser);
  v("dynToolCallParser", s.dyn_tool_call_parser);
  v("dynEnableStructuralTag", s.dyn_enable_structural_tag);
}
template <class V> void describe(V& v, KvEvents& s) {
  v("enabled", s.enabled);
  v("publisher", s.publisher);
  v("topic", s.topic);
  v("port", s.port);
  v("enableKvCacheEvents", s.enable_kv_cache_events);
}
template <class V> void describe(V& v, KvTransfer& s) {
  v("connector", s.connector);
  v("role", s.role);
  v("bufferDevice", s.buffer_device);
  v("backends", s.backends);
  v("numThreads", s.num_threads);
  v("transferBackend", s.transfer_backend);
  v("bootstrapPort", s.bootstrap_port);
}
template <class V> void describe(V& v, SglangSettings& s) {
  v("memFractionStatic", s.mem_fraction_static);
  v("chunkedPrefillSize", s.chunked_prefill_size);
  v("maxPrefillTokens", s.max_prefill_tokens);
  v("loadBalanceMethod", s.load_balance_method);
  v("prefillRoundRobinBalance", s.prefill_round_robin_balance);
  v("watchdogTimeout", s.watchdog_timeout);
  v("enableMetrics", s.enable_metrics);
  v("host", s.host);
  v("port", s.port);
  v("cudaGraphMaxBsDecode", s.cuda_graph_max_bs_decode);
  v("cudaGraphBs", s.cuda_graph_bs);
  v("extraConfig", s.extra_config);
}
template <class V> void describe(V& v, Engine& s) {
  v("tensorParallelSize", s.tensor_parallel_size);
  v("dataParallelSize", s.data_parallel_size);
  v("pipelineParallelSize", s.pipeline_parallel_size);
  v("expertParallel", s.expert_parallel);
  v("expertParallelSize", s.expert_parallel_size);
  v("eplb", s.eplb);
  v("epWeightFilter", s.ep_weight_filter);
  v("moeBackend", s.moe_backend);
  v("kvCacheDtype", s.kv_cache_dtype);
  v("attention", s.attention);
  v("compilation", s.compilation);
  v("speculative", s.speculative);
  v("maxModelLen", s.max_model_len);
  v("maxNumSeqs", s.max_num_seqs);
  v("maxNumBatchedTokens", s.max_num_batched_tokens);
  v("gpuMemoryUtilization", s.gpu_memory_utilization);
  v("blockSize", s.block_size);
  v("maxCudagraphCaptureSize", s.max_cudagraph_capture_size);
  v("longPrefillTokenThreshold", s.long_prefill_token_threshold);
  v("prefixCacheRetentionInterval", s.prefix_cache_retention_interval);
  v("prefixCaching", s.prefix_caching);
  v("asyncScheduling", s.async_scheduling);
  v("schedulerReserveFullIsl", s.scheduler_reserve_full_isl);
  v("flashinferAutotune", s.flashinfer_autotune);
  v("trustRemoteCode", s.trust_remote_code);
  v("numaBind", s.numa_bind);
  v("languageModelOnly", s.language_model_only);
  v("parsers", s.parsers);
  v("kvEvents", s.kv_events);
  v("kvTransfer", s.kv_transfer);
  v("sglang", s.sglang);
  v("extraArgs", s.extra_args);
}
template <class V> void describe(V& v, ConditionalDisaggregation& s) {
  v("enabled", s.enabled);
  v("policy", s.policy);
  v("effIslThreshold", s.eff_isl_threshold);
  v("effIslRatioThreshold", s.eff_isl_ratio_threshold);
  v("decodeBusyThreshold", s.decode_busy_threshold);
}
template <class V> void describe(V& v, Router& s) {
  v("mode", s.mode);
  v("kvEvents", s.kv_events);
  v("blockSize", s.block_size);
  v("resetStates", s.reset_states);
  v("decodeActiveRequestWeight", s.decode_active_request_weight);
  v("temperature", s.temperature);
  v("conditionalDisaggregation", s.conditional_disaggregation);
  v("trustRemoteCode", s.trust_remote_code);
  v("httpHost", s.http_host);
  v("httpPort", s.http_port);
  v("extraArgs", s.extra_args);
}
template <class V> void describe(V& v, Component& s) {
  v("name", s.name);
  v("type", s.type);
  v("replicas", s.replicas);
  v.quantity("sharedMemorySize", s.shared_memory_size);
  v("podTemplate", s.pod_template);
  v("env", s.env);
  v("engine", s.engine);
  v("router", s.router);
  v.passthrough(s.extra);
}
template <class V> void describe(V& v, SmokeTest& s) {
  v("enabled", s.enabled);
  v("maxTokens", s.max_tokens);
  v("timeoutSeconds", s.timeout_seconds);
  v("prompt", s.prompt);
}
template <class V> void describe(V& v, Spec& s) {
  v("recipe", s.recipe);
  v("backendFramework", s.backend_framework);
  v("env", s.env);
  v("annotations", s.annotations);
  v("labels", s.labels);
  v("model", s.model);
  v("placement", s.placement);
  v("smokeTest", s.smoke_test);
  v("components", s.components);
  v.passthrough(s.extra);
}
template <class V> void describe(V& v, Dgd& s) {
  v("apiVersion", s.api_version);
  v("kind", s.kind);
  v("metadata", s.metadata);
  v("spec", s.spec);
  v("status", s.status);
}

}  // namespace dgd::api::detail
