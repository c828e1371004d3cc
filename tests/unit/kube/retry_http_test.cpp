// Retry policy over real HTTP through the cpprest transport, against a scripted server
// (kube-sim has no 429 / 503 / 403 fault knob yet): 429 with Retry-After and 503 are
// retried and succeed; a 403 is reported at once.
#include <gtest/gtest.h>

#include <atomic>
#include <deque>
#include <mutex>
#include <vector>
#include <nlohmann/json.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <sstream>

#include "common/loopback_http_server.h"
#include "common/refusing_port.h"
#include "dgd/kube/rest_client.h"

namespace dgd::kube {
namespace {

struct Scripted {
  int status;
  std::string retry_after;
  std::string body;
};

// Answers requests from a script, then 200 with a ConfigMap.
class ScriptedServer {
 public:
  explicit ScriptedServer(std::deque<Scripted> script)
      : script_(std::move(script)), server_([this](const testing::LoopbackHttpServer::Request& req) {
          Scripted s{200, "", R"({"kind":"ConfigMap","metadata":{"name":"c"}})"};
          {
            std::lock_guard<std::mutex> l(mu_);
            ++requests_;
            user_agents_.emplace_back(req[boost::beast::http::field::user_agent]);
            if (!script_.empty()) {
              s = script_.front();
              script_.pop_front();
            }
          }
          testing::LoopbackHttpServer::Response r{static_cast<boost::beast::http::status>(s.status), 11};
          if (!s.retry_after.empty()) r.set(boost::beast::http::field::retry_after, s.retry_after);
          r.set(boost::beast::http::field::content_type, "application/json");
          r.body() = s.body;
          return r;
        }) {}
  std::string url() const { return server_.url(); }
  int requests() {
    std::lock_guard<std::mutex> l(mu_);
    return requests_;
  }

 private:
  std::mutex mu_;
  std::deque<Scripted> script_;
  int requests_ = 0;
  std::vector<std::string> user_agents_;
  testing::LoopbackHttpServer server_;  // last: it calls back into the members above
};

const char* kThrottled = R"({"kind":"Status","status":"Failure","reason":"TooManyRequests","code":429})";
const char* kUnavailable = R"({"kind":"Status","status":"Failure","reason":"ServiceUnavailable","code":503})";
const char* kForbidden =
    R"({"kind":"Status","status":"Failure","message":"configmaps \"c\" is forbidden: User \"u\" cannot get resource","reason":"Forbidden","code":403})";

// Captures what the process logs while it lives (the client says how long it waits
// before a retry: the decision under test, where a clock would only measure it).
class LogCapture {
 public:
  LogCapture() : previous_(spdlog::default_logger()) {
    auto logger = std::make_shared<spdlog::logger>("capture", std::make_shared<spdlog::sinks::ostream_sink_mt>(text_));
    logger->set_level(spdlog::level::info);
    spdlog::set_default_logger(logger);
  }
  ~LogCapture() { spdlog::set_default_logger(previous_); }
  std::string text() const { return text_.str(); }

 private:
  std::ostringstream text_;
  std::shared_ptr<spdlog::logger> previous_;
};

RestConfig config_for(const ScriptedServer& s) {
  RestConfig c;
  c.server = s.url();
  return c;
}

TEST(RetryOverHttp, TooManyRequestsWithRetryAfterIsRetried) {
  ScriptedServer server({{429, "1", kThrottled}, {200, "", R"({"kind":"ConfigMap","metadata":{"name":"c"}})"}});
  ClientOptions o;
  o.retry_backoff = std::chrono::milliseconds(0);  // without Retry-After: no wait at all
  RestClient c(config_for(server), o);
  LogCapture log;
  auto r = c.get(resources::config_maps(), "n", "c");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(server.requests(), 2);
  EXPECT_NE(log.text().find("throttled by the server (429), retrying in 1000 ms"), std::string::npos)
      << "Retry-After: 1 honoured; the log says:\n" << log.text();
}

TEST(RetryOverHttp, RetryAfterIsClampedToTheConfiguredMaximum) {
  ScriptedServer server({{429, "3600", kThrottled}, {200, "", R"({"kind":"ConfigMap","metadata":{"name":"c"}})"}});
  ClientOptions o;
  o.max_retry_after = std::chrono::seconds(0);
  RestClient c(config_for(server), o);
  LogCapture log;
  auto r = c.get(resources::config_maps(), "n", "c");
  ASSERT_TRUE(r.ok()) << r.error().to_string();
  EXPECT_EQ(server.requests(), 2);
  EXPECT_NE(log.text().find("retrying in 0 ms"), std::string::npos) << log.text();
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
  testing::RefusingPort refusing;
  RestConfig c;
  c.server = refusing.url();
  ClientOptions o;
  o.max_retries = 0;
  RestClient client(c, o);
  auto r = client.create(resources::config_maps(), "n", nlohmann::json::object());
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.error().kind, ErrorKind::kTransport) << r.error().to_string();
}

}  // namespace
}  // namespace dgd::kube
