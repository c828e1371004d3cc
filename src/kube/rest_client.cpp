#include "dgd/kube/rest_client.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <nlohmann/json.hpp>
#include <thread>

#include "dgd/kube/credentials.h"
#include "dgd/kube/metrics.h"
#include "dgd/kube/token_bucket.h"
#include "dgd/kube/watch.h"

namespace dgd::kube {

using nlohmann::json;

namespace {

bool is_write(const std::string& method) { return method != "GET" && method != "HEAD"; }

std::string content_type_of(PatchType t) {
  switch (t) {
    case PatchType::kMerge: return "application/merge-patch+json";
    case PatchType::kJson: return "application/json-patch+json";
    case PatchType::kStrategic: return "application/strategic-merge-patch+json";
    case PatchType::kApply: return "application/apply-patch+yaml";
  }
  return "application/merge-patch+json";
}

Query write_query(const WriteOptions& o) {
  Query q;
  q.add_if(!o.field_manager.empty(), "fieldManager", o.field_manager);
  q.add_if(o.force, "force", "true");
  q.add_if(o.dry_run, "dryRun", "All");
  return q;
}

std::string host_of(const std::string& server) {
  auto p = server.find("://");
  return p == std::string::npos ? server : server.substr(p + 3);
}

}  // namespace

RestClient::RestClient(const RestConfig& config, ClientOptions options)
    : RestClient(config, std::move(options), nullptr, nullptr) {}

RestClient::RestClient(const RestConfig& config, ClientOptions options, std::shared_ptr<HttpTransport> transport,
                       std::shared_ptr<Credentials> credentials)
    : config_(config), options_(std::move(options)), credentials_(std::move(credentials)),
      transport_(std::move(transport)), host_label_(host_of(config.server)) {
  if (!credentials_) credentials_ = std::make_shared<Credentials>(config_);
  if (!transport_) {
    TransportOptions t;
    t.default_timeout = options_.timeout;
    transport_ = make_cpprest_transport(config_, credentials_, t);
  }
  if (options_.qps > 0) limiter_ = std::make_unique<TokenBucket>(options_.qps, std::max(1, options_.burst));
}

RestClient::~RestClient() { shutdown_.cancel(); }

void RestClient::set_write_gate(std::function<bool()> gate) { write_gate_ = std::move(gate); }

void RestClient::record(const std::string& verb, int code, std::chrono::steady_clock::duration took) {
  if (!options_.metrics) return;
  // Labelled by HTTP method as client-go labels them (a list and a watch are GETs, a
  // server-side apply a PATCH), so client-go's dashboards and alerts read these as theirs.
  const std::string method = verb == "LIST" || verb == "WATCH" ? "GET" : verb == "APPLY" ? "PATCH" : verb;
  options_.metrics
      ->counter("rest_client_requests_total", "HTTP requests to the API server, by status code, method and host.",
                {{"code", code == 0 ? "<error>" : std::to_string(code)}, {"host", host_label_}, {"method", method}})
      .inc();
  options_.metrics
      ->histogram("rest_client_request_duration_seconds", "Latency of API server requests, by HTTP method and host.",
                  {{"host", host_label_}, {"verb", method}})
      .observe(std::chrono::duration<double>(took).count());
}

Status RestClient::prepare(HttpRequest& request, const CancelToken& cancel) {
  if (limiter_) {
    auto wait = limiter_->reserve();
    if (wait > Clock::duration::zero() && !cancel.sleep_for(wait)) {
      Error e;
      e.kind = ErrorKind::kCanceled;
      e.request = request.method + " " + request.target;
      e.message = "canceled while rate limited";
      return e;
    }
  }
  auto auth = credentials_->current();
  if (!auth) {
    Error e = std::move(auth).error();
    e.request = request.method + " " + request.target;
    return e;
  }
  auto& h = request.headers;
  h.erase(std::remove_if(h.begin(), h.end(), [](const auto& kv) { return kv.first == "Authorization"; }), h.end());
  if (!auth->authorization.empty()) h.emplace_back("Authorization", auth->authorization);
  return {};
}

Result<HttpResponse> RestClient::execute(HttpRequest request, const std::string& verb, bool idempotent,
                                         const CancelToken& cancel) {
  // The gate is asked before every attempt: a retry (after a 429's Retry-After, say)
  // may come after leadership is gone, and must not be sent then.
  auto refused_by_gate = [&]() -> std::optional<Error> {
    if (!is_write(request.method) || !write_gate_ || write_gate_()) return std::nullopt;
    Error e;
    e.kind = ErrorKind::kNotLeader;
    e.request = request.method + " " + request.target;
    e.message = "write refused: this process is not the leader";
    return e;
  };
  if (auto e = refused_by_gate()) return std::move(*e);
  request.headers.emplace_back("User-Agent", options_.user_agent);
  if (request.timeout.count() == 0) request.timeout = options_.timeout;
  // Both the caller's token and client shutdown cancel the request.
  CancelSource both;
  auto s1 = cancel.on_cancel([&both] { both.cancel(); });
  auto s2 = shutdown_.token().on_cancel([&both] { both.cancel(); });
  CancelToken token = both.token();
  std::string what = request.method + " " + request.target;
  bool retried_auth = false, retried_transport = false;
  auto backoff = options_.retry_backoff;
  for (int attempt = 0;; ++attempt) {
    if (attempt > 0) {
      if (auto e = refused_by_gate()) return std::move(*e);
    }
    if (auto s = prepare(request, token); !s) return std::move(s).error();
    auto start = std::chrono::steady_clock::now();
    auto r = transport_->send(request, token);
    auto took = std::chrono::steady_clock::now() - start;
    if (!r) {
      record(verb, 0, took);
      Error e = std::move(r).error();
      e.request = what;
      bool may_retry = e.kind == ErrorKind::kTransport && request.method == "GET" && !retried_transport;
      if (!may_retry) return e;
      retried_transport = true;
      spdlog::debug("retrying {} after transport error: {}", what, e.message);
      if (!token.sleep_for(std::chrono::seconds(1))) return e;
      continue;
    }
    record(verb, r->status, took);
    int code = r->status;
    if (code < 400) return r;
    Error e = error_from_response(code, r->body, r->header("Retry-After"), what);
    if (code == 401 && !retried_auth && credentials_->refreshable()) {
      // A rotated token file or an expired exec credential: fetch fresh ones once.
      retried_auth = true;
      credentials_->invalidate();
      spdlog::info("{}: 401, refreshing credentials and retrying", what);
      continue;
    }
    bool retryable = code == 429 || (idempotent && (code == 500 || code == 502 || code == 503 || code == 504));
    if (!retryable || attempt >= options_.max_retries) return e;
    std::chrono::milliseconds delay;
    if (e.retry_after) {
      delay = std::min<std::chrono::milliseconds>(*e.retry_after, options_.max_retry_after);
    } else {
      delay = backoff;
      backoff = std::min(backoff * 2, options_.retry_backoff_max);
    }
    if (code == 429) {
      spdlog::info("{}: throttled by the server (429), retrying in {} ms (FlowSchema {})", what, delay.count(),
                   r->header("X-Kubernetes-PF-FlowSchema-UID"));
    } else {
      spdlog::info("{}: {} {}, retrying in {} ms", what, code, e.reason, delay.count());
    }
    if (!token.sleep_for(delay)) {
      Error c;
      c.kind = ErrorKind::kCanceled;
      c.request = what;
      c.message = "canceled while waiting to retry";
      return c;
    }
  }
}

Result<HttpResponse> RestClient::raw(HttpRequest request, const CancelToken& cancel) {
  bool idempotent = request.method == "GET" || request.method == "PUT" || request.method == "DELETE";
  std::string verb = request.method;
  return execute(std::move(request), verb, idempotent, cancel);
}

Result<HttpResponse> RestClient::call(std::string method, std::string target, std::string verb, const json* body,
                                      std::string content_type, const CancelToken& cancel) {
  HttpRequest req;
  req.method = std::move(method);
  req.target = std::move(target);
  req.headers.emplace_back("Accept", "application/json");
  if (body) {
    req.body = body->dump();
    req.headers.emplace_back("Content-Type", std::move(content_type));
  }
  bool idempotent = req.method == "GET" || req.method == "PUT" || req.method == "DELETE" ||
                    (req.method == "PATCH" && verb == "APPLY");
  return execute(std::move(req), verb, idempotent, cancel);
}

Result<json> RestClient::json_call(std::string method, std::string target, std::string verb, const json* body,
                                   std::string content_type, const CancelToken& cancel) {
  auto r = call(std::move(method), std::move(target), std::move(verb), body, std::move(content_type), cancel);
  if (!r) return std::move(r).error();
  auto j = json::parse(r->body, nullptr, false);
  if (j.is_discarded()) {
    Error e;
    e.kind = ErrorKind::kDecode;
    e.code = r->status;
    e.message = "response is not JSON: " + r->body.substr(0, 200);
    return e;
  }
  return j;
}

Result<json> RestClient::get(const ResourceRef& ref, std::string_view ns, std::string_view name,
                             std::string_view subresource) {
  return json_call("GET", resource_path(ref, ns, name, subresource), "GET", nullptr, "");
}

namespace {
std::string list_target(const ResourceRef& ref, std::string_view ns, const ListOptions& o) {
  Query q;
  q.add_if(!o.label_selector.empty(), "labelSelector", o.label_selector);
  q.add_if(!o.field_selector.empty(), "fieldSelector", o.field_selector);
  q.add_if(o.limit > 0, "limit", std::to_string(o.limit));
  q.add_if(!o.continue_token.empty(), "continue", o.continue_token);
  q.add_if(!o.resource_version.empty() && o.continue_token.empty(), "resourceVersion", o.resource_version);
  return resource_path(ref, ns) + q.encode();
}
}  // namespace

Result<json> RestClient::list(const ResourceRef& ref, std::string_view ns, const ListOptions& o) {
  return json_call("GET", list_target(ref, ns, o), "LIST", nullptr, "", o.cancel);
}

Result<std::string> RestClient::list_text(const ResourceRef& ref, std::string_view ns, const ListOptions& o) {
  auto r = call("GET", list_target(ref, ns, o), "LIST", nullptr, "", o.cancel);
  if (!r) return std::move(r).error();
  return std::move(r->body);
}

Result<json> RestClient::create(const ResourceRef& ref, std::string_view ns, const json& object,
                                const WriteOptions& o) {
  return json_call("POST", resource_path(ref, ns) + write_query(o).encode(), "POST", &object, "application/json");
}

Result<json> RestClient::update(const ResourceRef& ref, std::string_view ns, const json& object,
                                const WriteOptions& o, std::string_view subresource) {
  std::string name;
  if (auto m = object.find("metadata"); m != object.end() && m->is_object()) name = m->value("name", "");
  if (name.empty()) {
    Error e;
    e.kind = ErrorKind::kInvalid;
    e.message = "update of " + ref.to_string() + ": object has no metadata.name";
    return e;
  }
  return json_call("PUT", resource_path(ref, ns, name, subresource) + write_query(o).encode(), "PUT", &object,
                   "application/json");
}

Result<json> RestClient::update_status(const ResourceRef& ref, std::string_view ns, const json& object,
                                       const WriteOptions& o) {
  return update(ref, ns, object, o, "status");
}

Result<json> RestClient::patch(const ResourceRef& ref, std::string_view ns, std::string_view name, PatchType type,
                               const json& patch, const WriteOptions& o, std::string_view subresource) {
  WriteOptions opts = o;
  if (type != PatchType::kApply) opts.force = false;  // the server rejects force on other patches
  return json_call("PATCH", resource_path(ref, ns, name, subresource) + write_query(opts).encode(),
                   type == PatchType::kApply ? "APPLY" : "PATCH", &patch, content_type_of(type));
}

Result<json> RestClient::apply(const ResourceRef& ref, std::string_view ns, std::string_view name, const json& object,
                               std::string_view field_manager, bool force, std::string_view subresource) {
  WriteOptions o;
  o.field_manager = std::string(field_manager);
  o.force = force;
  return patch(ref, ns, name, PatchType::kApply, object, o, subresource);
}

Result<json> RestClient::remove(const ResourceRef& ref, std::string_view ns, std::string_view name,
                                const DeleteOptions& o) {
  json body = {{"apiVersion", "v1"}, {"kind", "DeleteOptions"}};
  if (!o.propagation_policy.empty()) body["propagationPolicy"] = o.propagation_policy;
  if (!o.precondition_uid.empty()) body["preconditions"]["uid"] = o.precondition_uid;
  if (!o.precondition_resource_version.empty()) {
    body["preconditions"]["resourceVersion"] = o.precondition_resource_version;
  }
  if (o.grace_period_seconds) body["gracePeriodSeconds"] = *o.grace_period_seconds;
  return json_call("DELETE", resource_path(ref, ns, name), "DELETE", &body, "application/json");
}

Status RestClient::watch(const ResourceRef& ref, std::string_view ns, const WatchOptions& o,
                         const std::function<bool(WatchEvent&&)>& on_event, const CancelToken& cancel) {
  Query q;
  q.add("watch", "1");
  q.add_if(!o.label_selector.empty(), "labelSelector", o.label_selector);
  q.add_if(!o.field_selector.empty(), "fieldSelector", o.field_selector);
  q.add_if(!o.resource_version.empty(), "resourceVersion", o.resource_version);
  q.add_if(o.allow_bookmarks, "allowWatchBookmarks", "true");
  q.add_if(o.timeout_seconds > 0, "timeoutSeconds", std::to_string(o.timeout_seconds));
  HttpRequest req;
  req.method = "GET";
  req.target = resource_path(ref, ns) + q.encode();
  req.headers.emplace_back("Accept", "application/json");
  req.headers.emplace_back("User-Agent", options_.user_agent);
  // The server ends the stream after timeout_seconds; the idle timeout leaves it 30 s more.
  req.timeout = std::chrono::seconds(std::max(1, o.timeout_seconds) + 30);
  std::string what = "WATCH " + req.target;

  CancelSource both;
  auto s1 = cancel.on_cancel([&both] { both.cancel(); });
  auto s2 = shutdown_.token().on_cancel([&both] { both.cancel(); });
  bool retried_auth = false;
  for (;;) {
    if (auto s = prepare(req, both.token()); !s) return s;
    LineFramer framer;
    std::optional<Error> frame_error;
    bool stopped = false;
    auto start = std::chrono::steady_clock::now();
    auto r = transport_->stream(
        req,
        [&](std::string_view chunk) {
          bool ok = framer.feed(chunk, [&](std::string_view line) {
            if (stopped || frame_error) return;
            auto ev = decode_watch_event(line);
            if (!ev) {
              frame_error = std::move(ev).error();
              return;
            }
            if (!on_event(std::move(*ev))) stopped = true;
          });
          if (!ok) {
            Error e;
            e.kind = ErrorKind::kDecode;
            e.message = "watch frame exceeds the size limit";
            frame_error = e;
          }
          return !stopped && !frame_error;
        },
        both.token());
    record("WATCH", r ? r->status : 0, std::chrono::steady_clock::now() - start);
    if (!r) {
      Error e = std::move(r).error();
      e.request = what;
      return e;
    }
    if (frame_error) {
      frame_error->request = what;
      return *frame_error;
    }
    if (r->status >= 400) {
      Error e = error_from_response(r->status, r->body, r->header("Retry-After"), what);
      if (r->status == 401 && !retried_auth && credentials_->refreshable()) {
        retried_auth = true;
        credentials_->invalidate();
        continue;
      }
      return e;
    }
    return {};
  }
}

}  // namespace dgd::kube
