#include "kubesim/faults.h"

#include "kubesim/api_error.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <iterator>

namespace kubesim {

using nlohmann::json;

namespace {

const char* kVerbs[] = {"get", "list", "watch", "create", "update", "patch", "delete", "deletecollection"};

json to_json(const Fault& f) {
  json j = {{"id", f.id}, {"code", f.code}, {"remaining", f.remaining}};
  if (f.retry_after_seconds > 0) j["retryAfterSeconds"] = f.retry_after_seconds;
  if (!f.message.empty()) j["message"] = f.message;
  if (!f.verb.empty()) j["verb"] = f.verb;
  if (!f.resource.empty()) j["resource"] = f.resource;
  if (!f.user_agent.empty()) j["userAgent"] = f.user_agent;
  return j;
}

// The Status kube-apiserver writes for `code` (apimachinery errors.New*).
ApiError status_error(const Fault& f, const std::string& verb, const std::string& resource,
                      const std::string& group, const std::string& ns, const std::string& name,
                      const std::string& user) {
  json details;
  if (f.retry_after_seconds > 0) details = {{"retryAfterSeconds", f.retry_after_seconds}};
  auto with = [&](std::string reason, std::string message) {
    return ApiError(f.code, std::move(reason), f.message.empty() ? message : f.message, details);
  };
  const std::string qualified = ApiError::qualified(group, resource);
  switch (f.code) {
    case 429:  // the max-in-flight / APF filter
      return with("TooManyRequests", "Too many requests, please try again later.");
    case 503:
      return with("ServiceUnavailable", "the server is currently unable to handle the request");
    case 500:
      return with("InternalError", "Internal error occurred: injected fault");
    case 504:
      return with("Timeout", "the server was unable to return a response in the time allotted");
    case 403: {  // NewForbidden from the RBAC authorizer
      std::string who = user.empty() ? "system:anonymous" : user;
      std::string msg = (name.empty() ? qualified : qualified + " \"" + name + "\"") + " is forbidden: User \"" +
                        who + "\" cannot " + verb + " resource \"" + resource + "\" in API group \"" + group +
                        "\"" + (ns.empty() ? " at the cluster scope" : " in the namespace \"" + ns + "\"");
      json d = details.is_null() ? json::object() : details;
      d["name"] = name;
      d["group"] = group;
      d["kind"] = resource;
      return ApiError(403, "Forbidden", f.message.empty() ? msg : f.message, d);
    }
    default:
      return with("", f.message.empty() ? "injected fault " + std::to_string(f.code) : f.message);
  }
}

}  // namespace

json FaultSet::add(const json& body) {
  if (!body.is_object()) throw ApiError::bad_request("want a JSON object {\"code\": 429, \"count\": 1, ...}");
  Fault f;
  try {
    f.code = body.at("code").get<int>();
    f.remaining = body.value("count", int64_t{1});
    f.retry_after_seconds = body.value("retryAfterSeconds", 0);
    f.message = body.value("message", "");
    f.verb = body.value("verb", "");
    f.resource = body.value("resource", "");
    f.user_agent = body.value("userAgent", "");
  } catch (const json::exception& e) {
    throw ApiError::bad_request(std::string("faults: ") + e.what());
  }
  if (f.code < 400 || f.code > 599) throw ApiError::bad_request("faults: code must be 400..599");
  if (f.remaining < 1) throw ApiError::bad_request("faults: count must be >= 1");
  if (f.retry_after_seconds < 0) throw ApiError::bad_request("faults: retryAfterSeconds must be >= 0");
  if (!f.verb.empty() && std::find(std::begin(kVerbs), std::end(kVerbs), f.verb) == std::end(kVerbs))
    throw ApiError::bad_request("faults: unknown verb \"" + f.verb + "\"");
  std::lock_guard lock(mu_);
  f.id = ++next_id_;
  faults_.push_back(f);
  return to_json(f);
}

void FaultSet::clear() {
  std::lock_guard lock(mu_);
  faults_.clear();
}

json FaultSet::list() const {
  std::lock_guard lock(mu_);
  json items = json::array();
  for (const auto& f : faults_) items.push_back(to_json(f));
  return {{"items", items}};
}

std::optional<ApiError> FaultSet::take(const std::string& verb, const std::string& resource,
                                       const std::string& group, const std::string& ns, const std::string& name,
                                       const std::string& user_agent, const std::string& user) {
  std::lock_guard lock(mu_);
  for (auto it = faults_.begin(); it != faults_.end(); ++it) {
    if (!it->verb.empty() && it->verb != verb) continue;
    if (!it->resource.empty() && it->resource != resource) continue;
    if (!it->user_agent.empty() && user_agent.find(it->user_agent) == std::string::npos) continue;
    Fault f = *it;
    if (--it->remaining <= 0) faults_.erase(it);
    return status_error(f, verb, resource, group, ns, name, user);
  }
  return std::nullopt;
}

}  // namespace kubesim
