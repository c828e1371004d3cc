// One list of the model's JSON fields per struct, shared by parsing, serialization and
// modelFieldPaths(): adding a field here is the only edit the three need.
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
  v("valueFrom", s.valueFrom);
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
  v("storageClassName", s.storageClassName);
  v("accessMode", s.accessMode);
}
template <class V> void describe(V& v, ModelCache& s) {
  v("claimName", s.claimName);
  v("mountPath", s.mountPath);
  v("readOnly", s.readOnly);
  v("create", s.create);
  v("keepOnDelete", s.keepOnDelete);
}
template <class V> void describe(V& v, ModelDownload& s) {
  v("enabled", s.enabled);
  v("tokenSecretRef", s.tokenSecretRef);
  v("image", s.image);
  v("highPerformance", s.highPerformance);
  v("packages", s.packages);
  v("resources", s.resources);
}
template <class V> void describe(V& v, Model& s) {
  v("id", s.id);
  v("servedName", s.servedName);
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
  v("perWorker", s.perWorker);
  v("nicSelection", s.nicSelection);
  v("pcieMap", s.pcieMap);
}
template <class V> void describe(V& v, NvLink& s) {
  v("computeDomain", s.computeDomain);
  v("sameClique", s.sameClique);
}
template <class V> void describe(V& v, Placement& s) {
  v("gpu", s.gpu);
  v("rdma", s.rdma);
  v("nvlink", s.nvlink);
  v("separatePrefillDecode", s.separatePrefillDecode);
  v("nodeSelector", s.nodeSelector);
  v("tolerations", s.tolerations);
}
template <class V> void describe(V& v, Eplb& s) {
  v("enabled", s.enabled);
  v("communicator", s.communicator);
}
template <class V> void describe(V& v, Attention& s) {
  v("backend", s.backend);
  v("indexerKvDtype", s.indexerKvDtype);
  v("indexerSparseLogits", s.indexerSparseLogits);
  v("useFp4IndexerCache", s.useFp4IndexerCache);
}
template <class V> void describe(V& v, Compilation& s) {
  v("cudagraphMode", s.cudagraphMode);
  v("customOps", s.customOps);
}
template <class V> void describe(V& v, Speculative& s) {
  v("enabled", s.enabled);
  v("method", s.method);
  v("numSpeculativeTokens", s.numSpeculativeTokens);
  v("draftSampleMethod", s.draftSampleMethod);
  v("rejectionSampleMethod", s.rejectionSampleMethod);
  v("adaptiveVerification", s.adaptiveVerification);
  v("draftModel", s.draftModel);
  v("numSteps", s.numSteps);
  v("eagleTopk", s.eagleTopk);
  v("numDraftTokens", s.numDraftTokens);
  v("dsparkBlockSize", s.dsparkBlockSize);
}
template <class V> void describe(V& v, Parsers& s) {
  v("tokenizerMode", s.tokenizerMode);
  v("reasoningParser", s.reasoningParser);
  v("toolCallParser", s.toolCallParser);
  v("dynReasoningParser", s.dynReasoningParser);
  v("dynToolCallParser", s.dynToolCallParser);
  v("dynEnableStructuralTag", s.dynEnableStructuralTag);
}
template <class V> void describe(V& v, KvEvents& s) {
  v("enabled", s.enabled);
  v("publisher", s.publisher);
  v("topic", s.topic);
  v("port", s.port);
  v("enableKvCacheEvents", s.enableKvCacheEvents);
}
template <class V> void describe(V& v, KvTransfer& s) {
  v("connector", s.connector);
  v("role", s.role);
  v("bufferDevice", s.bufferDevice);
  v("backends", s.backends);
  v("numThreads", s.numThreads);
  v("transferBackend", s.transferBackend);
  v("bootstrapPort", s.bootstrapPort);
}
template <class V> void describe(V& v, SglangSettings& s) {
  v("memFractionStatic", s.memFractionStatic);
  v("chunkedPrefillSize", s.chunkedPrefillSize);
  v("maxPrefillTokens", s.maxPrefillTokens);
  v("loadBalanceMethod", s.loadBalanceMethod);
  v("prefillRoundRobinBalance", s.prefillRoundRobinBalance);
  v("watchdogTimeout", s.watchdogTimeout);
  v("enableMetrics", s.enableMetrics);
  v("host", s.host);
  v("port", s.port);
  v("cudaGraphMaxBsDecode", s.cudaGraphMaxBsDecode);
  v("cudaGraphBs", s.cudaGraphBs);
  v("extraConfig", s.extraConfig);
}
template <class V> void describe(V& v, Engine& s) {
  v("tensorParallelSize", s.tensorParallelSize);
  v("dataParallelSize", s.dataParallelSize);
  v("pipelineParallelSize", s.pipelineParallelSize);
  v("expertParallel", s.expertParallel);
  v("expertParallelSize", s.expertParallelSize);
  v("eplb", s.eplb);
  v("epWeightFilter", s.epWeightFilter);
  v("moeBackend", s.moeBackend);
  v("kvCacheDtype", s.kvCacheDtype);
  v("attention", s.attention);
  v("compilation", s.compilation);
  v("speculative", s.speculative);
  v("maxModelLen", s.maxModelLen);
  v("maxNumSeqs", s.maxNumSeqs);
  v("maxNumBatchedTokens", s.maxNumBatchedTokens);
  v("gpuMemoryUtilization", s.gpuMemoryUtilization);
  v("blockSize", s.blockSize);
  v("maxCudagraphCaptureSize", s.maxCudagraphCaptureSize);
  v("longPrefillTokenThreshold", s.longPrefillTokenThreshold);
  v("prefixCacheRetentionInterval", s.prefixCacheRetentionInterval);
  v("prefixCaching", s.prefixCaching);
  v("asyncScheduling", s.asyncScheduling);
  v("schedulerReserveFullIsl", s.schedulerReserveFullIsl);
  v("flashinferAutotune", s.flashinferAutotune);
  v("trustRemoteCode", s.trustRemoteCode);
  v("numaBind", s.numaBind);
  v("languageModelOnly", s.languageModelOnly);
  v("parsers", s.parsers);
  v("kvEvents", s.kvEvents);
  v("kvTransfer", s.kvTransfer);
  v("sglang", s.sglang);
  v("extraArgs", s.extraArgs);
}
template <class V> void describe(V& v, ConditionalDisaggregation& s) {
  v("enabled", s.enabled);
  v("policy", s.policy);
  v("effIslThreshold", s.effIslThreshold);
  v("effIslRatioThreshold", s.effIslRatioThreshold);
  v("decodeBusyThreshold", s.decodeBusyThreshold);
}
template <class V> void describe(V& v, Router& s) {
  v("mode", s.mode);
  v("kvEvents", s.kvEvents);
  v("blockSize", s.blockSize);
  v("resetStates", s.resetStates);
  v("decodeActiveRequestWeight", s.decodeActiveRequestWeight);
  v("temperature", s.temperature);
  v("conditionalDisaggregation", s.conditionalDisaggregation);
  v("trustRemoteCode", s.trustRemoteCode);
  v("httpHost", s.httpHost);
  v("httpPort", s.httpPort);
  v("extraArgs", s.extraArgs);
}
template <class V> void describe(V& v, Component& s) {
  v("name", s.name);
  v("type", s.type);
  v("replicas", s.replicas);
  v.quantity("sharedMemorySize", s.sharedMemorySize);
  v("podTemplate", s.podTemplate);
  v("env", s.env);
  v("engine", s.engine);
  v("router", s.router);
  v.passthrough(s.extra);
}
template <class V> void describe(V& v, SmokeTest& s) {
  v("enabled", s.enabled);
  v("maxTokens", s.maxTokens);
  v("timeoutSeconds", s.timeoutSeconds);
  v("prompt", s.prompt);
}
template <class V> void describe(V& v, Spec& s) {
  v("recipe", s.recipe);
  v("backendFramework", s.backendFramework);
  v("env", s.env);
  v("annotations", s.annotations);
  v("labels", s.labels);
  v("model", s.model);
  v("placement", s.placement);
  v("smokeTest", s.smokeTest);
  v("components", s.components);
  v.passthrough(s.extra);
}
template <class V> void describe(V& v, Dgd& s) {
  v("apiVersion", s.apiVersion);
  v("kind", s.kind);
  v("metadata", s.metadata);
  v("spec", s.spec);
  v("status", s.status);
}

}  // namespace dgd::api::detail
