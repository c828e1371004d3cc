// kube-sim: where a port of a pod leads. kube-sim runs no containers, so a pod's port
// reaches the backend registered for a Service (service_proxy.h) that selects the pod
// and has a port whose targetPort is that port (a number, or the name of one of the
// pod's container ports): the backend a services/proxy request for that Service port
// reaches. Pure function of its arguments.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "kubesim/service_proxy.h"

namespace kubesim::portforward {

struct BackendAddress {
  std::string host;
  std::string port;
};

// "http://host:port/..." -> host and port (80 or 443 when absent); nullopt otherwise.
std::optional<BackendAddress> address_of_url(const std::string& url);

// The backend for `port` of `pod`, given the Services of the pod's namespace.
std::optional<BackendAddress> pod_port_backend(const nlohmann::json& pod, int64_t port,
                                               const std::vector<nlohmann::json>& services, const ServiceProxy& proxy);

}  // namespace kubesim::portforward
