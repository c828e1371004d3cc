// Upstream v1beta1 fields outside the typed blocks (kept verbatim in `extra`): each one is
// either implemented (compilationCache, globalDynamoNamespace, scalingAdapter, upstream_fields.h; restart,
// validate_restart.cpp) and checked here, or refused with what it is and what to do instead. Nothing upstream
// defines is accepted and then ignored.
#include <string>

#include "api/checker.h"
#include "api/syntax.h"
#include "dgd/api/upstream_fields.h"

namespace dgd::api::detail {
namespace {

using nlohmann::json;
using syntax::shown;

constexpr const char* kConvert = "convert the file with `dgdctl convert -f FILE` (or `kubectl dgd convert -f FILE`)";

// What one experimental feature is, for the refusal (spec-level and component-level).
std::string experimental_feature(const std::string& key) {
  if (key == "kvTransferPolicy") return "topology-aware prefill-to-decode KV-transfer routing";
  if (key == "componentGroups") return "components scaled together as one Grove PodCliqueScalingGroup";
  if (key == "gpuMemoryService") return "the GPU Memory Service (shared GPU memory through DRA)";
  if (key == "failover") return "active / standby engine failover";
  if (key == "checkpoint") return "engine checkpoint / restore";
  if (key == "grove") return "Grove-specific rendering";
  return "an upstream experimental feature";
}

}  // namespace

void Checker::check_upstream_spec_field(const std::string& key, const json& value) {
  const std::string p = "spec." + shown(key);
  if (key == "services" || key == "envs" || key == "pvcs") {
    error(p, "v1alpha1 field: " + std::string(kConvert));
  } else if (key == "priorityClassName") {
    error(p, "applies to Grove PodCliqueSets only; dgd-operator renders Deployments: set "
             "podTemplate.spec.priorityClassName on each component instead");
  } else if (key == "topologyConstraint") {
    error(p, "Grove topology-aware placement is not supported by dgd-operator (it renders Deployments): "
             "remove it and use spec.placement (nodeSelector, nvlink.sameClique) or podTemplate affinity");
  } else if (key == "providerOverride") {
    error(p, "overrides Grove's PodCliqueSet, which dgd-operator does not render: remove it");
  } else if (key == "experimental") {
    if (!value.is_object() || value.empty()) return error(p, "experimental upstream features are not supported: remove it");
    for (auto it = value.begin(); it != value.end(); ++it) {
      error(p + "." + shown(it.key()), "experimental feature " + shown(it.key()) + " (" +
                                           experimental_feature(it.key()) +
                                           ") is not supported by dgd-operator: remove it");
    }
  } else if (key == "restart") {
    check_restart(value);
  } else {
    error(p, "unknown field");
  }
}

void Checker::check_upstream_component_field(size_t ci, const Component& c, const std::string& key, const json& value) {
  const std::string path = "spec.components[" + std::to_string(ci) + "]";
  const std::string p = path + "." + shown(key);
  if (key == "compilationCache") {
    if (!value.is_object()) return error(p, "must be an object {pvcName, mountPath}");
    for (auto it = value.begin(); it != value.end(); ++it) {
      if (it.key() != "pvcName" && it.key() != "mountPath") error(p + "." + shown(it.key()), "unknown field");
    }
    auto pvc = value.find("pvcName");
    if (pvc == value.end() || !pvc->is_string() || pvc->get<std::string>().empty()) {
      error(p + ".pvcName", "required: the PersistentVolumeClaim that holds the compilation cache");
    } else if (!syntax::is_dns1123_subdomain(pvc->get<std::string>())) {
      error(p + ".pvcName", "\"" + shown(pvc->get<std::string>()) + "\" is not a valid PersistentVolumeClaim name");
    }
    auto mount = value.find("mountPath");
    if (mount != value.end() && !mount->is_null()) {
      if (!mount->is_string() || !syntax::is_clean_absolute_path(mount->get<std::string>())) {
        error(p + ".mountPath", "must be a clean absolute path");
      }
    } else if (detected_framework(dgd_) != BackendFramework::kVllm) {
      const auto fw = detected_framework(dgd_);
      error(p + ".mountPath", std::string("required: only vLLM has a default compilation cache path (") +
                                  kDefaultVllmCacheMountPath + "); backend framework is " +
                                  (fw ? to_string(*fw) : "not known (set spec.backendFramework)"));
    }
    if (c.type && !is_worker_type(*c.type)) {
      error(p, "a compilation cache serves an engine: set it on a worker, prefill or decode component");
    }
  } else if (key == "globalDynamoNamespace") {
    if (!value.is_boolean()) error(p, "must be a boolean");
  } else if (key == "minAvailable") {
    error(p, "minAvailable is the gang-scheduling minimum of Grove's PodCliques; dgd-operator renders "
             "Deployments, which have none: remove it (replicas sets the pod count)");
  } else if (key == "runtimeVersionOverride") {
    error(p, "selects which defaults upstream's operator injects for a Dynamo runtime version; dgd-operator "
             "injects one set for every runtime version: remove it");
  } else if (key == "modelRef") {
    error(p, "modelRef (a headless Service per base model, for LoRA and DynamoModel discovery) is not supported "
             "by dgd-operator: remove it; the frontend discovers the workers through their component Service");
  } else if (key == "multinode") {
    error(p, "multinode components (one replica across several nodes) are not supported by dgd-operator, which "
             "runs one pod per replica: remove multinode and fit the engine in one node (parallelism within its "
             "GPUs)");
  } else if (key == "roles") {
    error(p, "roles (the leader / worker pods of a multinode component) are not supported by dgd-operator, "
             "which runs one pod per replica: remove them");
  } else if (key == "scalingAdapter") {
    // Upstream v1beta1's ScalingAdapter has no fields: present means opted in.
    if (!value.is_object()) return error(p, "must be an object: scalingAdapter: {}");
    for (auto it = value.begin(); it != value.end(); ++it) {
      error(p + "." + shown(it.key()), it.key() == "enabled"
                                           ? "v1alpha1 field: in v1beta1 scalingAdapter: {} opts in; remove it to opt out"
                                           : "unknown field");
    }
  } else if (key == "eppConfig") {
    error(p, "configures the Gateway API endpoint picker (type epp), which dgd-operator does not deploy: remove "
             "it and route through the frontend component");
  } else if (key == "frontendSidecar") {
    if (!value.is_string()) return error(p, "must be a string: the name of a podTemplate container");
    error(p, "a frontend run in container \"" + shown(value.get<std::string>()) +
                 "\" beside the engine is not supported by dgd-operator: move it into a component of type frontend");
  } else if (key == "dynamoSidecar") {
    if (!value.is_string()) return error(p, "must be a string: the name of a podTemplate init container");
    error(p, "the Dynamo runtime in restartable init container \"" + shown(value.get<std::string>()) +
                 "\" is not supported by dgd-operator: run the runtime in container main");
  } else if (key == "experimental") {
    if (!value.is_object() || value.empty()) return error(p, "experimental upstream features are not supported: remove it");
    for (auto it = value.begin(); it != value.end(); ++it) {
      error(p + "." + shown(it.key()), "experimental feature " + shown(it.key()) + " (" +
                                           experimental_feature(it.key()) +
                                           ") is not supported by dgd-operator: remove it");
    }
  } else if (key == "topologyConstraint" || key == "providerOverride") {
    error(p, "applies to Grove only; dgd-operator renders Deployments: remove it");
  } else if (key == "componentType" || key == "subComponentType" || key == "envs" || key == "resources" ||
             key == "extraPodSpec" || key == "volumeMounts" || key == "sharedMemory" || key == "envFromSecret" ||
             key == "extraPodMetadata" || key == "livenessProbe" || key == "readinessProbe") {
    error(p, "v1alpha1 field: " + std::string(kConvert));
  } else {
    error(p, "unknown field");
  }
}

}  // namespace dgd::api::detail
