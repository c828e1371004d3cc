// Upstream v1beta1 component fields this operator implements outside the typed blocks,
// read from a component's verbatim `extra` (dgd.h): compilationCache,
// globalDynamoNamespace and scalingAdapter, with the defaults upstream's operator applies. validate.h
// reports a malformed value; these accessors then return nothing. Pure, immutable.
#pragma once

#include <optional>
#include <string>

#include "dgd/api/dgd.h"

namespace dgd::api {

// The Dynamo namespace of a component with globalDynamoNamespace: true.
inline constexpr const char* kGlobalDynamoNamespace = "dynamo";
// vLLM's compilation cache mount when compilationCache.mountPath is unset (upstream's
// DefaultVLLMCacheMountPoint); SGLang and TensorRT-LLM have no default.
inline constexpr const char* kDefaultVllmCacheMountPath = "/root/.cache/vllm";

// spec.backendFramework, else what the components' main containers run (python3 -m
// dynamo.vllm / dynamo.sglang / dynamo.trtllm), as upstream detects it; nullopt when
// neither says.
std::optional<BackendFramework> detected_framework(const Dgd& dgd);

struct CompilationCache {
  std::string pvc_name;     // the PVC mounted writable into container main
  std::string mount_path;   // where; VLLM_CACHE_ROOT points here for vLLM
};

// components[].compilationCache with its default mount path; nullopt when unset, malformed
// or without a mount path for the framework.
std::optional<CompilationCache> compilation_cache(const Dgd& dgd, const Component& c);

// components[].globalDynamoNamespace is true.
bool uses_global_dynamo_namespace(const Component& c);

// components[].scalingAdapter is set (upstream v1beta1: present, even as {}, opts in): its
// DynamoGraphDeploymentScalingAdapter owns the component's replicas.
bool has_scaling_adapter(const Component& c);

}  // namespace dgd::api
