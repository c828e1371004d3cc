// The REST client's retry policy (rest_client.h) against kube-sim over real HTTP, with
// status-code faults injected through /sim/v1/faults (docs/kube-sim.md): 429 with
// Retry-After and 503 on a GET are retried until they succeed, 403 is reported after one
// attempt, 500 on a POST is not retried. Attempts are counted from kube-sim's request log.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include <nlohmann/json.hpp>

#include "common/kubesim_process.h"
#include "dgd/kube/rest_client.h"

namespace dgd::kube {
namespace {

using nlohmann::json;
using testing::KubeSimProcess;

constexpr const char* kAgent = "fault-test-client/1.0";

json config_map(const std::string& name) {
  return {{"apiVersion", "v1"},
          {"kind", "ConfigMap"},
          {"metadata", {{"name", name}, {"namespace", "default"}}},
          {"data", {{"k", "v"}}}};
}

ClientOptions retrying() {
  ClientOptions o;
  o.user_agent = kAgent;
  o.max_retries = 5;
  o.retry_backoff = std::chrono::milliseconds(10);
  o.retry_backoff_max = std::chrono::milliseconds(50);
  o.timeout = std::chrono::seconds(10);
  return o;
}

// Injects a fault that only hits requests of this test's client.
void inject(KubeSimProcess& sim, json fault) {
  fault["userAgent"] = kAgent;
  auto r = sim.admin("POST", "/sim/v1/faults", fault.dump());
  ASSERT_TRUE(r.ok()) << r.error().to_string();
}

// HTTP codes of this client's `verb` requests on configmaps, in order.
std::vector<int> attempts(KubeSimProcess& sim, const std::string& verb) {
  auto body = sim.admin("GET", "/sim/v1/requests");
  EXPECT_TRUE(body.ok()) << body.error().to_string();
  std::vector<int> codes;
  if (!body.ok()) return codes;
  const json log = json::parse(*body);
  for (const auto& r : log["items"])
    if (r.value("userAgent", "") == kAgent && r.value("verb", "") == verb && r.value("resource", "") == "configmaps")
      codes.push_back(r.value("code", 0));
  return codes;
}

// The client's call has returned, so every attempt was made; kube-sim may log the last
// one just after its response went out: poll the log (generous deadline) until it matches.
std::vector<int> settled_attempts(KubeSimProcess& sim, const std::string& verb, const std::vector<int>& want) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  std::vector<int> codes = attempts(sim, verb);
  while (codes != want && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    codes = attempts(sim, verb);
  }
  return codes;
}

struct SimWithConfigMap {
  KubeSimProcess sim;
  std::unique_ptr<RestClient> client;
  SimWithConfigMap() {
    if (!sim.ok()) return;
    client = std::make_unique<RestClient>(sim.config(), retrying());
    auto created = client->create(resources::config_maps(), "default", config_map("cm"));
    EXPECT_TRUE(created.ok()) << created.error().to_string();
  }
};

TEST(KubeSimFaults, TooManyRequestsWithRetryAfterIsRetriedUntilItSucceeds) {
  SimWithConfigMap s;
  ASSERT_TRUE(s.sim.ok()) << s.sim.log();
  inject(s.sim, {{"code", 429}, {"count", 2}, {"retryAfterSeconds", 1}, {"verb", "get"}, {"resource", "configmaps"}});
  auto got = s.client->get(resources::config_maps(), "default", "cm");
  ASSERT_TRUE(got.ok()) << got.error().to_string();
  EXPECT_EQ((*got)["metadata"]["name"], "cm");
  EXPECT_EQ(settled_attempts(s.sim, "get", {429, 429, 200}), (std::vector<int>{429, 429, 200}));
  // The budget is spent: the fault is gone.
  EXPECT_EQ(json::parse(*s.sim.admin("GET", "/sim/v1/faults"))["items"].size(), 0u);
}

TEST(KubeSimFaults, TooManyRequestsReachesTheCallerWithRetryAfterWhenRetriesAreOff) {
  SimWithConfigMap s;
  ASSERT_TRUE(s.sim.ok()) << s.sim.log();
  ClientOptions o = retrying();
  o.max_retries = 0;
  RestClient once(s.sim.config(), o);
  inject(s.sim, {{"code", 429}, {"count", 1}, {"retryAfterSeconds", 7}});
  auto got = once.get(resources::config_maps(), "default", "cm");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().kind, ErrorKind::kTooManyRequests) << got.error().to_string();
  EXPECT_EQ(got.error().reason, "TooManyRequests");
  ASSERT_TRUE(got.error().retry_after.has_value());
  EXPECT_EQ(*got.error().retry_after, std::chrono::seconds(7));
}

