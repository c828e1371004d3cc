#include "dgd/runtime/work_queue.h"

#include <algorithm>
#include <cmath>

#include "dgd/kube/metrics.h"

namespace dgd::runtime {

RateLimiter::RateLimiter(RateLimiterOptions o, const kube::Clock& clock)
    : o_(o), bucket_(o.qps, o.burst, clock) {}

kube::Clock::duration RateLimiter::when(const std::string& key) {
  int n;
  {
    std::lock_guard<std::mutex> l(mu_);
    n = failures_[key]++;
  }
  // base * 2^n without overflow: cap the exponent before computing.
  double per_key = static_cast<double>(o_.base_delay.count()) * std::pow(2.0, std::min(n, 62));
  auto max_ms = static_cast<double>(o_.max_delay.count());
  auto item = std::chrono::duration_cast<kube::Clock::duration>(
      std::chrono::duration<double, std::milli>(std::min(per_key, max_ms)));
  auto overall = bucket_.reserve();
  return std::max(item, overall);
}

void RateLimiter::forget(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  failures_.erase(key);
}

int RateLimiter::num_requeues(const std::string& key) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = failures_.find(key);
  return it == failures_.end() ? 0 : it->second;
}

WorkQueue::WorkQueue(WorkQueueOptions options)
    : o_(std::move(options)), clock_(o_.clock ? *o_.clock : kube::real_clock()),
      limiter_(o_.rate_limiter, clock_) {
  if (o_.metrics) {
    kube::Labels l{{"name", o_.name}};
    depth_ = &o_.metrics->gauge("workqueue_depth", "Current depth of the work queue.", l);
    adds_ = &o_.metrics->counter("workqueue_adds_total", "Keys added to the work queue.", l);
    retries_ = &o_.metrics->counter("workqueue_retries_total", "Rate-limited re-adds (retries) of keys.", l);
    queue_latency_ = &o_.metrics->histogram("workqueue_queue_duration_seconds",
                                            "Time a key waits in the queue before a worker takes it.", l);
    work_duration_ = &o_.metrics->histogram("workqueue_work_duration_seconds",
                                            "Time a worker spends on a key (get to done).", l);
  }
}

WorkQueue::~WorkQueue() { shut_down(); }

void WorkQueue::add_locked(const std::string& key) {
  if (shutting_down_) return;
  if (adds_) adds_->inc();
  if (!dirty_.insert(key).second) return;  // already queued, or marked to run again
  if (processing_.count(key)) return;      // done() queues it
  queue_.push_back(key);
  queued_at_.emplace(key, clock_.now());
  if (depth_) depth_->set(static_cast<double>(queue_.size()));
  cv_.notify_one();
}

void WorkQueue::add(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  add_locked(key);
}

void WorkQueue::add_after(const std::string& key, kube::Clock::duration delay) {
  std::lock_guard<std::mutex> l(mu_);
  if (shutting_down_) return;
  if (delay <= kube::Clock::duration::zero()) {
    add_locked(key);
    return;
  }
  auto at = clock_.now() + delay;
  auto it = delayed_at_.find(key);
  if (it != delayed_at_.end() && it->second <= at) return;  // an earlier add is pending
  delayed_at_[key] = at;
  delayed_.push({at, key});
  cv_.notify_all();  // a waiting worker may need to wake earlier
}

void WorkQueue::add_rate_limited(const std::string& key) {
  if (retries_) retries_->inc();
  add_after(key, limiter_.when(key));
}

void WorkQueue::forget(const std::string& key) { limiter_.forget(key); }

int WorkQueue::num_requeues(const std::string& key) const { return limiter_.num_requeues(key); }

void WorkQueue::promote_due_locked() {
  auto now = clock_.now();
  while (!delayed_.empty() && delayed_.top().at <= now) {
    Delayed d = delayed_.top();
    delayed_.pop();
    auto it = delayed_at_.find(d.key);
    // Skip stale heap entries superseded by an earlier add_after of the same key.
    if (it == delayed_at_.end() || it->second != d.at) continue;
    delayed_at_.erase(it);
    add_locked(d.key);
  }
}

std::optional<std::string> WorkQueue::try_get() {
  std::lock_guard<std::mutex> l(mu_);
  promote_due_locked();
  if (queue_.empty()) return std::nullopt;
  std::string key = std::move(queue_.front());
  queue_.pop_front();
  processing_.insert(key);
  dirty_.erase(key);
  auto now = clock_.now();
  if (auto it = queued_at_.find(key); it != queued_at_.end()) {
    if (queue_latency_) queue_latency_->observe(std::chrono::duration<double>(now - it->second).count());
    queued_at_.erase(it);
  }
  started_at_[key] = now;
  if (depth_) depth_->set(static_cast<double>(queue_.size()));
  return key;
}

std::optional<std::string> WorkQueue::get() {
  std::unique_lock<std::mutex> l(mu_);
  for (;;) {
    promote_due_locked();
    if (!queue_.empty()) break;
    if (shutting_down_) return std::nullopt;
    if (delayed_.empty()) {
      cv_.wait(l);
    } else {
      clock_.wait_until(cv_, l, delayed_.top().at);
    }
  }
  l.unlock();
  // try_get re-checks under the lock; another worker may have taken the key meanwhile.
  if (auto k = try_get()) return k;
  return get();
}

void WorkQueue::done(const std::string& key) {
  std::lock_guard<std::mutex> l(mu_);
  processing_.erase(key);
  if (auto it = started_at_.find(key); it != started_at_.end()) {
    if (work_duration_) {
      work_duration_->observe(std::chrono::duration<double>(clock_.now() - it->second).count());
    }
    started_at_.erase(it);
  }
  if (dirty_.count(key)) {
    queue_.push_back(key);
    queued_at_.emplace(key, clock_.now());
    if (depth_) depth_->set(static_cast<double>(queue_.size()));
    cv_.notify_one();
  }
  if (processing_.empty()) cv_.notify_all();  // shut_down_with_drain waits for this
}

void WorkQueue::shut_down() {
  std::lock_guard<std::mutex> l(mu_);
  shutting_down_ = true;
  // Delayed adds are dropped: nobody will process them.
  delayed_ = {};
  delayed_at_.clear();
  cv_.notify_all();
}

void WorkQueue::shut_down_with_drain() {
  std::unique_lock<std::mutex> l(mu_);
  shutting_down_ = true;
  delayed_ = {};
  delayed_at_.clear();
  cv_.notify_all();
  cv_.wait(l, [&] { return processing_.empty(); });
}

bool WorkQueue::shutting_down() const {
  std::lock_guard<std::mutex> l(mu_);
  return shutting_down_;
}

size_t WorkQueue::len() const {
  std::lock_guard<std::mutex> l(mu_);
  return queue_.size();
}

}  // namespace dgd::runtime
