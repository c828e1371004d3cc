// RestClient: the Kubernetes REST verbs over an HttpTransport, with typed errors from
// Status bodies, retries of 429 / 5xx honouring Retry-After, an optional client-side
// token-bucket limit, per-request timeouts, a user agent, a write gate (leadership) and
// per-request metrics. Thread-safe; calls block the calling thread (never call from an
// HTTP pool thread).
//
// Retry policy (client-go rest/with_retry.go, kube-api.md §5.3):
//  - 429: always retried (the server did not process the request).
//  - 500/502/503/504: retried for idempotent requests only (GET, PUT, DELETE, apply).
//  - Delay: Retry-After when present (capped at max_retry_after), else exponential back-off.
//  - A transport failure of a GET is retried once (stale keep-alive connections).
//  - 401 with refreshable credentials: invalidate and retry once.
//  - 403, 404, 409, 410, 422 and other 4xx: never retried.
#pragma once
#include <chrono>
#include <functional>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "dgd/kube/cancel.h"
#include "dgd/kube/config.h"
#include "dgd/kube/error.h"
#include "dgd/kube/http.h"
#include "dgd/kube/resource.h"

namespace dgd::kube {

class Credentials;
class MetricsRegistry;
class TokenBucket;
struct WatchEvent;

struct ClientOptions {
  std::string user_agent = "dgd-operator/0.1.0";
  // Client-side limit. <= 0 disables it (default, as controller-runtime since PR #3119:
  // API Priority and Fairness protects the server).
  double qps = 0;
  int burst = 10;
  // Retries after the first attempt (client-go's default is 10).
  int max_retries = 10;
  // A Retry-After above this is clamped: a broken proxy must not stall us for hours.
  std::chrono::seconds max_retry_after{60};
  // Back-off for retries without Retry-After: initial, doubling, capped.
  std::chrono::milliseconds retry_backoff{250};
  std::chrono::milliseconds retry_backoff_max{8000};
  // Idle timeout of ordinary requests.
  std::chrono::milliseconds timeout{30000};
  // Optional metrics sink (rest_client_requests_total, rest_client_request_duration_seconds).
  std::shared_ptr<MetricsRegistry> metrics;
};

enum class PatchType { kMerge, kJson, kStrategic, kApply };

struct ListOptions {
  std::string label_selector;
  std::string field_selector;
  int limit = 0;                 // page size; 0 = all at once
  std::string continue_token;
  std::string resource_version;  // "" = most recent (quorum read)
  CancelToken cancel;            // aborts the request (and its retries) when fired
};

struct WatchOptions {
  std::string label_selector;
  std::string field_selector;
  std::string resource_version;  // start after this RV
  bool allow_bookmarks = true;
  int timeout_seconds = 300;     // server-side cap; the idle timeout is this + 30 s
};

struct WriteOptions {
  std::string field_manager;  // required for apply
  bool force = false;         // apply only
  bool dry_run = false;
};

struct DeleteOptions {
  std::string propagation_policy;  // "", Background, Foreground, Orphan
  std::string precondition_uid;
  std::string precondition_resource_version;
  std::optional<int> grace_period_seconds;
};

class RestClient {
 public:
  // Builds a cpprest transport for `config`.
  RestClient(const RestConfig& config, ClientOptions options);
  // Uses `transport` (tests inject fakes). `credentials` may be null (then built from config).
  RestClient(const RestConfig& config, ClientOptions options,
             std::shared_ptr<HttpTransport> transport,
             std::shared_ptr<Credentials> credentials = nullptr);
  ~RestClient();
  RestClient(const RestClient&) = delete;
  RestClient& operator=(const RestClient&) = delete;

