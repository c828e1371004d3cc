// TokenBucket: `qps` tokens per second, at most `burst` stored, as golang.org/x/time/rate.
// Used for the REST client's optional client-side limit and the work queue's overall
// retry limit. Thread-safe.
#pragma once
#include <mutex>

#include "dgd/kube/clock.h"

namespace dgd::kube {

class TokenBucket {
 public:
  // REQUIRES: qps > 0, burst >= 1. The bucket starts full.
  TokenBucket(double qps, int burst, const Clock& clock = real_clock());
  // Takes one token and returns how long the caller must wait before using it
  // (zero when a token was available). Reservations queue up: n calls at once with an
  // empty bucket get waits 1/qps, 2/qps, ... as rate.Limiter.Reserve does.
  Clock::duration reserve();
  // Takes a token only if one is available now.
  bool try_take();

 private:
  void refill_locked(Clock::time_point now);
  const double qps_;
  const double burst_;
  const Clock& clock_;
  std::mutex mu_;
  double tokens_;
  Clock::time_point last_;
};

}  // namespace dgd::kube
