// RateLimiter decides how long a failed key waits before it is retried: the maximum of a
// per-key exponential back-off (5 ms doubling to 1000 s) and an overall token bucket
// (10/s, burst 100), as client-go's DefaultControllerRateLimiter. Thread-safe.
#pragma once
#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "dgd/kube/clock.h"
#include "dgd/kube/token_bucket.h"

namespace dgd::runtime {

struct RateLimiterOptions {
  std::chrono::milliseconds base_delay{5};
  std::chrono::milliseconds max_delay{1000 * 1000};
  double qps = 10;  // overall retries per second; it governs retry speed, not first attempts
  int burst = 100;
};

class RateLimiter {
 public:
  explicit RateLimiter(RateLimiterOptions o = {}, const kube::Clock& clock = kube::real_clock());
  // Records one more failure of `key` and returns the delay before its retry.
  kube::Clock::duration when(const std::string& key);
  // Forgets the failures of `key` (call after a success, or the count grows forever).
  void forget(const std::string& key);
  int num_requeues(const std::string& key) const;

 private:
  const RateLimiterOptions o_;
  kube::TokenBucket bucket_;
  mutable std::mutex mu_;
  std::map<std::string, int> failures_;
};

}  // namespace dgd::runtime
