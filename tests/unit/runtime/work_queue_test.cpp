#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>

#include "common/prom_text.h"
#include "dgd/kube/metrics.h"
#include "dgd/runtime/work_queue.h"

namespace dgd::runtime {
namespace {

using namespace std::chrono_literals;

WorkQueueOptions fake(const kube::FakeClock& clock) {
  WorkQueueOptions o;
  o.clock = &clock;
  return o;
}

TEST(WorkQueue, CollapsesRepeatedAddsAndKeepsFifoOrder) {
  kube::FakeClock clock;
  WorkQueue q(fake(clock));
  q.add("a");
  q.add("b");
  q.add("a");
  q.add("c");
  EXPECT_EQ(q.len(), 3u);
  EXPECT_EQ(*q.try_get(), "a");
  EXPECT_EQ(*q.try_get(), "b");
  EXPECT_EQ(*q.try_get(), "c");
  EXPECT_FALSE(q.try_get().has_value());
}

TEST(WorkQueue, KeyBeingProcessedIsNotHandedOutAgain) {
  kube::FakeClock clock;
  WorkQueue q(fake(clock));
  q.add("a");
  ASSERT_EQ(*q.try_get(), "a");
  q.add("a");  // changed while a worker holds it
  EXPECT_FALSE(q.try_get().has_value()) << "never two workers on one key";
  q.done("a");
  EXPECT_EQ(*q.try_get(), "a") << "re-added during processing: runs again after done";
  q.done("a");
  EXPECT_FALSE(q.try_get().has_value());
}

TEST(WorkQueue, AddsDuringProcessingCollapseIntoOneRerun) {
  kube::FakeClock clock;
  WorkQueue q(fake(clock));
  q.add("a");
  ASSERT_TRUE(q.try_get());
  q.add("a");
  q.add("a");
  q.add("a");
  q.done("a");
  EXPECT_EQ(q.len(), 1u);
}

TEST(WorkQueue, ConcurrentWorkersNeverShareAKey) {
  WorkQueue q;
  std::atomic<int> in_flight_a{0}, max_in_flight_a{0}, processed{0};
  std::vector<std::thread> workers;
  for (int w = 0; w < 4; ++w) {
    workers.emplace_back([&] {
      while (auto k = q.get()) {
        if (*k == "a") {
          int n = ++in_flight_a;
          int m = max_in_flight_a.load();
          while (n > m && !max_in_flight_a.compare_exchange_weak(m, n)) {
          }
          std::this_thread::yield();
          --in_flight_a;
        }
        ++processed;
        q.done(*k);
      }
    });
  }
  for (int i = 0; i < 2000; ++i) {
    q.add("a");
    q.add("k" + std::to_string(i % 7));
  }
  q.shut_down_with_drain();
  for (auto& t : workers) t.join();
  EXPECT_EQ(max_in_flight_a.load(), 1);
  EXPECT_GT(processed.load(), 0);
}

TEST(WorkQueue, AddAfterWaitsForTheClock) {
  kube::FakeClock clock;
  WorkQueue q(fake(clock));
  q.add_after("later", 10s);
  q.add_after("sooner", 1s);
  q.add_after("later", 20s);  // a later duplicate does not postpone the pending one
  EXPECT_FALSE(q.try_get().has_value());
  clock.advance(1s);
  EXPECT_EQ(*q.try_get(), "sooner");
  clock.advance(8s);
  EXPECT_FALSE(q.try_get().has_value());
  clock.advance(1s);
  EXPECT_EQ(*q.try_get(), "later");
  clock.advance(20s);
  EXPECT_FALSE(q.try_get().has_value()) << "the superseded 20 s entry does not fire again";
}

TEST(WorkQueue, BlockingGetWakesWhenADelayedKeyIsDue) {
  kube::FakeClock clock;
  WorkQueue q(fake(clock));
  q.add_after("k", 5s);
  std::optional<std::string> got;
  std::thread t([&] { got = q.get(); });
  clock.advance(5s);
  t.join();
  EXPECT_EQ(got, "k");
}

TEST(RateLimiter, PerKeyBackoffDoublesCapsAndResetsOnForget) {
  kube::FakeClock clock;
  RateLimiterOptions o;
  o.qps = 1e9;  // isolate the per-key part
  o.burst = 1 << 30;
  RateLimiter r(o, clock);
  EXPECT_EQ(r.when("a"), 5ms);
  EXPECT_EQ(r.when("a"), 10ms);
  EXPECT_EQ(r.when("a"), 20ms);
  EXPECT_EQ(r.when("b"), 5ms) << "keys back off independently";
  EXPECT_EQ(r.num_requeues("a"), 3);
  for (int i = 0; i < 100; ++i) (void)r.when("a");
  EXPECT_EQ(r.when("a"), std::chrono::seconds(1000)) << "capped at 1000 s, no overflow";
  r.forget("a");
  EXPECT_EQ(r.num_requeues("a"), 0);
  EXPECT_EQ(r.when("a"), 5ms);
}

TEST(RateLimiter, OverallBucketLimitsRetriesTo10PerSecondAfterBurst) {
  kube::FakeClock clock;
  RateLimiter r(RateLimiterOptions{}, clock);
  // 100 distinct keys fail at once: the burst absorbs them with the per-key 5 ms.
  for (int i = 0; i < 100; ++i) EXPECT_EQ(r.when("k" + std::to_string(i)), 5ms);
  // The next ones queue behind the bucket: 100 ms, 200 ms, ...
  EXPECT_EQ(r.when("x1"), 100ms);
  EXPECT_EQ(r.when("x2"), 200ms);
  clock.advance(1s);  // refills 10 tokens, 2 of which pay the debt above
  for (int i = 0; i < 8; ++i) EXPECT_EQ(r.when("y" + std::to_string(i)), 5ms);
  EXPECT_EQ(r.when("z"), 100ms);
}

TEST(WorkQueue, AddRateLimitedUsesTheBackoff) {
  kube::FakeClock clock;
  WorkQueue q(fake(clock));
  q.add_rate_limited("a");  // 5 ms
  EXPECT_FALSE(q.try_get().has_value());
  clock.advance(5ms);
  ASSERT_EQ(*q.try_get(), "a");
  q.done("a");
  q.add_rate_limited("a");  // 10 ms
  clock.advance(5ms);
  EXPECT_FALSE(q.try_get().has_value());
  clock.advance(5ms);
  ASSERT_EQ(*q.try_get(), "a");
  q.done("a");
  q.forget("a");
  q.add_rate_limited("a");
  clock.advance(5ms);
  EXPECT_EQ(*q.try_get(), "a") << "forget resets the back-off";
}

TEST(WorkQueue, ShutDownHandsOutQueuedKeysThenStops) {
  kube::FakeClock clock;
  WorkQueue q(fake(clock));
  q.add("a");
  q.add_after("delayed", 1s);
  q.shut_down();
  q.add("b");  // ignored
  EXPECT_EQ(q.get(), "a");
  q.done("a");
  clock.advance(2s);
  EXPECT_EQ(q.get(), std::nullopt) << "delayed keys are dropped; get returns at once";
}

TEST(WorkQueue, ShutDownWithDrainWaitsForInFlightWork) {
  WorkQueue q;
  q.add("a");
  auto k = q.get();
  ASSERT_TRUE(k);
  std::atomic<bool> drained{false};
  std::thread t([&] {
    q.shut_down_with_drain();
    drained = true;
  });
  // Wait until shutdown has begun; it must not finish while "a" is in flight.
  while (!q.shutting_down()) std::this_thread::yield();
  EXPECT_FALSE(drained.load());
  q.done(*k);
  t.join();
  EXPECT_TRUE(drained.load());
}

TEST(WorkQueue, ExportsMetrics) {
  kube::FakeClock clock;
  auto m = std::make_shared<kube::MetricsRegistry>();
  WorkQueueOptions o = fake(clock);
  o.name = "dgd";
  o.metrics = m;
  WorkQueue q(o);
  q.add("a");
  q.add("b");
  clock.advance(2s);
  auto k = q.try_get();
  q.add_rate_limited("c");
  std::string text = m->render();
  EXPECT_EQ(testing::check_prometheus_text(text), "") << text;
  EXPECT_NE(text.find("workqueue_depth{name=\"dgd\"} 1\n"), std::string::npos) << text;
  EXPECT_NE(text.find("workqueue_adds_total{name=\"dgd\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("workqueue_retries_total{name=\"dgd\"} 1\n"), std::string::npos);
  EXPECT_NE(text.find("workqueue_queue_duration_seconds_bucket{name=\"dgd\",le=\"1\"} 0\n"), std::string::npos)
      << "the key waited 2 s";
  EXPECT_NE(text.find("workqueue_queue_duration_seconds_count{name=\"dgd\"} 1\n"), std::string::npos);
}

}  // namespace
}  // namespace dgd::runtime
