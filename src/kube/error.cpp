#include "dgd/kube/error.h"

#include <cstdlib>
#include <nlohmann/json.hpp>

namespace dgd::kube {

std::string_view to_string(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::kBadRequest: return "BadRequest";
    case ErrorKind::kUnauthorized: return "Unauthorized";
    case ErrorKind::kForbidden: return "Forbidden";
    case ErrorKind::kNotFound: return "NotFound";
    case ErrorKind::kMethodNotAllowed: return "MethodNotAllowed";
    case ErrorKind::kConflict: return "Conflict";
    case ErrorKind::kAlreadyExists: return "AlreadyExists";
    case ErrorKind::kGone: return "Gone";
    case ErrorKind::kUnsupportedMediaType: return "UnsupportedMediaType";
    case ErrorKind::kInvalid: return "Invalid";
    case ErrorKind::kTooManyRequests: return "TooManyRequests";
    case ErrorKind::kInternalError: return "InternalError";
    case ErrorKind::kServiceUnavailable: return "ServiceUnavailable";
    case ErrorKind::kServerTimeout: return "ServerTimeout";
    case ErrorKind::kOtherHttp: return "HttpError";
    case ErrorKind::kTimeout: return "Timeout";
    case ErrorKind::kTransport: return "Transport";
    case ErrorKind::kCanceled: return "Canceled";
    case ErrorKind::kDecode: return "Decode";
    case ErrorKind::kConfig: return "Config";
    case ErrorKind::kNotLeader: return "NotLeader";
  }
  return "Unknown";
}

std::string Error::to_string() const {
  std::string s = request.empty() ? std::string() : request + ": ";
  if (code != 0) s += std::to_string(code) + " ";
  s += reason.empty() ? std::string(kube::to_string(kind)) : reason;
  if (!message.empty()) s += ": " + message;
  for (const auto& c : causes) {
    s += "; ";
    if (!c.field.empty()) s += c.field + ": ";
    s += c.message.empty() ? c.reason : c.message;
  }
  return s;
}

ErrorKind kind_from_status(int code, std::string_view reason) {
  if (reason == "AlreadyExists") return ErrorKind::kAlreadyExists;
  if (reason == "Expired" || reason == "Gone") return ErrorKind::kGone;
  if (reason == "Invalid" && (code == 422 || code == 0)) return ErrorKind::kInvalid;
  switch (code) {
    case 400: return ErrorKind::kBadRequest;
    case 401: return ErrorKind::kUnauthorized;
    case 403: return ErrorKind::kForbidden;
    case 404: return ErrorKind::kNotFound;
    case 405: return ErrorKind::kMethodNotAllowed;
    case 409: return ErrorKind::kConflict;
    case 410: return ErrorKind::kGone;
    case 415: return ErrorKind::kUnsupportedMediaType;
    case 422: return ErrorKind::kInvalid;
    case 429: return ErrorKind::kTooManyRequests;
    case 500: return ErrorKind::kInternalError;
    case 502:
    case 503: return ErrorKind::kServiceUnavailable;
    case 504: return ErrorKind::kServerTimeout;
    default: break;
  }
  if (reason == "Timeout" || reason == "ServerTimeout") return ErrorKind::kServerTimeout;
  return ErrorKind::kOtherHttp;
}

namespace {

// o[key] when it is a string, else "". (json::value throws when the key holds another type,
// and the body comes from the server: a Status with "reason": 5 must not end the operator.)
std::string string_field(const nlohmann::json& o, const char* key) {
  auto it = o.find(key);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace

Error error_from_response(int code, std::string_view body, std::string_view retry_after_header,
                          std::string request) {
  Error e;
  e.code = code;
  e.request = std::move(request);
  auto j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_object() && string_field(j, "kind") == "Status") {
    e.reason = string_field(j, "reason");
    e.message = string_field(j, "message");
    if (auto d = j.find("details"); d != j.end() && d->is_object()) {
      if (auto cs = d->find("causes"); cs != d->end() && cs->is_array()) {
        for (const auto& c : *cs) {
          if (!c.is_object()) continue;
          e.causes.push_back({string_field(c, "reason"), string_field(c, "message"), string_field(c, "field")});
        }
      }
    }
    // A Status may carry its own code (e.g. watch ERROR events); prefer the HTTP one.
    if (e.code == 0 && j.contains("code") && j["code"].is_number_integer()) e.code = j["code"];
  } else {
    e.message = std::string(body.substr(0, 256));
  }
  e.kind = kind_from_status(e.code, e.reason);
  if (!retry_after_header.empty()) {
    char* end = nullptr;
    std::string v(retry_after_header);
    long secs = std::strtol(v.c_str(), &end, 10);
    if (end != v.c_str() && secs >= 0) e.retry_after = std::chrono::seconds(secs);
  }
  return e;
}

}  // namespace dgd::kube
