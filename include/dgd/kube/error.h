// Errors of the Kubernetes client as values: an Error says what failed (the request),
// why (kind, HTTP code, the server's Status reason/message/causes) and how to retry.
// Result<T> holds either a value or an Error. Immutable values; safe to copy across threads.
#pragma once
#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace dgd::kube {

// One case per failure the caller must tell apart: the API server's status codes and
// reasons that call for a different reaction (retry, relist, refetch, report), and the
// client-side failures (timeout, transport, cancel, decode, config).
enum class ErrorKind {
  kBadRequest,            // 400
  kUnauthorized,          // 401: credentials missing, wrong or expired
  kForbidden,             // 403: RBAC; never retried
  kNotFound,              // 404
  kMethodNotAllowed,      // 405
  kConflict,              // 409 Conflict: stale resourceVersion or SSA field conflict
  kAlreadyExists,         // 409 AlreadyExists
  kGone,                  // 410 Gone / reason Expired: resourceVersion too old, relist
  kUnsupportedMediaType,  // 415
  kInvalid,               // 422 with causes
  kTooManyRequests,       // 429
  kInternalError,         // 500
  kServiceUnavailable,    // 502/503
  kServerTimeout,         // 504 or reason Timeout/ServerTimeout
  kOtherHttp,             // any other non-2xx
  kTimeout,               // client-side: no byte within the request timeout
  kTransport,             // connect refused, TLS handshake or verification failure, reset
  kCanceled,              // the caller's CancelToken fired
  kDecode,                // the server sent something that is not the expected JSON
  kConfig,                // kubeconfig / in-cluster / credential plugin problem
  kNotLeader,             // a write was refused locally: leadership is lost (leader_election.h)
};

std::string_view to_string(ErrorKind kind);

// One entry of Status.details.causes (field path of an Invalid object, SSA conflicts).
struct StatusCause {
  std::string reason;
  std::string message;
  std::string field;
};

struct Error {
  ErrorKind kind = ErrorKind::kOtherHttp;
  int code = 0;                 // HTTP status; 0 when no response was received
  std::string reason;           // Status.reason, e.g. "AlreadyExists"
  std::string message;          // Status.message or the transport's message
  std::vector<StatusCause> causes;
  std::optional<std::chrono::seconds> retry_after;  // from the Retry-After header
  std::string request;          // "GET /api/v1/namespaces/x/configmaps/y": what failed

  // "GET /api/... : 404 NotFound: configmaps \"y\" not found" (causes appended).
  std::string to_string() const;
  bool is(ErrorKind k) const { return kind == k; }
};

// Maps an HTTP status and Status.reason to a kind (409 splits on the reason).
ErrorKind kind_from_status(int code, std::string_view reason);

// Builds an Error from a non-2xx response. The body may be a Status object or anything
// else (then the message is the body's first 256 bytes). Retry-After holds seconds.
Error error_from_response(int code, std::string_view body, std::string_view retry_after_header,
                          std::string request);

// Result<T>: a value or an Error. Must be checked ([[nodiscard]]).
template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit by design
  Result(Error error) : v_(std::in_place_index<1>, std::move(error)) {}  // NOLINT

  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  // REQUIRES: ok().
  T& value() & { return std::get<0>(v_); }
  const T& value() const& { return std::get<0>(v_); }
  T&& value() && { return std::get<0>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  // REQUIRES: !ok().
  const Error& error() const& { return std::get<1>(v_); }
  Error&& error() && { return std::get<1>(std::move(v_)); }

 private:
  std::variant<T, Error> v_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error error) : error_(std::move(error)) {}  // NOLINT
  bool ok() const { return !error_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const& { return *error_; }
  Error&& error() && { return std::move(*error_); }

 private:
  std::optional<Error> error_;
};

using Status = Result<void>;

}  // namespace dgd::kube
