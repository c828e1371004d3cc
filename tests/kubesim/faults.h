// kube-sim: injected faults, set through /sim/v1/faults, so tests can show how a
// client handles an overloaded or refusing API server over real HTTP.
//
// A fault answers the next `count` matching resource requests with `code` and the
// Status body kube-apiserver writes for it (TooManyRequests, ServiceUnavailable,
// Forbidden, InternalError, ...), with Retry-After when `retryAfterSeconds` > 0.
// A request matches when every set selector matches (verb and resource exactly,
// userAgent as a substring). The first matching fault with budget left wins; a
// fault whose budget is spent is dropped. Admin, health and discovery requests
// are never faulted. Thread-safe.
//
// Fault's optional fields (fractions, latency, outages) default to off:
// an absent field injects nothing.
#pragma once

#include "kubesim/api_error.h"

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace kubesim {

struct Fault {
  uint64_t id = 0;
  // What to answer.
  int code = 0;                // 400..599
  int retry_after_seconds = 0; // > 0: Status details.retryAfterSeconds and Retry-After header
  std::string message;         // "" = the real server's wording for `code`
  // Budget: how many more requests get the fault.
  int64_t remaining = 1;
  // Which requests (empty = any).
  std::string verb;        // get list watch create update patch delete deletecollection
  std::string resource;    // plural, e.g. "configmaps"
  std::string user_agent;  // substring of the User-Agent header
};

class FaultSet {
 public:
  // Parses {"code", "count", "retryAfterSeconds", "verb", "resource", "userAgent", "message"};
  // throws ApiError 400 on a malformed body. Returns the stored fault as JSON.
  nlohmann::json add(const nlohmann::json& body);
  void clear();
  nlohmann::json list() const;  // {"items": [...]}
  // Takes one unit of the first matching fault's budget and returns the error to answer.
  std::optional<ApiError> take(const std::string& verb, const std::string& resource, const std::string& group,
                               const std::string& ns, const std::string& name, const std::string& user_agent,
                               const std::string& user);

 private:
  mutable std::mutex mu_;
  uint64_t next_id_ = 0;
  std::vector<Fault> faults_;
};

}  // namespace kubesim
