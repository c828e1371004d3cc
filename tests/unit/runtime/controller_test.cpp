#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <spdlog/sinks/ringbuffer_sink.h>
#include <spdlog/spdlog.h>
#include <thread>

#include "common/prom_text.h"
#include "dgd/kube/metrics.h"
#include "dgd/runtime/controller.h"

namespace dgd::runtime {
namespace {

using namespace std::chrono_literals;

template <class F>
bool eventually(F f, std::chrono::milliseconds limit = 10s) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (f()) return true;
    std::this_thread::sleep_for(2ms);
  }
  return f();
}

TEST(ObjectKey, ParsesNamespacedAndClusterKeys) {
  EXPECT_EQ(ObjectKey::parse("ns/name"), (ObjectKey{"ns", "name"}));
  EXPECT_EQ(ObjectKey::parse("node-1"), (ObjectKey{"", "node-1"}));
  EXPECT_EQ((ObjectKey{"a", "b"}).str(), "a/b");
}

TEST(Controller, ErrorsAreRetriedWithBackoffUntilSuccess) {
  std::atomic<int> calls{0};
  auto metrics = std::make_shared<kube::MetricsRegistry>();
  ControllerOptions o;
  o.name = "test";
  o.metrics = metrics;
  Controller c(o, std::make_shared<FnReconciler>([&](const ObjectKey& k) {
    EXPECT_EQ(k, (ObjectKey{"ns", "a"}));
    return ++calls < 3 ? ReconcileResult::failed("not yet") : ReconcileResult::done();
  }));
  c.start();
  c.queue().add("ns/a");
  ASSERT_TRUE(eventually([&] { return calls.load() == 3; }));
  ASSERT_TRUE(eventually([&] { return c.queue().num_requeues("ns/a") == 0; })) << "success forgets the failures";
  c.stop();
  std::string text = metrics->render();
  EXPECT_EQ(testing::check_prometheus_text(text), "") << text;
  EXPECT_NE(text.find("controller_runtime_reconcile_total{controller=\"test\",result=\"error\"} 2"), std::string::npos);
  EXPECT_NE(text.find("controller_runtime_reconcile_total{controller=\"test\",result=\"success\"} 1"), std::string::npos);
  EXPECT_NE(text.find("controller_runtime_reconcile_errors_total{controller=\"test\"} 2"), std::string::npos);
}

TEST(Controller, ExceptionsCountAsErrors) {
  std::atomic<int> calls{0};
  Controller c({}, std::make_shared<FnReconciler>([&](const ObjectKey&) -> ReconcileResult {
    if (++calls == 1) throw std::runtime_error("boom");
    return ReconcileResult::done();
  }));
  c.start();
  c.queue().add("a");
  EXPECT_TRUE(eventually([&] { return calls.load() == 2; }));
}

TEST(Controller, RequeueAfterRunsAgain) {
  std::atomic<int> calls{0};
  Controller c({}, std::make_shared<FnReconciler>([&](const ObjectKey&) {
    return ++calls == 1 ? ReconcileResult::after(20ms) : ReconcileResult::done();
  }));
  c.start();
  c.queue().add("a");
  EXPECT_TRUE(eventually([&] { return calls.load() == 2; }));
}

// A terminal failure is counted but not retried; a requeue_after it carries still holds.
TEST(Controller, TerminalErrorsAreNotRetried) {
  std::atomic<int> calls{0}, later_calls{0};
  auto metrics = std::make_shared<kube::MetricsRegistry>();
  ControllerOptions o;
  o.name = "test";
  o.metrics = metrics;
  Controller c(o, std::make_shared<FnReconciler>([&](const ObjectKey& k) {
    if (k.name == "later" && ++later_calls > 1) return ReconcileResult::done();
    if (k.name != "later") ++calls;
    ReconcileResult r = ReconcileResult::failed("invalid spec", RetryClass::kTerminal);
    if (k.name == "later") r.requeue_after = 20ms;
    return r;
  }));
  c.start();
  c.queue().add("ns/a");
  const std::string errors = "controller_runtime_reconcile_total{controller=\"test\",result=\"error\"} 1";
  ASSERT_TRUE(eventually([&] { return metrics->render().find(errors) != std::string::npos; }));
  EXPECT_EQ(c.queue().num_requeues("ns/a"), 0) << "no back-off: nothing to retry";
  EXPECT_EQ(calls.load(), 1);
  c.queue().add("ns/later");
  EXPECT_TRUE(eventually([&] { return later_calls.load() == 2; }));
  EXPECT_EQ(calls.load(), 1);
  c.stop();
}

