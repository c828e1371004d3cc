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
#include "kubesim/faults_chaos.h"
#include "kubesim/http_types.h"
#include "kubesim/rbac_authorizer.h"
#include "kubesim/rbac_tokens.h"
#include "kubesim/request_log.h"
#include "kubesim/resource_registry.h"
#include "kubesim/service_proxy.h"
#include "kubesim/store.h"

#include <atomic>
#include <chrono>
#include <functional>
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
  // Random faults (/sim/v1/chaos, --faults).
  ChaosFaults& chaos() { return chaos_; }
  // Ends every open watch stream (an outage or restart of the transport).
  void cut_streams() { store_.close_watches(); }
  // The transport's outage: refuse connections for `down`; `restart` also drops the
  // event history as a restarted server has none. False if one is in progress.
  using OutageHandler = std::function<bool(std::chrono::milliseconds down, bool restart)>;
  void set_outage_handler(OutageHandler h) { outage_ = std::move(h); }

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
  rbac::Authorizer authz_;              // RBAC (rbac_authorizer.h, rbac_escalation.h)
  rbac::ServiceAccountTokens sa_tokens_;  // TokenRequest (rbac_tokens.h)
  ServiceProxy service_proxy_;  // services/{name}/proxy, /sim/v1/services/proxy
  ChaosFaults chaos_;  // /sim/v1/chaos
  OutageHandler outage_;  // /sim/v1/outage, /sim/v1/restart
  std::atomic<bool> stopping_{false};
};

}  // namespace kubesim
