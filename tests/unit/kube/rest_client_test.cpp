// RestClient against a scripted transport: retry policy, typed errors, auth refresh,
// write gate, user agent, metrics.
#include <gtest/gtest.h>

#include <deque>
#include <mutex>
#include <nlohmann/json.hpp>

#include "common/prom_text.h"
#include "common/temp_dir.h"
#include "dgd/kube/credentials.h"
#include "dgd/kube/metrics.h"
#include "dgd/kube/rest_client.h"
#include "dgd/kube/watch.h"

namespace dgd::kube {
namespace {

class ScriptedTransport : public HttpTransport {
 public:
  void push(int status, std::string body, Headers headers = {}) {
    std::lock_guard<std::mutex> l(mu_);
    HttpResponse r;
    r.status = status;
    r.body = std::move(body);
    r.headers = std::move(headers);
    script_.push_back(std::move(r));
  }
  void push_error(ErrorKind kind) {
    Error e;
    e.kind = kind;
    e.message = "scripted";
    std::lock_guard<std::mutex> l(mu_);
    errors_[script_.size()] = e;
    script_.emplace_back();
  }
  Result<HttpResponse> send(const HttpRequest& req, const CancelToken&) override {
    std::lock_guard<std::mutex> l(mu_);
    requests.push_back(req);
    if (script_.empty()) return HttpResponse{599, {}, "script exhausted"};
    HttpResponse r = std::move(script_.front());
    script_.pop_front();
    size_t idx = consumed_++;
    if (auto it = errors_.find(idx); it != errors_.end()) return it->second;
    return r;
  }
  Result<HttpResponse> stream(const HttpRequest& req, const std::function<bool(std::string_view)>& on_data,
                              const CancelToken& c) override {
    auto r = send(req, c);
    if (!r || r->status >= 300) return r;
    // Deliver the body in 3-byte pieces: the framing must not depend on chunking.
    for (size_t i = 0; i < r->body.size(); i += 3) {
      if (!on_data(std::string_view(r->body).substr(i, 3))) break;
    }
    r->body.clear();
    return r;
  }
  std::vector<HttpRequest> requests;

 private:
  std::mutex mu_;
  std::deque<HttpResponse> script_;
  std::map<size_t, Error> errors_;
  size_t consumed_ = 0;
};

std::string header(const HttpRequest& r, const std::string& name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return v;
  }
  return "";
}

struct Fixture {
  Fixture(ClientOptions o = {}) {
    config.server = "https://api:6443";
    config.token = "secret";
    transport = std::make_shared<ScriptedTransport>();
    o.retry_backoff = std::chrono::milliseconds(1);
    if (!o.metrics) o.metrics = std::make_shared<MetricsRegistry>();
    metrics = o.metrics;
    client = std::make_unique<RestClient>(config, o, transport);
  }
  RestConfig config;
  std::shared_ptr<ScriptedTransport> transport;
  std::shared_ptr<MetricsRegistry> metrics;
  std::unique_ptr<RestClient> client;
};

const char* kCm = R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"n","resourceVersion":"5"}})";

TEST(RestClient, GetSendsAuthUserAgentAndDecodes) {
  Fixture f;
  f.transport->push(200, kCm);
  auto r = f.client->get(resources::config_maps(), "n", "c");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ((*r)["metadata"]["resourceVersion"], "5");
  ASSERT_EQ(f.transport->requests.size(), 1u);
  const auto& req = f.transport->requests[0];
  EXPECT_EQ(req.method, "GET");
  EXPECT_EQ(req.target, "/api/v1/namespaces/n/configmaps/c");
  EXPECT_EQ(header(req, "Authorization"), "Bearer secret");
  EXPECT_EQ(header(req, "User-Agent"), "dgd-operator/0.1.0");
}

