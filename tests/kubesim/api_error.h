// kube-sim: errors that become Kubernetes `Status` bodies.
//
// Every failure inside the simulator is thrown as an ApiError carrying the HTTP
// code, the machine-readable reason and the details the real API server puts
// into its Status (name, group, kind, causes). The HTTP layer turns it into the
// response body with to_status(); the in-process API lets it propagate.
#pragma once

#include <nlohmann/json.hpp>

#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kubesim {

class ApiError : public std::runtime_error {
 public:
  ApiError(int code, std::string reason, const std::string& message, nlohmann::json details = nullptr)
      : std::runtime_error(message), code_(code), reason_(std::move(reason)), details_(std::move(details)) {}

  int code() const { return code_; }
  const std::string& reason() const { return reason_; }
  const nlohmann::json& details() const { return details_; }

  // The Status object as the real server serializes it.
  nlohmann::json to_status() const {
    nlohmann::json s = {{"kind", "Status"}, {"apiVersion", "v1"}, {"metadata", nlohmann::json::object()},
                        {"status", "Failure"}, {"message", what()}, {"reason", reason_}, {"code", code_}};
    if (!details_.is_null()) s["details"] = details_;
    if (reason_.empty()) s.erase("reason");
    return s;
  }

  // Constructors for the common cases, worded as kube-apiserver words them.
  static ApiError not_found(const std::string& group, const std::string& resource, const std::string& name) {
    return ApiError(404, "NotFound", qualified(group, resource) + " \"" + name + "\" not found",
                    {{"name", name}, {"group", group}, {"kind", resource}});
  }
  static ApiError already_exists(const std::string& group, const std::string& resource, const std::string& name) {
    return ApiError(409, "AlreadyExists", qualified(group, resource) + " \"" + name + "\" already exists",
                    {{"name", name}, {"group", group}, {"kind", resource}});
  }
  static ApiError conflict(const std::string& group, const std::string& resource, const std::string& name,
                           const std::string& why) {
    return ApiError(409, "Conflict",
                    "Operation cannot be fulfilled on " + qualified(group, resource) + " \"" + name + "\": " + why,
                    {{"name", name}, {"group", group}, {"kind", resource}});
  }
  static ApiError bad_request(const std::string& message) { return ApiError(400, "BadRequest", message); }
  static ApiError invalid(const std::string& group, const std::string& kind, const std::string& name,
                          const nlohmann::json& causes) {
    // field.ErrorList.ToAggregate: identical errors are said once, several are bracketed.
    std::string list;
    std::vector<std::string> said;
    for (const auto& c : causes) {
      std::string one = c.value("field", "") + ": " + c.value("message", "");
      if (std::find(said.begin(), said.end(), one) != said.end()) continue;
      list += (said.empty() ? "" : ", ") + one;
      said.push_back(std::move(one));
    }
    if (said.size() > 1) list = "[" + list + "]";
    std::string msg = kind + (group.empty() ? "" : "." + group) + " \"" + name + "\" is invalid: " + list;
    return ApiError(422, "Invalid", msg, {{"name", name}, {"group", group}, {"kind", kind}, {"causes", causes}});
  }
  // From a Status object built elsewhere (e.g. the patch library's conflict body).
  static ApiError from_status(const nlohmann::json& status) {
    return ApiError(status.value("code", 500), status.value("reason", ""), status.value("message", ""),
                    status.contains("details") ? status["details"] : nlohmann::json());
  }
  static std::string qualified(const std::string& group, const std::string& resource) {
    return group.empty() ? resource : resource + "." + group;
  }

 private:
  int code_;
  std::string reason_;
  nlohmann::json details_;
};

}  // namespace kubesim
