// ServingChecks (serving.h): when checks run, what the Serving condition says, that an
// unchanged failure is retried without changing the condition, and that a slow frontend
// does not hold up another DGD's check. The HTTP call is a fake transport. "No check ran"
// is asserted after a marker DGD's check has run to its end on the only worker, never
// after a pause.
#include "dgd/reconcile/serving.h"

#include <gtest/gtest.h>

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>

#include "dgd/reconcile/smoke_http.h"

namespace dgd::reconcile {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

using Answer = std::function<SmokeExchange(const kube::CancelToken&)>;

class FakeTransport final : public SmokeTransport {
 public:
  explicit FakeTransport(Answer a) : answer_(std::move(a)) {}
  SmokeExchange post(const std::string&, std::chrono::milliseconds, const kube::CancelToken& cancel) override {
    return answer_(cancel);
  }
  std::string where() const override { return "fake"; }

 private:
  Answer answer_;
};

SmokeExchange answer(const json& content, const std::string& finish = "stop", int status = 200) {
  SmokeExchange ex;
  ex.status = status;
  ex.body = json{{"choices", json::array({{{"message", {{"role", "assistant"}, {"content", content}}}, {"finish_reason", finish}}})},
                 {"usage", {{"prompt_tokens", 12}, {"completion_tokens", content.is_null() ? 0 : 1}}}}
                .dump();
  return ex;
}

SmokeExchange http_error(int status) {
  SmokeExchange ex;
  ex.status = status;
  ex.body = R"({"error":{"message":"boom"}})";
  return ex;
}

// Per-namespace answers the test can change; counts requeues.
struct Harness {
  std::mutex mu;
  std::condition_variable cv;
  std::map<std::string, Answer> answers;  // ns -> answer
  std::vector<std::string> requeued;
  ServingOptions options;
  std::unique_ptr<ServingChecks> checks;
  std::optional<ServingChecks::Stopper> stopper;

  explicit Harness(int concurrency = 2) {
    options.retry_initial_seconds = 0.02;
    options.retry_max_seconds = 0.05;
    options.concurrency = concurrency;
    checks = std::make_unique<ServingChecks>(options, [this](const std::string& ns, const SmokePlan&) {
      Answer a;
      {
        std::lock_guard<std::mutex> lock(mu);
        a = answers[ns];
      }
      return std::make_unique<FakeTransport>(a);
    });
    stopper.emplace(checks->start([this](const std::string& key) {
      std::lock_guard<std::mutex> lock(mu);
      requeued.push_back(key);
      cv.notify_all();
    }));
  }
  ~Harness() { stopper.reset(); }

