// The REST client's write gate (set_write_gate, installed by leader election) is asked
// before every attempt, not only the first: a write throttled with 429 + Retry-After
// while its process was leader must not be sent again once leadership is lost, or it
// would land after another replica took over.
// Attempts are counted in kube-sim's request log.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "common/kubesim_process.h"
#include "dgd/kube/rest_client.h"

#include <atomic>
#include <chrono>
#include <thread>

namespace dgd::kube {
namespace {

using nlohmann::json;
using testing::KubeSimProcess;

constexpr const char* kAgent = "write-gate-test/1.0";

std::vector<int> create_attempts(KubeSimProcess& sim) {
  auto body = sim.admin("GET", "/sim/v1/requests");
  EXPECT_TRUE(body.ok()) << body.error().to_string();
  std::vector<int> codes;
  if (!body.ok()) return codes;
  const json log = json::parse(*body);
  for (const auto& r : log["items"])
    if (r.value("userAgent", "") == kAgent && r.value("verb", "") == "create") codes.push_back(r.value("code", 0));
  return codes;
}

// kube-sim logs a request after it has answered it: the client may see the answer first.
std::vector<int> create_attempts_once(KubeSimProcess& sim, size_t expected) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::vector<int> codes = create_attempts(sim);
  while (codes.size() < expected && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    codes = create_attempts(sim);
  }
  return codes;
}

TEST(RestWriteGate, RetryAfterLeadershipIsLostIsNotSent) {
  KubeSimProcess sim;
  ASSERT_TRUE(sim.ok()) << sim.log();
  ClientOptions o;
  o.user_agent = kAgent;
  o.max_retries = 5;
  RestClient client(sim.config(), o);
  // Leader for the first attempt only, as if the lease ran out during the Retry-After wait.
  std::atomic<int> asked{0};
  client.set_write_gate([&] { return asked++ == 0; });
  ASSERT_TRUE(sim.admin("POST", "/sim/v1/faults",
                        json{{"code", 429}, {"count", 1}, {"retryAfterSeconds", 1}, {"verb", "create"},
                             {"userAgent", kAgent}}.dump())
                  .ok());
  json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "late"}, {"namespace", "default"}}}};
  auto created = client.create(resources::config_maps(), "default", cm);
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().kind, ErrorKind::kNotLeader) << created.error().to_string();
  EXPECT_EQ(create_attempts(sim), (std::vector<int>{429}));  // the retry never reached the server
  EXPECT_GE(asked.load(), 2);
}

TEST(RestWriteGate, RetryWhileStillLeaderIsSent) {
  KubeSimProcess sim;
  ASSERT_TRUE(sim.ok()) << sim.log();
  ClientOptions o;
  o.user_agent = kAgent;
  o.max_retries = 5;
  RestClient client(sim.config(), o);
  client.set_write_gate([] { return true; });
  ASSERT_TRUE(sim.admin("POST", "/sim/v1/faults",
                        json{{"code", 429}, {"count", 1}, {"retryAfterSeconds", 1}, {"verb", "create"},
                             {"userAgent", kAgent}}.dump())
                  .ok());
  json cm = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "kept"}, {"namespace", "default"}}}};
  auto created = client.create(resources::config_maps(), "default", cm);
  ASSERT_TRUE(created.ok()) << created.error().to_string();
  EXPECT_EQ(create_attempts_once(sim, 2), (std::vector<int>{429, 201}));
}

}  // namespace
}  // namespace dgd::kube