TEST(RestClient, TooManyRequestsIsRetriedHonouringRetryAfter) {
  Fixture f;
  f.transport->push(429, R"({"kind":"Status","reason":"TooManyRequests","code":429})", {{"Retry-After", "0"}});
  f.transport->push(429, R"({"kind":"Status","reason":"TooManyRequests","code":429})", {{"retry-after", "0"}});
  f.transport->push(201, kCm);
  auto r = f.client->create(resources::config_maps(), "n", nlohmann::json::parse(kCm));
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(f.transport->requests.size(), 3u) << "a POST is retried on 429: the server did not process it";
}

TEST(RestClient, ServiceUnavailableIsRetriedForIdempotentRequestsOnly) {
  Fixture f;
  f.transport->push(503, "busy", {{"Retry-After", "0"}});
  f.transport->push(200, kCm);
  EXPECT_TRUE(f.client->get(resources::config_maps(), "n", "c").ok());
  EXPECT_EQ(f.transport->requests.size(), 2u);

  Fixture g;
  g.transport->push(503, "busy", {{"Retry-After", "0"}});
  g.transport->push(201, kCm);
  auto r = g.client->create(resources::config_maps(), "n", nlohmann::json::parse(kCm));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kServiceUnavailable);
  EXPECT_EQ(g.transport->requests.size(), 1u) << "a POST may have been applied: not retried on 5xx";
}

TEST(RestClient, RetriesStopAtMaxRetries) {
  ClientOptions o;
  o.max_retries = 2;
  Fixture f(o);
  for (int i = 0; i < 5; ++i) f.transport->push(500, "boom");
  auto r = f.client->get(resources::pods(), "n", "p");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kInternalError);
  EXPECT_EQ(f.transport->requests.size(), 3u);
}

TEST(RestClient, ForbiddenIsReportedNotRetried) {
  Fixture f;
  f.transport->push(403,
                    R"({"kind":"Status","reason":"Forbidden","message":"configmaps \"c\" is forbidden: User \"u\" cannot get resource","code":403})");
  f.transport->push(200, kCm);
  auto r = f.client->get(resources::config_maps(), "n", "c");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kForbidden);
  EXPECT_NE(r.error().to_string().find("GET /api/v1/namespaces/n/configmaps/c"), std::string::npos);
  EXPECT_EQ(f.transport->requests.size(), 1u);
}

TEST(RestClient, UnauthorizedRefreshesATokenFileOnce) {
  testing::TempDir d;
  RestConfig c;
  c.server = "https://api:6443";
  c.token_file = d.write("token", "old");
  auto t = std::make_shared<ScriptedTransport>();
  auto creds = std::make_shared<Credentials>(c, Credentials::Options{std::chrono::seconds(3600)});
  RestClient client(c, ClientOptions{}, t, creds);
  t->push(200, kCm);
  ASSERT_TRUE(client.get(resources::config_maps(), "n", "c").ok());
  d.write("token", "new");  // the kubelet rotated the token
  t->push(401, R"({"kind":"Status","reason":"Unauthorized","code":401})");
  t->push(200, kCm);
  ASSERT_TRUE(client.get(resources::config_maps(), "n", "c").ok());
  ASSERT_EQ(t->requests.size(), 3u);
  EXPECT_EQ(header(t->requests[1], "Authorization"), "Bearer old");
  EXPECT_EQ(header(t->requests[2], "Authorization"), "Bearer new");
  // A second 401 in a row is reported.
  t->push(401, R"({"kind":"Status","reason":"Unauthorized","code":401})");
  t->push(401, R"({"kind":"Status","reason":"Unauthorized","code":401})");
  auto r = client.get(resources::config_maps(), "n", "c");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kUnauthorized);
}

TEST(RestClient, WriteGateRefusesWritesButNotReads) {
  Fixture f;
  bool leader = false;
  f.client->set_write_gate([&] { return leader; });
  f.transport->push(200, kCm);
  EXPECT_TRUE(f.client->get(resources::config_maps(), "n", "c").ok());
  auto r = f.client->apply(resources::config_maps(), "n", "c", nlohmann::json::parse(kCm), "dgd-operator");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kNotLeader);
  EXPECT_EQ(f.transport->requests.size(), 1u) << "nothing was sent";
  leader = true;
  f.transport->push(200, kCm);
  EXPECT_TRUE(f.client->apply(resources::config_maps(), "n", "c", nlohmann::json::parse(kCm), "dgd-operator").ok());
}