  void set(const std::string& ns, Answer a) {
    std::lock_guard<std::mutex> lock(mu);
    answers[ns] = std::move(a);
  }
  size_t requeues() {
    std::lock_guard<std::mutex> lock(mu);
    return requeued.size();
  }
  // Waits (generously) until `n` requeues happened.
  bool wait_requeues(size_t n) {
    std::unique_lock<std::mutex> lock(mu);
    return cv.wait_for(lock, 20s, [&] { return requeued.size() >= n; });
  }
  bool wait_checks(uint64_t n) {
    for (auto deadline = std::chrono::steady_clock::now() + 20s; std::chrono::steady_clock::now() < deadline;) {
      if (checks->checks_started() >= n) return true;
      std::this_thread::sleep_for(5ms);
    }
    return false;
  }
};

SmokePlan plan(bool disagg = false) {
  SmokePlan p;
  p.enabled = true;
  p.model = "deepseek-ai/DeepSeek-V4.1-Flash";
  p.frontend_service = "g-frontend";
  p.disaggregated = disagg;
  return p;
}

ServingChecks::Observation observe(Harness& h, const std::string& ns, int64_t gen, bool ready, const SmokePlan& p = plan(),
                                   std::optional<Condition> previous = std::nullopt) {
  return h.checks->observe(ns + "/g", ns, "uid-" + ns, gen, ready, p, previous);
}

// Runs the check of a marker DGD, "z/g", to its end: its requeue comes after its result
// was handled. With one worker (Harness(1)), which takes due checks in key order ("z/g"
// last), every check due before the marker has then started, and every check started
// before it has had its result handled.
void run_marker_check(Harness& h) {
  size_t before = h.requeues();
  h.set("z", [](const kube::CancelToken&) { return answer("READY"); });
  observe(h, "z", 1, true);
  ASSERT_TRUE(h.wait_requeues(before + 1));
  std::lock_guard<std::mutex> lock(h.mu);
  EXPECT_EQ(h.requeued.back(), "z/g");
}

TEST(ServingChecks, NothingRunsBeforeReady) {
  Harness h(1);
  h.set("a", [](const kube::CancelToken&) { return answer("READY"); });
  auto o = observe(h, "a", 1, false);
  ASSERT_TRUE(o.condition);
  EXPECT_EQ(o.condition->status, "Unknown");
  EXPECT_EQ(o.condition->reason, kReasonAwaitingReady);
  run_marker_check(h);
  EXPECT_EQ(h.checks->checks_started(), 1u) << "only the marker's check ran";
}

TEST(ServingChecks, ReadyGraphGetsServingTrueWithOneEvent) {
  Harness h(1);
  h.set("a", [](const kube::CancelToken&) { return answer("READY"); });
  auto pending = observe(h, "a", 1, true);
  ASSERT_TRUE(pending.condition);
  EXPECT_EQ(pending.condition->reason, kReasonSmokeTestPending);
  ASSERT_TRUE(h.wait_requeues(1));
  EXPECT_EQ(h.requeued[0], "a/g");
  auto done = observe(h, "a", 1, true);
  ASSERT_TRUE(done.condition);
  EXPECT_EQ(done.condition->status, "True");
  EXPECT_EQ(done.condition->reason, kReasonSmokeTestPassed);
  ASSERT_TRUE(done.event);
  EXPECT_EQ(std::get<0>(*done.event), "Normal");
  EXPECT_NE(std::get<2>(*done.event).find("READY"), std::string::npos);
  // Read again at rest: same condition, no second event, no new check.
  auto again = observe(h, "a", 1, true);
  EXPECT_EQ(again.condition->message, done.condition->message);
  EXPECT_FALSE(again.event);
  run_marker_check(h);
  EXPECT_EQ(h.checks->checks_started(), 2u) << "a's check and the marker's, no second check of a";
}

TEST(ServingChecks, UnchangedFailureIsRetriedWithoutChangingTheCondition) {
  Harness h;
  h.set("a", [](const kube::CancelToken&) { return answer(nullptr, "stop"); });
  observe(h, "a", 1, true, plan(true));
  ASSERT_TRUE(h.wait_requeues(1));
  auto first = observe(h, "a", 1, true, plan(true));
  ASSERT_TRUE(first.condition);
  EXPECT_EQ(first.condition->status, "False");
  EXPECT_EQ(first.condition->reason, "EmptyContent");
  EXPECT_NE(first.condition->message.find("KV transfer"), std::string::npos);
  ASSERT_TRUE(first.event);
  EXPECT_EQ(std::get<0>(*first.event), "Warning");
  // Back-off retries run (0.02 s doubling to 0.05 s) but change nothing.
  ASSERT_TRUE(h.wait_checks(4));
  auto later = observe(h, "a", 1, true, plan(true));
  EXPECT_EQ(later.condition->message, first.condition->message);
  EXPECT_FALSE(later.event);
  EXPECT_EQ(h.requeues(), 1u);
}

TEST(ServingChecks, FixedFrontendTurnsServingTrueOnARetry) {
  Harness h;
  h.set("a", [](const kube::CancelToken&) { return http_error(500); });
  observe(h, "a", 1, true);
  ASSERT_TRUE(h.wait_requeues(1));
  auto failed = observe(h, "a", 1, true);
  EXPECT_EQ(failed.condition->reason, "HTTPError");
  EXPECT_NE(failed.condition->message.find("HTTP 500"), std::string::npos);
  h.set("a", [](const kube::CancelToken&) { return answer("READY"); });
  ASSERT_TRUE(h.wait_requeues(2));
  auto fixed = observe(h, "a", 1, true);
  EXPECT_EQ(fixed.condition->status, "True");
}

TEST(ServingChecks, ADifferentHttpStatusIsAChange) {
  Harness h;
  h.set("a", [](const kube::CancelToken&) { return http_error(500); });
  observe(h, "a", 1, true);
  ASSERT_TRUE(h.wait_requeues(1));
  observe(h, "a", 1, true);
  h.set("a", [](const kube::CancelToken&) { return http_error(503); });
  ASSERT_TRUE(h.wait_requeues(2));
  auto o = observe(h, "a", 1, true);
  EXPECT_NE(o.condition->message.find("HTTP 503"), std::string::npos) << o.condition->message;
}

TEST(ServingChecks, NewGenerationAndNotReadyInBetweenRunTheCheckAgain) {
  Harness h;
  h.set("a", [](const kube::CancelToken&) { return answer("READY"); });
  observe(h, "a", 1, true);
  ASSERT_TRUE(h.wait_requeues(1));
  EXPECT_EQ(observe(h, "a", 1, true).condition->status, "True");
  // Rollout of generation 2: not Ready first, then Ready with a broken answer.
  h.set("a", [](const kube::CancelToken&) { return answer(nullptr, "length"); });
  EXPECT_EQ(observe(h, "a", 2, false).condition->reason, kReasonAwaitingReady);
  observe(h, "a", 2, true);
  ASSERT_TRUE(h.wait_requeues(2));
  auto o = observe(h, "a", 2, true);
  EXPECT_EQ(o.condition->reason, "ReasoningBudgetExhausted");
  EXPECT_EQ(h.checks->checks_started(), 2u);
}

TEST(ServingChecks, PendingCheckKeepsTheLiveCondition) {
  // An operator restart: the status already says Serving=True; until the new result is
  // in, the condition stays exactly as it is (no write).
  Harness h(1);
  std::atomic<bool> release{false};
  h.set("a", [&](const kube::CancelToken& c) {
    while (!release && !c.cancelled()) std::this_thread::sleep_for(1ms);
    return answer("READY");
  });
  Condition live{kConditionServing, "True", kReasonSmokeTestPassed,
                 "the frontend answered the smoke request (model deepseek-ai/DeepSeek-V4.1-Flash)"};
  auto o = observe(h, "a", 1, true, plan(), live);
  EXPECT_EQ(o.condition->message, live.message);
  EXPECT_EQ(o.condition->status, "True");
  release = true;
  // Same outcome as the live condition: nothing to requeue.
  run_marker_check(h);
  EXPECT_EQ(h.requeues(), 1u) << "only the marker requeued: a's unchanged outcome needs no write";
  auto after = observe(h, "a", 1, true, plan(), live);
  EXPECT_EQ(after.condition->message, live.message);
  EXPECT_FALSE(after.event);
}

TEST(ServingChecks, HangingFrontendDoesNotBlockAnotherDgd) {
  Harness h(2);
  h.set("slow", [](const kube::CancelToken& c) {
    while (!c.cancelled()) std::this_thread::sleep_for(1ms);
    SmokeExchange ex;
    ex.failure = SmokeExchange::Failure::kTimeout;
    return ex;
  });
  h.set("fast", [](const kube::CancelToken&) { return answer("READY"); });
  observe(h, "slow", 1, true);
  ASSERT_TRUE(h.wait_checks(1));
  observe(h, "fast", 1, true);
  ASSERT_TRUE(h.wait_requeues(1));
  EXPECT_EQ(h.requeued[0], "fast/g");
  EXPECT_EQ(observe(h, "fast", 1, true).condition->status, "True");
  // stop() cancels the hanging check (the destructor would hang otherwise).
  h.stopper.reset();
}

TEST(ServingChecks, DisabledOrNoModelName) {
  Harness h(1);
  SmokePlan off = plan();
  off.enabled = false;
  EXPECT_FALSE(observe(h, "a", 1, true, off).condition);
  SmokePlan nameless = plan();
  nameless.model.clear();
  auto o = observe(h, "a", 1, true, nameless);
  ASSERT_TRUE(o.condition);
  EXPECT_EQ(o.condition->reason, kReasonNoServedModelName);
  run_marker_check(h);
  EXPECT_EQ(h.checks->checks_started(), 1u) << "only the marker's check ran";
}

TEST(ServingChecks, ForgetDropsAResultInFlight) {
  Harness h(1);
  std::atomic<bool> release{false};
  h.set("a", [&](const kube::CancelToken& c) {
    while (!release && !c.cancelled()) std::this_thread::sleep_for(1ms);
    return answer("READY");
  });
  observe(h, "a", 1, true);
  ASSERT_TRUE(h.wait_checks(1));
  h.checks->forget("a/g");
  release = true;
  run_marker_check(h);
  EXPECT_EQ(h.requeues(), 1u) << "only the marker requeued: a's result was dropped";
}

}  // namespace
}  // namespace dgd::reconcile