TEST(KubeSimFaults, ServiceUnavailableOnGetIsRetriedUntilItSucceeds) {
  SimWithConfigMap s;
  ASSERT_TRUE(s.sim.ok()) << s.sim.log();
  inject(s.sim, {{"code", 503}, {"count", 2}, {"verb", "get"}});
  auto got = s.client->get(resources::config_maps(), "default", "cm");
  ASSERT_TRUE(got.ok()) << got.error().to_string();
  EXPECT_EQ(settled_attempts(s.sim, "get", {503, 503, 200}), (std::vector<int>{503, 503, 200}));
}

TEST(KubeSimFaults, ForbiddenIsReportedAfterOneAttempt) {
  SimWithConfigMap s;
  ASSERT_TRUE(s.sim.ok()) << s.sim.log();
  inject(s.sim, {{"code", 403}, {"count", 3}, {"verb", "get"}, {"resource", "configmaps"}});
  auto got = s.client->get(resources::config_maps(), "default", "cm");
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.error().kind, ErrorKind::kForbidden) << got.error().to_string();
  EXPECT_EQ(got.error().code, 403);
  EXPECT_EQ(got.error().reason, "Forbidden");
  EXPECT_NE(got.error().message.find("cannot get resource \"configmaps\""), std::string::npos)
      << got.error().message;
  EXPECT_EQ(settled_attempts(s.sim, "get", {403}), (std::vector<int>{403}));
}

TEST(KubeSimFaults, InternalErrorOnCreateIsNotRetried) {
  SimWithConfigMap s;
  ASSERT_TRUE(s.sim.ok()) << s.sim.log();
  inject(s.sim, {{"code", 500}, {"count", 3}, {"verb", "create"}});
  auto created = s.client->create(resources::config_maps(), "default", config_map("second"));
  ASSERT_FALSE(created.ok());
  EXPECT_EQ(created.error().kind, ErrorKind::kInternalError) << created.error().to_string();
  // One create for "cm" in the fixture, then exactly one faulted attempt.
  EXPECT_EQ(settled_attempts(s.sim, "create", {201, 500}), (std::vector<int>{201, 500}));
}

TEST(KubeSimFaults, TooManyRequestsOnCreateIsRetriedAndCreatesOnce) {
  SimWithConfigMap s;
  ASSERT_TRUE(s.sim.ok()) << s.sim.log();
  inject(s.sim, {{"code", 429}, {"count", 1}, {"verb", "create"}});
  auto created = s.client->create(resources::config_maps(), "default", config_map("second"));
  ASSERT_TRUE(created.ok()) << created.error().to_string();
  EXPECT_EQ(settled_attempts(s.sim, "create", {201, 429, 201}), (std::vector<int>{201, 429, 201}));
}

TEST(KubeSimFaults, SelectorsListAndClear) {
  SimWithConfigMap s;
  ASSERT_TRUE(s.sim.ok()) << s.sim.log();
  ClientOptions o = retrying();
  o.max_retries = 0;
  RestClient once(s.sim.config(), o);
  // A fault for another resource, verb or user agent leaves this client alone.
  inject(s.sim, {{"code", 503}, {"count", 5}, {"resource", "secrets"}});
  inject(s.sim, {{"code", 503}, {"count", 5}, {"verb", "list"}});
  ASSERT_TRUE(s.sim.admin("POST", "/sim/v1/faults", json({{"code", 503}, {"userAgent", "someone-else"}}).dump()).ok());
  EXPECT_TRUE(once.get(resources::config_maps(), "default", "cm").ok());
  auto listed = json::parse(*s.sim.admin("GET", "/sim/v1/faults"))["items"];
  ASSERT_EQ(listed.size(), 3u);
  EXPECT_EQ(listed[0]["resource"], "secrets");
  EXPECT_EQ(listed[0]["remaining"], 5);
  EXPECT_FALSE(once.list(resources::config_maps(), "default").ok());  // the "list" fault
  ASSERT_TRUE(s.sim.admin("DELETE", "/sim/v1/faults").ok());
  EXPECT_EQ(json::parse(*s.sim.admin("GET", "/sim/v1/faults"))["items"].size(), 0u);
  EXPECT_TRUE(once.list(resources::config_maps(), "default").ok());
  // A malformed fault is refused.
  auto bad = s.sim.admin("POST", "/sim/v1/faults", R"({"code": 200})");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().code, 400);
}

}  // namespace
}  // namespace dgd::kube
