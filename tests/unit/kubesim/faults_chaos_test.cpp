// Random faults (faults_chaos.h) and the transport outage (HttpServer::begin_outage).
#include "kubesim/api_server.h"
#include "kubesim/faults_chaos.h"
#include "kubesim/http_server.h"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <set>
#include <thread>

namespace kubesim {
namespace {

using nlohmann::json;

TEST(ChaosFaultsTest, RejectsBadProfilesNamingTheField) {
  ChaosFaults f;
  auto msg = [&](const json& body) {
    try {
      f.set(body);
    } catch (const ApiError& e) {
      EXPECT_EQ(e.code(), 400);
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(msg({{"throttle", 1.5}}).find("throttle"), std::string::npos);
  EXPECT_NE(msg({{"conflict", -0.1}}).find("conflict"), std::string::npos);
  EXPECT_NE(msg({{"throtle", 0.1}}).find("throtle: unknown field"), std::string::npos);
  EXPECT_NE(msg({{"verbs", {"explode"}}}).find("unknown verb"), std::string::npos);
  EXPECT_NE(msg({{"conflict", 0.6}, {"throttle", 0.6}}).find("must not exceed 1"), std::string::npos);
  EXPECT_NE(msg(json::array()).find("JSON object"), std::string::npos);
  EXPECT_FALSE(f.enabled());
}

TEST(ChaosFaultsTest, OffByDefaultAndAfterClear) {
  ChaosFaults f;
  EXPECT_FALSE(f.on_request("get", "pods", "", "p", "x").error);
  f.set({{"throttle", 1.0}});
  EXPECT_TRUE(f.on_request("get", "pods", "", "p", "x").error);
  f.clear();
  EXPECT_FALSE(f.on_request("get", "pods", "", "p", "x").error);
  EXPECT_EQ(f.injected()["throttle"], 1);  // counters outlive the profile
}

TEST(ChaosFaultsTest, ConflictOnlyForWritesWithTheRealStatus) {
  ChaosFaults f;
  f.set({{"conflict", 1.0}});
  auto d = f.on_request("patch", "deployments", "apps", "web", "dgd-operator/0.1.0");
  ASSERT_TRUE(d.error);
  EXPECT_EQ(d.error->code(), 409);
  json st = d.error->to_status();
  EXPECT_EQ(st["reason"], "Conflict");
  EXPECT_EQ(st["message"],
            "Operation cannot be fulfilled on deployments.apps \"web\": the object has been modified; please apply "
            "your changes to the latest version and try again");
  EXPECT_TRUE(f.on_request("update", "configmaps", "", "c", "x").error);
  for (const char* verb : {"get", "list", "watch", "create", "delete"})
    EXPECT_FALSE(f.on_request(verb, "deployments", "apps", "web", "x").error) << verb;
}

TEST(ChaosFaultsTest, ThrottleCarriesRetryAfterAndServerErrorsAre500Or503) {
  ChaosFaults f;
  f.set({{"throttle", 1.0}, {"retryAfterSeconds", 3}});
  auto d = f.on_request("list", "pods", "", "", "x");
  ASSERT_TRUE(d.error);
  EXPECT_EQ(d.error->code(), 429);
  EXPECT_EQ(d.error->to_status()["reason"], "TooManyRequests");
  EXPECT_EQ(d.error->to_status()["details"]["retryAfterSeconds"], 3);

  f.set({{"serverError", 1.0}, {"seed", 5}});
  std::set<int> codes;
  for (int i = 0; i < 200; ++i) codes.insert(f.on_request("get", "pods", "", "p", "x").error->code());
  EXPECT_EQ(codes, (std::set<int>{500, 503}));
  json inj = f.injected();
  EXPECT_EQ(inj["serverError500"].get<int>() + inj["serverError503"].get<int>(), 200);
}

TEST(ChaosFaultsTest, FractionsHoldOverManyRequests) {
  ChaosFaults f;
  f.set({{"seed", 11}, {"conflict", 0.1}, {"throttle", 0.2}, {"serverError", 0.1}});
  int n = 20000, conflict = 0, throttle = 0, server = 0, ok = 0;
  for (int i = 0; i < n; ++i) {
    auto d = f.on_request("patch", "deployments", "apps", "w", "x");
    if (!d.error) ++ok;
    else if (d.error->code() == 409) ++conflict;
    else if (d.error->code() == 429) ++throttle;
    else ++server;
  }
  // Binomial: 5 standard deviations are well under these bounds.
  EXPECT_NEAR(conflict, n * 0.1, 250);
  EXPECT_NEAR(throttle, n * 0.2, 300);
  EXPECT_NEAR(server, n * 0.1, 250);
  EXPECT_NEAR(ok, n * 0.6, 400);
}

TEST(ChaosFaultsTest, SameSeedSameSequence) {
  auto run = [](uint64_t seed) {
    ChaosFaults f;
    f.set({{"seed", seed}, {"throttle", 0.3}, {"serverError", 0.3}, {"jitterMs", 50}});
    std::vector<int> out;
    for (int i = 0; i < 100; ++i) {
      auto d = f.on_request("get", "pods", "", "p", "x");
      out.push_back(d.error ? d.error->code() : 0);
      out.push_back(static_cast<int>(d.delay.count()));
    }
    return out;
  };
  EXPECT_EQ(run(42), run(42));
  EXPECT_NE(run(42), run(43));
}

TEST(ChaosFaultsTest, SelectorsAndExemptUserAgents) {
  ChaosFaults f;
  f.set({{"throttle", 1.0},
         {"userAgents", {"dgd-operator"}},
         {"exemptUserAgents", {"leader-election"}},
         {"verbs", {"get", "patch"}},
         {"resources", {"deployments"}}});
  EXPECT_TRUE(f.on_request("get", "deployments", "apps", "a", "dgd-operator/0.1.0").error);
  EXPECT_FALSE(f.on_request("get", "deployments", "apps", "a", "kubectl/v1.32.4").error);
  EXPECT_FALSE(f.on_request("get", "deployments", "apps", "a", "dgd-operator/leader-election").error);
  EXPECT_FALSE(f.on_request("list", "deployments", "apps", "", "dgd-operator/0.1.0").error);
  EXPECT_FALSE(f.on_request("get", "services", "", "a", "dgd-operator/0.1.0").error);
  EXPECT_FALSE(f.on_watch("deployments", "dgd-operator/0.1.0", true).expire);
}

TEST(ChaosFaultsTest, LatencyIsFixedPlusBoundedJitter) {
  ChaosFaults f;
  f.set({{"latencyMs", 10}, {"jitterMs", 5}});
  std::set<long long> seen;
  for (int i = 0; i < 500; ++i) {
    auto d = f.on_request("get", "pods", "", "p", "x");
    EXPECT_FALSE(d.error);
    EXPECT_GE(d.delay.count(), 10);
    EXPECT_LE(d.delay.count(), 15);
    seen.insert(d.delay.count());
  }
  EXPECT_EQ(seen.size(), 6u);
  EXPECT_EQ(f.injected()["latency"], 500);
}

TEST(ChaosFaultsTest, WatchPlans) {
  ChaosFaults f;
  f.set({{"expireResume", 1.0}, {"watchCutEvery", 7}});
  EXPECT_TRUE(f.on_watch("pods", "x", /*resuming=*/true).expire);
  WatchChaos fresh = f.on_watch("pods", "x", /*resuming=*/false);
  EXPECT_FALSE(fresh.expire);  // a watch from "now" cannot be too old
  EXPECT_EQ(fresh.cut_after, 7u);

  f.set({{"watchMaxSeconds", 2.0}, {"watchCut", 1.0}});
  WatchChaos w = f.on_watch("pods", "x", true);
  EXPECT_FALSE(w.expire);
  EXPECT_GT(w.cut_at.count(), 0);
  EXPECT_LE(w.cut_at.count(), 2001);
  EXPECT_TRUE(f.cut_now(w));
  EXPECT_EQ(f.injected()["watchCut"], 1);
  EXPECT_EQ(f.injected()["watchExpired"], 1);
}

// -- the transport ------------------------------------------------------------------

// One HTTP/1.1 GET over a fresh connection; "" when the connection is refused.
std::string http_get(uint16_t port, const std::string& path) {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  ::inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
    ::close(fd);
    return "";
  }
  std::string req = "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
  (void)!::write(fd, req.data(), req.size());
  std::string out;
  char buf[4096];
  for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) out.append(buf, static_cast<size_t>(n));
  ::close(fd);
  return out.empty() ? "<cut>" : out;
}

template <class F>
bool eventually(F f) {
  for (int i = 0; i < 2000; ++i) {  // 20 s or more: a loaded machine
    if (f()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(OutageTest, RefusesConnectionsThenServesTheSameStoreOnTheSamePort) {
  ResourceRegistry registry;
  Store store(registry, StoreOptions{});
  TokenAuthenticator tokens;
  RequestLog log;
  ApiServer api(store, tokens, log, ApiServerOptions{});
  HttpServer server(api, HttpServerOptions{});
  server.start();
  const uint16_t port = server.port();
  store.create(*registry.find("", "v1", "configmaps"), "default",
               {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "kept"}}}}, WriteOptions{});
  ASSERT_NE(http_get(port, "/healthz").find("200 OK"), std::string::npos);

  bool compacted = false;
  ASSERT_TRUE(server.begin_outage(std::chrono::milliseconds(1500), [&] { compacted = true; }));
  EXPECT_FALSE(server.begin_outage(std::chrono::milliseconds(400)));  // one at a time
  ASSERT_TRUE(eventually([&] { return http_get(port, "/healthz").empty(); })) << "connections not refused";
  ASSERT_TRUE(eventually([&] { return !server.in_outage(); }));
  EXPECT_TRUE(compacted);
  std::string got = http_get(port, "/api/v1/namespaces/default/configmaps/kept");
  EXPECT_NE(got.find("200 OK"), std::string::npos) << got;
  server.stop();
}

TEST(OutageTest, StopEndsAnOutageEarly) {
  ResourceRegistry registry;
  Store store(registry, StoreOptions{});
  TokenAuthenticator tokens;
  RequestLog log;
  ApiServer api(store, tokens, log, ApiServerOptions{});
  HttpServer server(api, HttpServerOptions{});
  server.start();
  // An outage of a day: stop() returning at all (no timing) shows that it ended the outage;
  // if it waited the outage out, ctest's time limit would end the test.
  ASSERT_TRUE(server.begin_outage(std::chrono::hours(24)));
  ASSERT_TRUE(eventually([&] { return http_get(server.port(), "/healthz").empty(); }));
  server.stop();
  EXPECT_EQ(server.open_connections(), 0u);
}

}  // namespace
}  // namespace kubesim
