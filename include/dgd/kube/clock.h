// Clock is the seam for time: production code uses real_clock(); tests inject a FakeClock
// and advance it, so nothing in a pass/fail test sleeps for correctness. Thread-safe.
#pragma once
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>

namespace dgd::kube {

class Clock {
 public:
  using duration = std::chrono::steady_clock::duration;
  using time_point = std::chrono::steady_clock::time_point;
  virtual ~Clock() = default;
  virtual time_point now() const = 0;
  // Blocks on `cv` (with `lock` held by the caller) until notified or until now() >= deadline.
  // May return early (spurious wake-up): callers loop on their condition.
  virtual void wait_until(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                          time_point deadline) const = 0;
};

// The process-wide steady clock. Never destroyed.
const Clock& real_clock();

// A clock that moves only when advance() is called. Waiters poll every few real
// milliseconds, so an advance() is noticed promptly without coupling to their mutex.
class FakeClock final : public Clock {
 public:
  FakeClock() : now_(std::chrono::duration_cast<duration>(std::chrono::hours(1)).count()) {}
  time_point now() const override { return time_point(duration(now_.load())); }
  void advance(duration d) { now_.fetch_add(d.count()); }
  void wait_until(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                  time_point deadline) const override {
    if (now() < deadline) cv.wait_for(lock, std::chrono::milliseconds(2));
  }

 private:
  std::atomic<duration::rep> now_;
};

}  // namespace dgd::kube
