// Retry policy over real HTTP through the cpprest transport, against a scripted server
// (kube-sim has no 429 / 503 / 403 fault knob yet): 429 with Retry-After and 503 are
// retried and succeed; a 403 is reported at once.
#include <gtest/gtest.h>

#include <atomic>
#include <cpprest/containerstream.h>
#include <cpprest/http_listener.h>
#include <deque>
#include <mutex>
#include <vector>
#include <nlohmann/json.hpp>

#include "common/free_port.h"
#include "dgd/kube/rest_client.h"

namespace dgd::kube {
namespace {

namespace http = web::http;

using testing::free_port;

struct Scripted {
  int status;
  std::string retry_after;
  std::string body;
};

class ScriptedServer {
 public:
  explicit ScriptedServer(std::deque<Scripted> script) : script_(std::move(script)) {
    url_ = "http://127.0.0.1:" + std::to_string(free_port());
    listener_ = std::make_unique<http::experimental::listener::http_listener>(url_);
    listener_->support([this](http::http_request req) {
      Scripted s{200, "", R"({"kind":"ConfigMap","metadata":{"name":"c"}})"};
      {
        std::lock_guard<std::mutex> l(mu_);
        ++requests_;
        user_agents_.push_back(req.headers().has("User-Agent") ? req.headers()["User-Agent"] : "");
        if (!script_.empty()) {
          s = script_.front();
          script_.pop_front();
        }
      }
      http::http_response r(static_cast<http::status_code>(s.status));
      if (!s.retry_after.empty()) r.headers().add("Retry-After", s.retry_after);
      // As bytes: cpprest's std::string overload is undefined behaviour (cpprest_transport.cpp).
      r.set_body(concurrency::streams::bytestream::open_istream(std::vector<unsigned char>(s.body.begin(), s.body.end())),
                 s.body.size(), "application/json");
      req.reply(r).then([](pplx::task<void> t) {
        try {
          t.get();
        } catch (...) {
        }
      });
    });
    listener_->open().wait();
  }
  ~ScriptedServer() { listener_->close().wait(); }
  const std::string& url() const { return url_; }
  int requests() {
    std::lock_guard<std::mutex> l(mu_);
    return requests_;
  }

 private:
  std::mutex mu_;
  std::deque<Scripted> script_;
  int requests_ = 0;
  std::vector<std::string> user_agents_;
  std::string url_;
  std::unique_ptr<http::experimental::listener::http_listener> listener_;
};

const char* kThrottled = R"({"kind":"Status","status":"Failure","reason":"TooManyRequests","code":429})";
const char* kUnavailable = R"({"kind":"Status","status":"Failure","reason":"ServiceUnavailable","code":503})";
const char* kForbidden =
    R"({"kind":"Status","status":"Failure","message":"configmaps \"c\" is forbidden: User \"u\" cannot get resource","reason":"Forbidden","code":403})";

RestConfig config_for(const ScriptedServer& s) {
  RestConfig c;
  c.server = s.url();
  return c;
}

TEST(RetryOverHttp, TooManyRequestsWithRetryAfterIsRetried) {
  ScriptedServer server({{429, "1", kThrottled}, {200, "", R"({"kind":"ConfigMap","metadata":{"name":"c"}})"}});
  RestClient c(config_for(server), ClientOptions{});
  auto start = std::chrono::steady_clock::now();
  auto r = c.get(resources::config_maps(), "n", "c");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(server.requests(), 2);
  EXPECT_GE(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(900)) << "Retry-After: 1 honoured";
}

TEST(RetryOverHttp, ServiceUnavailableIsRetried) {
  ScriptedServer server({{503, "0", kUnavailable}, {503, "", kUnavailable}, {200, "", R"({"kind":"ConfigMap"})"}});
  ClientOptions o;
  o.retry_backoff = std::chrono::milliseconds(10);
  RestClient c(config_for(server), o);
  auto r = c.get(resources::config_maps(), "n", "c");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(server.requests(), 3);
}

TEST(RetryOverHttp, ForbiddenIsReportedNotRetried) {
  ScriptedServer server({{403, "", kForbidden}, {200, "", R"({"kind":"ConfigMap"})"}});
  RestClient c(config_for(server), ClientOptions{});
  auto r = c.get(resources::config_maps(), "n", "c");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kForbidden);
  EXPECT_NE(r.error().message.find("cannot get resource"), std::string::npos);
  EXPECT_EQ(server.requests(), 1);
}

TEST(RetryOverHttp, UnreachableServerIsATransportError) {
  RestConfig c;
  c.server = "http://127.0.0.1:" + std::to_string(free_port());
  ClientOptions o;
  o.max_retries = 0;
  RestClient client(c, o);
  auto r = client.create(resources::config_maps(), "n", nlohmann::json::object());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kTransport) << r.error().to_string();
}

}  // namespace
}  // namespace dgd::kube
