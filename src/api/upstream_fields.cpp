// Upstream component fields outside the typed blocks (upstream_fields.h).
#include "dgd/api/upstream_fields.h"

namespace dgd::api {
namespace {

using nlohmann::json;

// The command and args of container main, joined by spaces.
std::string main_command_line(const Component& c) {
  if (!c.pod_template.is_object()) return "";
  auto spec = c.pod_template.find("spec");
  if (spec == c.pod_template.end() || !spec->is_object()) return "";
  auto containers = spec->find("containers");
  if (containers == spec->end() || !containers->is_array()) return "";
  std::string line;
  for (const auto& ctr : *containers) {
    if (!ctr.is_object() || ctr.value("name", json()) != "main") continue;
    for (const char* key : {"command", "args"}) {
      auto list = ctr.find(key);
      if (list == ctr.end() || !list->is_array()) continue;
      for (const auto& a : *list) {
        if (a.is_string()) line += a.get<std::string>() + " ";
      }
    }
  }
  return line;
}

}  // namespace

std::optional<BackendFramework> detected_framework(const Dgd& dgd) {
  if (dgd.spec.backend_framework) return dgd.spec.backend_framework;
  for (const auto& c : dgd.spec.components) {
    const std::string line = main_command_line(c);
    if (line.find("dynamo.vllm") != std::string::npos) return BackendFramework::kVllm;
    if (line.find("dynamo.sglang") != std::string::npos) return BackendFramework::kSglang;
    if (line.find("dynamo.trtllm") != std::string::npos) return BackendFramework::kTrtllm;
  }
  return std::nullopt;
}

std::optional<CompilationCache> compilation_cache(const Dgd& dgd, const Component& c) {
  auto it = c.extra.find("compilationCache");
  if (it == c.extra.end() || !it->is_object()) return std::nullopt;
  CompilationCache out;
  auto pvc = it->find("pvcName");
  if (pvc == it->end() || !pvc->is_string() || pvc->get<std::string>().empty()) return std::nullopt;
  out.pvc_name = pvc->get<std::string>();
  auto mount = it->find("mountPath");
  if (mount != it->end() && mount->is_string() && !mount->get<std::string>().empty()) {
    out.mount_path = mount->get<std::string>();
  } else if (detected_framework(dgd) == BackendFramework::kVllm) {
    out.mount_path = kDefaultVllmCacheMountPath;
  } else {
    return std::nullopt;
  }
  return out;
}

bool uses_global_dynamo_namespace(const Component& c) {
  auto it = c.extra.find("globalDynamoNamespace");
  return it != c.extra.end() && it->is_boolean() && it->get<bool>();
}

bool has_scaling_adapter(const Component& c) {
  auto it = c.extra.find("scalingAdapter");
  return it != c.extra.end() && it->is_object();
}

}  // namespace dgd::api