// A failure is a warning once: the passes between two meetings of the same error that
// decide nothing (a wait for the cache, a conflict) neither end it nor make it new.
TEST(Controller, AFailureWarnsOnceAcrossWaitsAndConflicts) {
  auto sink = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(64);
  auto previous = spdlog::default_logger();
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("capture", sink));
  spdlog::set_level(spdlog::level::debug);
  std::atomic<int> passes{0};
  ControllerOptions o;
  o.name = "test";
  Controller c(o, std::make_shared<FnReconciler>([&](const ObjectKey&) {
    switch (++passes) {
      case 1: return ReconcileResult::failed("kind not served", RetryClass::kTerminal);
      case 2: return ReconcileResult::wait_for_cache(1ms);
      case 3: return ReconcileResult::failed("stale cache", RetryClass::kConflict);
      case 4: return ReconcileResult::failed("kind not served", RetryClass::kTerminal);
      default: return ReconcileResult::done();
    }
  }));
  c.start();
  c.queue().add("ns/a");
  ASSERT_TRUE(eventually([&] { return passes.load() >= 1; }));
  c.queue().add("ns/a");  // 2 waits, 3 conflicts (retried by the queue), 4 fails again
  ASSERT_TRUE(eventually([&] { return passes.load() >= 4; }));
  c.queue().add("ns/a");
  ASSERT_TRUE(eventually([&] { return passes.load() >= 5; }));
  c.stop();
  spdlog::set_default_logger(previous);
  int warned = 0, still = 0, recovered = 0;
  for (const auto& line : sink->last_formatted()) {
    if (line.find("[warning]") != std::string::npos && line.find("kind not served") != std::string::npos) ++warned;
    if (line.find("still: kind not served") != std::string::npos) ++still;
    if (line.find("recovered") != std::string::npos) ++recovered;
  }
  EXPECT_EQ(warned, 1);
  EXPECT_EQ(still, 1);
  EXPECT_EQ(recovered, 1);
}

TEST(Controller, ManyWorkersNeverReconcileOneKeyTwiceAtOnce) {
  std::mutex mu;
  std::map<std::string, int> in_flight;
  std::atomic<bool> overlap{false};
  std::atomic<int> calls{0};
  ControllerOptions o;
  o.workers = 4;
  Controller c(o, std::make_shared<FnReconciler>([&](const ObjectKey& k) {
    {
      std::lock_guard<std::mutex> l(mu);
      if (++in_flight[k.str()] > 1) overlap = true;
    }
    std::this_thread::sleep_for(1ms);
    {
      std::lock_guard<std::mutex> l(mu);
      --in_flight[k.str()];
    }
    ++calls;
    return ReconcileResult::done();
  }));
  c.start();
  for (int i = 0; i < 300; ++i) c.queue().add("ns/k" + std::to_string(i % 3));
  EXPECT_TRUE(eventually([&] { return c.queue().len() == 0; }));
  c.stop();
  EXPECT_FALSE(overlap.load());
  EXPECT_GE(calls.load(), 3);
}

TEST(Controller, EnqueueOwnerMapsChildrenToTheirControllingOwner) {
  Controller c({}, std::make_shared<FnReconciler>([](const ObjectKey&) { return ReconcileResult::done(); }));
  auto h = c.enqueue_owner("nvidia.com", "DynamoGraphDeployment");
  auto child = [](const std::string& owner_api, const std::string& kind, bool controller) {
    nlohmann::json j = {{"metadata",
                         {{"name", "child"},
                          {"namespace", "ns"},
                          {"ownerReferences",
                           {{{"apiVersion", owner_api}, {"kind", kind}, {"name", "graph"}, {"uid", "u"},
                             {"controller", controller}}}}}}};
    return CachedObject::make(j);
  };
  h.on_add(child("nvidia.com/v1beta1", "DynamoGraphDeployment", true));
  h.on_add(child("nvidia.com/v1beta1", "DynamoGraphDeployment", false));  // not the controller
  h.on_add(child("apps/v1", "DynamoGraphDeployment", true));              // other group
  h.on_delete(child("nvidia.com/v1beta1", "Other", true));                // other kind
  EXPECT_EQ(c.queue().len(), 1u);
  auto key = c.queue().try_get();
  EXPECT_EQ(key, "ns/graph");
  if (key) c.queue().done(*key);  // the caller's duty; stop() drains in-flight keys
}

TEST(Controller, EnqueueOwnerWithAWindowGivesABurstOfChildEventsOneReconcile) {
  kube::FakeClock clock;
  ControllerOptions o;
  o.queue.clock = &clock;
  Controller c(o, std::make_shared<FnReconciler>([](const ObjectKey&) { return ReconcileResult::done(); }));
  auto h = c.enqueue_owner("nvidia.com", "DynamoGraphDeployment", std::chrono::milliseconds(500));
  nlohmann::json j = {{"metadata",
                       {{"name", "child"},
                        {"namespace", "ns"},
                        {"ownerReferences",
                         {{{"apiVersion", "nvidia.com/v1beta1"}, {"kind", "DynamoGraphDeployment"},
                           {"name", "graph"}, {"uid", "u"}, {"controller", true}}}}}}};
  auto obj = CachedObject::make(j);
  h.on_add(obj);
  clock.advance(std::chrono::milliseconds(300));
  h.on_update(obj, obj);  // two more events 300 ms later, inside the window
  EXPECT_FALSE(c.queue().try_get().has_value()) << "the owner was reconciled before its window ended";
  clock.advance(std::chrono::milliseconds(200));
  auto key = c.queue().try_get();
  EXPECT_EQ(key, "ns/graph");
  if (key) c.queue().done(*key);
  EXPECT_FALSE(c.queue().try_get().has_value()) << "the burst gave more than one reconcile";
}

}  // namespace
}  // namespace dgd::runtime
