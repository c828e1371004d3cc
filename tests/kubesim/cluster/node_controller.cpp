#include "kubesim/cluster/node_controller.h"

#include <algorithm>

namespace kubesim::cluster {

std::string node_internal_ip(size_t index) {
  size_t n = index + 10;
  return "10.0." + std::to_string((n / 250) % 256) + "." + std::to_string(n % 250 + 1);
}

bool complete_node_status(Json& node, size_t index, TimePoint now) {
  Json before = node.contains("status") ? node["status"] : Json();
  Json& st = node["status"];
  if (!st.is_object()) st = Json::object();
  const Json defaults = {{"cpu", "32"}, {"memory", "256Gi"}, {"ephemeral-storage", "1Ti"}, {"pods", "110"}};
  bool has_alloc = st.contains("allocatable") && st["allocatable"].is_object();
  bool has_cap = st.contains("capacity") && st["capacity"].is_object();
  if (!has_alloc && !has_cap) st["allocatable"] = defaults;
  if (!has_alloc && has_cap) st["allocatable"] = st["capacity"];
  if (!has_cap) st["capacity"] = st["allocatable"];

  std::string ts = format_time(now);
  Json& conds = st["conditions"];
  if (!conds.is_array()) conds = Json::array();
  auto ensure = [&](const char* type, const char* status, const char* reason, const char* message) {
    if (find_condition(conds, type)) return;
    conds.push_back({{"type", type}, {"status", status}, {"reason", reason}, {"message", message},
                     {"lastHeartbeatTime", ts}, {"lastTransitionTime", ts}});
  };
  ensure("MemoryPressure", "False", "KubeletHasSufficientMemory", "kubelet has sufficient memory available");
  ensure("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure");
  ensure("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available");
  ensure("Ready", "True", "KubeletReady", "kubelet is posting ready status");

  if (!st.contains("addresses") || !st["addresses"].is_array() || st["addresses"].empty())
    st["addresses"] = Json::array({{{"type", "InternalIP"}, {"address", node_internal_ip(index)}},
                                   {{"type", "Hostname"}, {"address", name_of(node)}}});
  std::string arch = str_at(at_path(node, {"metadata", "labels"}), {"kubernetes.io/arch"}, "amd64");
  if (!st.contains("nodeInfo") || !st["nodeInfo"].is_object()) {
    std::string id = std::to_string(fnv32a(name_of(node)));
    st["nodeInfo"] = {{"architecture", arch},
                      {"operatingSystem", "linux"},
                      {"osImage", "Ubuntu 22.04.5 LTS"},
                      {"kernelVersion", arch == "arm64" ? "6.8.0-1021-nvidia-64k" : "6.8.0-1021-nvidia"},
                      {"containerRuntimeVersion", "containerd://1.7.24"},
                      {"kubeletVersion", "v1.32.0"},
                      {"kubeProxyVersion", "v1.32.0"},
                      {"machineID", id},
                      {"systemUUID", id},
                      {"bootID", id}};
  }
  if (!st.contains("daemonEndpoints")) st["daemonEndpoints"] = {{"kubeletEndpoint", {{"Port", 10250}}}};
  return before != st;
}

Writes NodeController::sync(const Snapshot& snap, const Env& env) const {
  Writes out;
  std::vector<std::string> names;
  for (const auto& n : snap.nodes) names.push_back(name_of(n));
  std::sort(names.begin(), names.end());
  for (const auto& n : snap.nodes) {
    size_t index = std::lower_bound(names.begin(), names.end(), name_of(n)) - names.begin();
    Json copy = n;
    if (complete_node_status(copy, index, env.now))
      out.push_back(Write::update_status("v1", "nodes", std::move(copy), "node status"));
  }
  return out;
}

}  // namespace kubesim::cluster
