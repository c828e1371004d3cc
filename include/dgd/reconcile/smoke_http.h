// SmokeTransport: the one HTTP call of the smoke test (smoke.h), POST
// /v1/chat/completions to a graph's frontend, behind an interface so the diagnosis is
// tested without a network and the operator can choose how it reaches the frontend.
//
//  - url:       straight to a base URL (http://localhost:8000 after `kubectl
//               port-forward`, or http://<dgd>-frontend.<ns>.svc:8000 in the cluster).
//               TLS verification stays on (system trust store) for https URLs.
//  - apiserver-proxy: through the API server's service proxy,
//               POST /api/v1/namespaces/<ns>/services/<svc>:<port>/proxy/v1/chat/completions,
//               with the kubeconfig's credentials (needs RBAC services/proxy create).
// post() never throws; a transport failure is a SmokeExchange failure, and the latency
// is measured around the call. Implementations are thread-safe.
#pragma once

#include <chrono>
#include <memory>
#include <string>

#include "dgd/kube/cancel.h"
#include "dgd/reconcile/smoke.h"

namespace dgd::kube {
class RestClient;
}

namespace dgd::reconcile {

class SmokeTransport {
 public:
  virtual ~SmokeTransport() = default;
  // `timeout` bounds the wait for the answer (the idle timeout of the request).
  virtual SmokeExchange post(const std::string& body, std::chrono::milliseconds timeout,
                             const kube::CancelToken& cancel) = 0;
  // Where the request goes, for messages ("http://localhost:8000/v1/chat/completions").
  virtual std::string where() const = 0;
};

// The chat-completions URL for a user's --url: "http://h:8000", "http://h:8000/v1" and
// "http://h:8000/v1/chat/completions" all give the last. Empty when `url` is not http(s).
std::string chat_completions_url(const std::string& url);

// Straight to `base_url` (see chat_completions_url). Returns nullptr for a URL that is
// not http:// or https://.
std::unique_ptr<SmokeTransport> make_url_smoke_transport(const std::string& base_url);

// Through the API server's service proxy to <service>:<port> in `ns`.
std::unique_ptr<SmokeTransport> make_apiserver_proxy_smoke_transport(std::shared_ptr<kube::RestClient> client,
                                                                     std::string ns, std::string service, int port);

// The in-cluster URL of a frontend Service: http://<service>.<ns>.svc:<port>.
std::string service_dns_url(const std::string& ns, const std::string& service, int port);

}  // namespace dgd::reconcile
