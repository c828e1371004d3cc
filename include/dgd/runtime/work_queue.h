// WorkQueue: the controller's queue of keys ("namespace/name"), with client-go semantics.
//  - fair: FIFO;
//  - stingy: a key is never handed to two workers at once, and adds of a key already
//    queued collapse into one;
//  - a key added while it is being processed is queued again when done() is called;
//  - delayed adds (add_after) and rate-limited adds (add_rate_limited: per-key
//    exponential back-off plus an overall token bucket, see rate_limiter.h);
//  - shut_down() stops accepting adds and wakes the workers once the queue is empty;
//    shut_down_with_drain() additionally waits for keys being processed to finish.
// Thread-safe: many producers and many workers.
//
// Worker duties: every key returned by get() MUST be passed to done() once processed;
// call forget() after a success, or the key's failure count keeps growing.
#pragma once
#include <chrono>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <queue>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "dgd/kube/clock.h"
#include "dgd/runtime/rate_limiter.h"

namespace dgd::kube {
class MetricsRegistry;
class Gauge;
class Counter;
class Histogram;
}  // namespace dgd::kube

namespace dgd::runtime {

struct WorkQueueOptions {
  std::string name = "default";  // the `name` label of the workqueue_* metrics
  RateLimiterOptions rate_limiter;
  const kube::Clock* clock = nullptr;           // null: the real clock
  std::shared_ptr<kube::MetricsRegistry> metrics;  // optional
};

class WorkQueue {
 public:
  explicit WorkQueue(WorkQueueOptions options = {});
  ~WorkQueue();
  WorkQueue(const WorkQueue&) = delete;
  WorkQueue& operator=(const WorkQueue&) = delete;

  // Queues `key` unless it is already queued; ignored after shut_down().
  void add(const std::string& key);
  // Queues `key` once `delay` has passed (at once if delay <= 0). A key with several
  // pending delayed adds is queued at the earliest time.
  void add_after(const std::string& key, kube::Clock::duration delay);
  // add_after(key, rate_limiter.when(key)): a retry after a failure.
  void add_rate_limited(const std::string& key);
  void forget(const std::string& key);
  int num_requeues(const std::string& key) const;

  // Blocks until a key is available and marks it processing; nullopt once shut down and
  // empty. Keys queued before shut_down() are still handed out.
  std::optional<std::string> get();
  // As get() but returns nullopt at once if no key is ready.
  std::optional<std::string> try_get();
  // Ends processing of `key`; if it was added meanwhile it is queued again.
  void done(const std::string& key);

  void shut_down();
  // shut_down(), then waits until no key is being processed.
  void shut_down_with_drain();
  bool shutting_down() const;

  // Informational only: never use it to decide whether to add or get.
  size_t len() const;

 private:
  struct Delayed {
    kube::Clock::time_point at;
    std::string key;
    bool operator>(const Delayed& o) const { return at > o.at; }
  };
  void add_locked(const std::string& key);
  void promote_due_locked();

  const WorkQueueOptions o_;
  const kube::Clock& clock_;
  RateLimiter limiter_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  // Invariant: every key in queue_ is in dirty_ and not in processing_.
  std::deque<std::string> queue_;
  // Keys that need processing (queued, or re-added while processing).
  std::unordered_set<std::string> dirty_;
  // Keys handed out by get() and not yet done(); may also be dirty.
  std::unordered_set<std::string> processing_;
  std::priority_queue<Delayed, std::vector<Delayed>, std::greater<>> delayed_;
  std::unordered_map<std::string, kube::Clock::time_point> delayed_at_;  // earliest per key
  std::unordered_map<std::string, kube::Clock::time_point> queued_at_;   // for latency metrics
  std::unordered_map<std::string, kube::Clock::time_point> started_at_;
  bool shutting_down_ = false;
  kube::Gauge* depth_ = nullptr;
  kube::Counter* adds_ = nullptr;
  kube::Counter* retries_ = nullptr;
  kube::Histogram* queue_latency_ = nullptr;
  kube::Histogram* work_duration_ = nullptr;
};

}  // namespace dgd::runtime
