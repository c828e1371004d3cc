// kube-sim RBAC: ServiceAccount tokens (the TokenRequest API that
// `kubectl create token` and kubelets use).
//
// request() answers POST /api/v1/namespaces/<ns>/serviceaccounts/<name>/token: it
// issues a JWT-shaped bearer token for user "system:serviceaccount:<ns>:<name>"
// with groups system:serviceaccounts, system:serviceaccounts:<ns> and
// system:authenticated. The token is opaque to clients (claims as the real server
// writes them, signature random) and kept in memory only: it is valid until
// spec.expirationSeconds (default 3600, minimum 600) pass, its ServiceAccount (or
// the Pod/Secret/Node in spec.boundObjectRef) is deleted or replaced (uid changes),
// or the server restarts. A token requested for other spec.audiences than the API
// server's ("https://kubernetes.default.svc.cluster.local") does not authenticate
// against it, as on a real cluster. Thread-safe.
#pragma once

#include "kubesim/http_types.h"
#include "kubesim/store.h"

#include <nlohmann/json.hpp>

#include <chrono>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kubesim::rbac {

extern const char* const kApiAudience;

// The request body as JSON: `kubectl create token` sends the TokenRequest as
// protobuf (Content-Type application/vnd.kubernetes.protobuf, decoded by parse_body);
// JSON and YAML bodies are parsed as such; an empty body is {}. Throws ApiError 400
// on a malformed body.
nlohmann::json token_request_body(const std::string& body, const std::string& content_type);

class ServiceAccountTokens {
 public:
  explicit ServiceAccountTokens(Store& store);

  // `body`: an authentication.k8s.io/v1 TokenRequest (null or {} = defaults). Returns
  // the TokenRequest with status.token and status.expirationTimestamp. Throws
  // ApiError: 404 when the ServiceAccount or bound object is missing, 422 on a bad
  // expirationSeconds or boundObjectRef, 409 when boundObjectRef.uid is stale.
  nlohmann::json request(const std::string& ns, const std::string& name, const nlohmann::json& body);
  // The identity behind a token issued here while it is valid; nullopt otherwise
  // (not ours, expired, wrong audience, ServiceAccount or bound object gone).
  std::optional<Identity> authenticate(const std::string& token) const;

 private:
  struct Issued {
    std::string ns, name, uid;  // the ServiceAccount
    std::vector<std::string> audiences;
    std::chrono::system_clock::time_point expires;
    std::string bound_kind, bound_name, bound_uid;  // optional bound object
  };
  bool still_exists(const std::string& kind, const std::string& ns, const std::string& name,
                    const std::string& uid) const;

  Store& store_;
  mutable std::mutex mu_;
  std::map<std::string, Issued> tokens_;
};

}  // namespace kubesim::rbac
