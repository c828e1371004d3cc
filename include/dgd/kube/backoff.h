// Exponential back-off with jitter for reconnect loops (informer, leader election).
// Single-owner: one loop owns one Backoff.
#pragma once
#include <chrono>
#include <random>

namespace dgd::kube {

struct BackoffOptions {
  std::chrono::milliseconds initial{200};  // first delay
  std::chrono::milliseconds max{30000};    // cap; 30 s keeps reconnects prompt after an outage
  double factor = 2.0;
  double jitter = 0.2;  // each delay is multiplied by a random value in [1 - jitter, 1 + jitter]
};

class Backoff {
 public:
  explicit Backoff(BackoffOptions o = {});
  // The delay to wait before the next attempt; grows until max.
  std::chrono::milliseconds next();
  // After a success: the next failure starts again from `initial`.
  void reset() { attempt_ = 0; }
  int attempts() const { return attempt_; }

 private:
  BackoffOptions o_;
  int attempt_ = 0;
  std::mt19937_64 rng_;
};

}  // namespace dgd::kube