TEST(RestClient, PatchTypesAndApplyQuery) {
  Fixture f;
  for (int i = 0; i < 4; ++i) f.transport->push(200, kCm);
  nlohmann::json p = {{"data", {{"a", "1"}}}};
  ASSERT_TRUE(f.client->patch(resources::config_maps(), "n", "c", PatchType::kMerge, p, {"mgr", true}).ok());
  ASSERT_TRUE(f.client->patch(resources::config_maps(), "n", "c", PatchType::kStrategic, p).ok());
  ASSERT_TRUE(f.client->patch(resources::config_maps(), "n", "c", PatchType::kJson, nlohmann::json::array()).ok());
  ASSERT_TRUE(f.client->apply(resources::deployments(), "n", "web", p, "dgd-operator", true, "status").ok());
  auto& rq = f.transport->requests;
  EXPECT_EQ(header(rq[0], "Content-Type"), "application/merge-patch+json");
  EXPECT_EQ(rq[0].target, "/api/v1/namespaces/n/configmaps/c?fieldManager=mgr") << "force is only for apply";
  EXPECT_EQ(header(rq[1], "Content-Type"), "application/strategic-merge-patch+json");
  EXPECT_EQ(header(rq[2], "Content-Type"), "application/json-patch+json");
  EXPECT_EQ(header(rq[3], "Content-Type"), "application/apply-patch+yaml");
  EXPECT_EQ(rq[3].target, "/apis/apps/v1/namespaces/n/deployments/web/status?fieldManager=dgd-operator&force=true");
}

TEST(RestClient, DeleteSendsOptionsAndListPages) {
  Fixture f;
  f.transport->push(200, R"({"kind":"Status","status":"Success"})");
  f.transport->push(200, R"({"kind":"ConfigMapList","metadata":{"resourceVersion":"9","continue":"abc"},"items":[]})");
  DeleteOptions d;
  d.propagation_policy = "Foreground";
  d.precondition_uid = "u-1";
  ASSERT_TRUE(f.client->remove(resources::config_maps(), "n", "c", d).ok());
  auto body = nlohmann::json::parse(f.transport->requests[0].body);
  EXPECT_EQ(body["propagationPolicy"], "Foreground");
  EXPECT_EQ(body["preconditions"]["uid"], "u-1");
  ListOptions lo;
  lo.limit = 500;
  lo.label_selector = "a=b";
  auto l = f.client->list(resources::config_maps(), "n", lo);
  ASSERT_TRUE(l.ok());
  EXPECT_EQ(f.transport->requests[1].target, "/api/v1/namespaces/n/configmaps?labelSelector=a%3Db&limit=500");
}

TEST(RestClient, ListTextIsTheSameRequestWithTheBodyUnparsed) {
  Fixture f;
  const std::string page = "{\"kind\":\"PodList\",\n \"items\":[]}";
  f.transport->push(503, "busy", {{"Retry-After", "0"}});
  f.transport->push(200, page);
  ListOptions lo;
  lo.limit = 100;
  lo.continue_token = "c1";
  lo.label_selector = "a=b";
  auto l = f.client->list_text(resources::pods(), "n", lo);
  ASSERT_TRUE(l.ok()) << l.error().to_string();
  EXPECT_EQ(*l, page) << "byte for byte: the informer reads it without a DOM";
  ASSERT_EQ(f.transport->requests.size(), 2u) << "a list is retried on 503 like any GET";
  EXPECT_EQ(f.transport->requests[1].target, "/api/v1/namespaces/n/pods?labelSelector=a%3Db&limit=100&continue=c1");
  f.transport->push(410, R"({"kind":"Status","reason":"Expired","code":410,"message":"too old"})");
  auto gone = f.client->list_text(resources::pods(), "n", lo);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.error().kind, ErrorKind::kGone);
}

TEST(RestClient, ClientSideRateLimitIsOffByDefault) {
  ClientOptions defaults;
  EXPECT_LE(defaults.qps, 0) << "controller-runtime disabled client-side limits (PR #3119)";
}

