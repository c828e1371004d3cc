// kube-sim: the Kubernetes REST API on top of the Store, independent of the
// HTTP library: routing of /api, /apis, discovery, OpenAPI stubs, CRUD, list,
// watch streams, patches, subresources (status, scale), deletion, the admin
// endpoints under /sim/v1, authentication and the request log.
//
// handle() is called on the connection's own thread and may block for the
// length of a watch; shutdown() ends every stream promptly.
#pragma once

#include "kubesim/auth.h"
#include "kubesim/faults.h"
#include "kubesim/http_types.h"
#include "kubesim/rbac_authorizer.h"
#include "kubesim/rbac_tokens.h"
#include "kubesim/request_log.h"
#include "kubesim/resource_registry.h"
#include "kubesim/service_proxy.h"
#include "kubesim/store.h"

#include <atomic>
#include <chrono>
#include <string>

namespace kubesim {

struct ApiServerOptions {
  bool require_auth = false;
  std::chrono::milliseconds bookmark_interval{5000};
  size_t watch_cut_after = 0;  // --watch-cut-after: end each watch after N events
  size_t max_body_bytes = 3 * 1024 * 1024;
  std::string git_version = "v1.32.4-kube-sim";
  // --authorization-mode (rbac_authorizer.h): by default only ServiceAccount users are checked.
  rbac::Mode authorization_mode = rbac::Mode::ServiceAccounts;
};

class ApiServer {
 public:
  ApiServer(Store& store, TokenAuthenticator& tokens, RequestLog& log, ApiServerOptions opts);
  void handle(const HttpRequest& req, ResponseWriter& out);
  void shutdown();
  bool stopping() const { return stopping_.load(); }

 private:
  struct Call;  // one parsed request
  void serve_resource(Call& c, ResponseWriter& out);
  void serve_watch(Call& c, ResponseWriter& out);
  bool serve_discovery(Call& c, ResponseWriter& out);
  void serve_admin(Call& c, ResponseWriter& out);

  Store& store_;
  ResourceRegistry& registry_;
  TokenAuthenticator& tokens_;
  RequestLog& log_;
  ApiServerOptions opts_;
  FaultSet faults_;  // /sim/v1/faults
  ServiceProxy service_proxy_;  // services/{name}/proxy, /sim/v1/services/proxy
  rbac::Authorizer authz_;              // RBAC (rbac_authorizer.h, rbac_escalation.h)
  rbac::ServiceAccountTokens sa_tokens_;  // TokenRequest (rbac_tokens.h)
  std::atomic<bool> stopping_{false};
};

}  // namespace kubesim
