// kube-sim: the services/proxy subresource
// (GET/POST/PUT/PATCH/DELETE /api/v1/namespaces/{ns}/services/{name}[:port]/proxy/{path}),
// which kube-apiserver forwards to one endpoint of the Service. kube-sim has no pod
// network, so a test registers the backend of a Service (an HTTP URL, e.g. the OpenAI
// stand-in of tests/standin/) through POST /sim/v1/services/proxy or --service-proxy;
// the request is then forwarded there with its method, path, query, body and content
// type, and the backend's status, content type and body are returned unchanged.
//
// As kube-apiserver answers:
//  - the Service does not exist: 404 NotFound (services "x" not found);
//  - no backend registered (a Service without endpoints): 503 ServiceUnavailable,
//    'no endpoints available for service "x"';
//  - the backend refuses or resets the connection: 503 'error trying to reach service: ...'.
// Forwarding blocks the connection's thread (kube-sim runs one per connection); shutdown()
// cancels forwards in flight so the server stops promptly. Thread-safe.
#pragma once

#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "dgd/kube/cancel.h"
#include "kubesim/http_types.h"

namespace kubesim {

// "name" or "name:port" (port number or name; "" when absent), as in a proxy path.
std::pair<std::string, std::string> split_service_port(const std::string& name_port);

class ServiceProxy {
 public:
  // {"namespace", "name", "url", "port" (optional: only requests for this port)}.
  // Throws ApiError 400 on a malformed body. Returns the stored entry.
  nlohmann::json set_backend(const nlohmann::json& body);
  // {"namespace", "name"}: removes the backend (the Service has no endpoints again).
  nlohmann::json remove_backend(const nlohmann::json& body);
  nlohmann::json list() const;  // {"items": [...]}

  // Forwards to the backend of Service ns/name_port. `path` is what follows /proxy
  // ("/v1/chat/completions", "" for the root), `query` the raw query string.
  // The caller has checked the Service exists. Throws ApiError 503 as described above.
  HttpResponse forward(const std::string& ns, const std::string& name_port, const std::string& path,
                       const std::string& query, const HttpRequest& req);

  // The URL registered for Service ns/name when its port `number` (named `name`, or "")
  // may use it: what services/proxy forwards to for that Service port.
  std::optional<std::string> backend_url(const std::string& ns, const std::string& name, int64_t number,
                                         const std::string& port_name) const;

  void shutdown() { stop_.cancel(); }

 private:
  struct Backend {
    std::string url;
    std::string port;
  };
  mutable std::mutex mu_;
  std::map<std::string, Backend> backends_;  // "ns/name" -> backend
  dgd::kube::CancelSource stop_;
};

}  // namespace kubesim
