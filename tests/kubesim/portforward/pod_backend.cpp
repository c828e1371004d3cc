#include "kubesim/portforward/pod_backend.h"

namespace kubesim::portforward {

using nlohmann::json;

namespace {

bool selects(const json& service, const json& pod) {
  const json selector = service.value("/spec/selector"_json_pointer, json::object());
  if (!selector.is_object() || selector.empty()) return false;  // a Service without selector has no pods
  const json labels = pod.value("/metadata/labels"_json_pointer, json::object());
  if (!labels.is_object()) return false;
  for (const auto& [k, v] : selector.items())
    if (!labels.contains(k) || labels[k] != v) return false;
  return true;
}

// The container port a Service port's targetPort names on this pod (-1 if none).
int64_t target_port_on(const json& service_port, const json& pod) {
  const json target = service_port.value("targetPort", service_port.value("port", json()));
  if (target.is_number_integer()) return target.get<int64_t>();
  if (!target.is_string()) return -1;
  const std::string name = target.get<std::string>();
  for (const auto& c : pod.value("/spec/containers"_json_pointer, json::array()))
    for (const auto& p : c.value("ports", json::array()))
      if (p.is_object() && p.value("name", "") == name && p.value("containerPort", json()).is_number_integer())
        return p["containerPort"].get<int64_t>();
  return -1;
}

}  // namespace

std::optional<BackendAddress> address_of_url(const std::string& url) {
  const auto scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return std::nullopt;
  const std::string scheme = url.substr(0, scheme_end);
  std::string authority = url.substr(scheme_end + 3);
  authority = authority.substr(0, authority.find('/'));
  BackendAddress a;
  a.port = scheme == "https" ? "443" : "80";
  std::string::size_type colon;
  if (!authority.empty() && authority[0] == '[') {  // [ipv6]:port
    const auto close = authority.find(']');
    if (close == std::string::npos) return std::nullopt;
    a.host = authority.substr(1, close - 1);
    colon = authority.find(':', close);
  } else {
    colon = authority.find(':');
    a.host = authority.substr(0, colon);
  }
  if (colon != std::string::npos) a.port = authority.substr(colon + 1);
  if (a.host.empty() || a.port.empty()) return std::nullopt;
  return a;
}

std::optional<BackendAddress> pod_port_backend(const json& pod, int64_t port, const std::vector<json>& services,
                                               const ServiceProxy& proxy) {
  const std::string ns = pod.value("/metadata/namespace"_json_pointer, std::string());
  for (const json& service : services) {
    if (!selects(service, pod)) continue;
    const std::string name = service.value("/metadata/name"_json_pointer, std::string());
    for (const json& sp : service.value("/spec/ports"_json_pointer, json::array())) {
      if (!sp.is_object() || target_port_on(sp, pod) != port) continue;
      const json number = sp.value("port", json());
      if (!number.is_number_integer()) continue;
      if (auto url = proxy.backend_url(ns, name, number.get<int64_t>(), sp.value("name", std::string())))
        if (auto a = address_of_url(*url)) return a;
    }
  }
  return std::nullopt;
}

}  // namespace kubesim::portforward