TEST(RestClient, WatchDecodesEventsAcrossChunks) {
  Fixture f;
  f.transport->push(200,
                    "{\"type\":\"ADDED\",\"object\":{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"10\"}}}\n"
                    "{\"type\":\"BOOKMARK\",\"object\":{\"metadata\":{\"resourceVersion\":\"12\"}}}\n");
  std::vector<std::string> rvs;
  WatchOptions wo;
  wo.resource_version = "9";
  wo.timeout_seconds = 333;
  auto s = f.client->watch(resources::config_maps(), "n", wo,
                           [&](WatchEvent&& ev) {
                             rvs.push_back(ev.resource_version());
                             return true;
                           },
                           CancelToken());
  ASSERT_TRUE(s.ok()) << s.error().to_string();
  EXPECT_EQ(rvs, (std::vector<std::string>{"10", "12"}));
  const auto& req = f.transport->requests[0];
  EXPECT_EQ(req.target,
            "/api/v1/namespaces/n/configmaps?watch=1&resourceVersion=9&allowWatchBookmarks=true&timeoutSeconds=333");
  EXPECT_EQ(req.timeout, std::chrono::seconds(363)) << "idle timeout = timeoutSeconds + 30 s";
}

TEST(RestClient, WatchGoneIsAnError) {
  Fixture f;
  f.transport->push(410, R"({"kind":"Status","reason":"Expired","message":"too old","code":410})");
  auto s = f.client->watch(resources::config_maps(), "n", {}, [](WatchEvent&&) { return true; }, CancelToken());
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.error().kind, ErrorKind::kGone);
}

TEST(RestClient, RecordsRequestMetricsByVerbAndCode) {
  Fixture f;
  f.transport->push(404, R"({"kind":"Status","reason":"NotFound","code":404})");
  f.transport->push(200, kCm);
  EXPECT_FALSE(f.client->get(resources::config_maps(), "n", "x").ok());
  EXPECT_TRUE(f.client->get(resources::config_maps(), "n", "c").ok());
  std::string text = f.metrics->render();
  EXPECT_EQ(testing::check_prometheus_text(text), "");
  EXPECT_NE(text.find("rest_client_requests_total{code=\"404\",host=\"api:6443\",method=\"GET\"} 1"), std::string::npos)
      << text;
  EXPECT_NE(text.find("rest_client_requests_total{code=\"200\",host=\"api:6443\",method=\"GET\"} 1"), std::string::npos);
}

TEST(RestClient, RecordsListsWatchesAndAppliesByTheirHttpMethodAsClientGo) {
  Fixture f;
  f.transport->push(200, R"({"kind":"ConfigMapList","apiVersion":"v1","metadata":{"resourceVersion":"9"},"items":[]})");
  f.transport->push(200, kCm);
  f.transport->push(200, "");
  EXPECT_TRUE(f.client->list(resources::config_maps(), "n").ok());
  EXPECT_TRUE(f.client->apply(resources::config_maps(), "n", "c", nlohmann::json::parse(kCm), "dgd-operator").ok());
  EXPECT_TRUE(f.client->watch(resources::config_maps(), "n", {}, [](WatchEvent&&) { return true; }, CancelToken()).ok());
  std::string text = f.metrics->render();
  EXPECT_NE(text.find("rest_client_requests_total{code=\"200\",host=\"api:6443\",method=\"GET\"} 2"), std::string::npos)
      << text;
  EXPECT_NE(text.find("rest_client_requests_total{code=\"200\",host=\"api:6443\",method=\"PATCH\"} 1"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("rest_client_request_duration_seconds_count{host=\"api:6443\",verb=\"GET\"} 2"),
            std::string::npos)
      << text;
  for (const char* not_http : {"LIST", "WATCH", "APPLY"}) {
    EXPECT_EQ(text.find(std::string("\"") + not_http + "\""), std::string::npos) << not_http << "\n" << text;
  }
}

}  // namespace
}  // namespace dgd::kube