  // One object. NotFound is ErrorKind::kNotFound.
  Result<nlohmann::json> get(const ResourceRef& ref, std::string_view ns, std::string_view name,
                             std::string_view subresource = {});
  // One page of a list (use options.limit / continue_token to page).
  Result<nlohmann::json> list(const ResourceRef& ref, std::string_view ns,
                              const ListOptions& options = {});
  // The same page as the server's JSON text, unparsed (the informer reads its items
  // straight into its cache: runtime/list_page.h). Same request, retries and errors;
  // the body is not checked to be JSON.
  Result<std::string> list_text(const ResourceRef& ref, std::string_view ns, const ListOptions& options = {});
  // POST; the object's namespace comes from `ns`.
  Result<nlohmann::json> create(const ResourceRef& ref, std::string_view ns,
                                const nlohmann::json& object, const WriteOptions& options = {});
  // PUT of the whole object (metadata.name and, for optimistic concurrency,
  // metadata.resourceVersion set). `subresource` "status" writes only the status.
  Result<nlohmann::json> update(const ResourceRef& ref, std::string_view ns,
                                const nlohmann::json& object, const WriteOptions& options = {},
                                std::string_view subresource = {});
  Result<nlohmann::json> update_status(const ResourceRef& ref, std::string_view ns,
                                       const nlohmann::json& object,
                                       const WriteOptions& options = {});
  Result<nlohmann::json> patch(const ResourceRef& ref, std::string_view ns, std::string_view name,
                               PatchType type, const nlohmann::json& patch,
                               const WriteOptions& options = {},
                               std::string_view subresource = {});
  // Server-side apply: PATCH application/apply-patch+yaml with fieldManager (and force).
  Result<nlohmann::json> apply(const ResourceRef& ref, std::string_view ns, std::string_view name,
                               const nlohmann::json& object, std::string_view field_manager,
                               bool force = true, std::string_view subresource = {});
  // DELETE. Returns the server's body (the object or a Status).
  Result<nlohmann::json> remove(const ResourceRef& ref, std::string_view ns, std::string_view name,
                                const DeleteOptions& options = {});

  // Opens a watch and calls on_event for each event until the server ends the stream
  // (timeout_seconds), on_event returns false, or `cancel` fires. Blocks the calling thread
  // (run it on a dedicated thread). A 410 response or an unreadable frame is an Error;
  // ERROR events are passed to on_event (the caller decides, e.g. relist on 410).
  Status watch(const ResourceRef& ref, std::string_view ns, const WatchOptions& options,
               const std::function<bool(WatchEvent&&)>& on_event, const CancelToken& cancel);

  // Writes (POST/PUT/PATCH/DELETE) are refused with kNotLeader while gate() is false.
  // The leader elector installs its is_leader() here; the lease client has no gate.
  void set_write_gate(std::function<bool()> gate);

  // The raw request path for anything the verbs do not cover. Same retries and errors.
  Result<HttpResponse> raw(HttpRequest request, const CancelToken& cancel = {});

  const RestConfig& config() const { return config_; }
  // Cancels every in-flight request of this client (shutdown).
  void cancel_all() { shutdown_.cancel(); }

 private:
  Result<HttpResponse> call(std::string method, std::string target, std::string verb, const nlohmann::json* body,
                            std::string content_type, const CancelToken& cancel);
  Result<nlohmann::json> json_call(std::string method, std::string target, std::string verb,
                                   const nlohmann::json* body, std::string content_type,
                                   const CancelToken& cancel = CancelToken());
  Result<HttpResponse> execute(HttpRequest request, const std::string& verb, bool idempotent,
                               const CancelToken& cancel);
  Status prepare(HttpRequest& request, const CancelToken& cancel);
  void record(const std::string& verb, int code, std::chrono::steady_clock::duration took);

  RestConfig config_;
  ClientOptions options_;
  std::shared_ptr<Credentials> credentials_;
  std::shared_ptr<HttpTransport> transport_;
  std::unique_ptr<TokenBucket> limiter_;
  std::function<bool()> write_gate_;
  std::string host_label_;
  CancelSource shutdown_;
};

}  // namespace dgd::kube
