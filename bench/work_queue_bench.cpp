// WorkQueue under contention: P producer threads add keys drawn from K distinct keys
// (as informer handlers do: one add per watch event, many collapsing into one queued
// key) while W workers get / forget / done. Reports items (get+done cycles) per second and
// adds per second; the queue is the only shared structure, so this is its lock's cost.
//   bench_work_queue_bench --benchmark_counters_tabular=true
#include <benchmark/benchmark.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "dgd/runtime/work_queue.h"

namespace {

using dgd::runtime::WorkQueue;

// args: producers, workers, distinct keys.
void BM_WorkQueueContention(benchmark::State& state) {
  const int producers = static_cast<int>(state.range(0));
  const int workers = static_cast<int>(state.range(1));
  const int keys = static_cast<int>(state.range(2));
  constexpr int kAddsPerProducer = 50000;
  std::vector<std::string> names;
  for (int i = 0; i < keys; ++i) names.push_back("team-" + std::to_string(i % 50) + "/dgd-" + std::to_string(i));
  int64_t processed_total = 0, adds_total = 0;
  for (auto _ : state) {
    WorkQueue q;
    std::atomic<int64_t> processed{0};
    std::vector<std::thread> ws;
    for (int w = 0; w < workers; ++w) {
      ws.emplace_back([&] {
        while (auto k = q.get()) {
          q.forget(*k);
          q.done(*k);
          processed.fetch_add(1, std::memory_order_relaxed);
        }
      });
    }
    std::vector<std::thread> ps;
    for (int p = 0; p < producers; ++p) {
      ps.emplace_back([&, p] {
        uint32_t x = 2463534242u + static_cast<uint32_t>(p);
        for (int i = 0; i < kAddsPerProducer; ++i) {
          x ^= x << 13, x ^= x >> 17, x ^= x << 5;  // xorshift: cheap, no shared state
          q.add(names[x % names.size()]);
        }
      });
    }
    for (auto& t : ps) t.join();
    q.shut_down_with_drain();
    for (auto& t : ws) t.join();
    processed_total += processed.load();
    adds_total += static_cast<int64_t>(producers) * kAddsPerProducer;
  }
  state.SetItemsProcessed(processed_total);
  state.counters["adds_per_s"] = benchmark::Counter(static_cast<double>(adds_total), benchmark::Counter::kIsRate);
  state.counters["collapsed_pct"] =
      adds_total ? 100.0 * static_cast<double>(adds_total - processed_total) / static_cast<double>(adds_total) : 0;
}
BENCHMARK(BM_WorkQueueContention)
    ->ArgNames({"producers", "workers", "keys"})
    ->Args({1, 1, 1000})
    ->Args({1, 4, 1000})
    ->Args({4, 4, 1000})
    ->Args({4, 16, 1000})
    ->Args({4, 4, 10})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
