// StatusPacer: when a DGD's status write that carries only progress (replica counts,
// messages; status.h status_transition) may go out. Transitions always go at once.
//  - per DGD: not sooner than `interval` after its last status write; the interval
//    doubles after each progress write, up to max(60 s, interval), and returns to
//    `interval` after a transition, so a rollout that takes minutes costs a few writes;
//  - for the fleet: progress writes of all DGDs together take slots `1/qps` apart, so a
//    fleet converging at once does not add a write every few seconds per DGD to a busy
//    API server. A DGD whose interval is over holds its slot until it writes.
// What it remembers only delays progress writes: forgetting it writes progress sooner,
// never a different status. Thread-safe; the clock is injected.
#pragma once

#include <chrono>
#include <map>
#include <mutex>
#include <string>

#include "dgd/kube/clock.h"

namespace dgd::reconcile {

struct StatusPacing {
  std::chrono::milliseconds interval{5000};  // 0: every progress write at once
  double qps = 2;                            // fleet-wide progress writes per second; 0: no limit
};

class StatusPacer {
 public:
  // `clock` must outlive this.
  explicit StatusPacer(StatusPacing pacing, const kube::Clock& clock = kube::real_clock())
      : pacing_(pacing), clock_(clock) {}
  StatusPacer(const StatusPacer&) = delete;
  StatusPacer& operator=(const StatusPacer&) = delete;

  // How long a progress-only write of `dgd` must still wait (0: write now).
  std::chrono::milliseconds progress_delay(const std::string& dgd);
  // Records a status write of `dgd`; a transition resets its interval.
  void note_write(const std::string& dgd, bool transition);
  // Forgets `dgd` (deleted).
  void forget(const std::string& dgd);

 private:
  struct Written {
    kube::Clock::time_point at;
    std::chrono::milliseconds interval{0};
    kube::Clock::time_point slot{};  // the fleet slot held for the next progress write
    bool has_slot = false;
  };
  const StatusPacing pacing_;
  const kube::Clock& clock_;
  std::mutex mu_;
  std::map<std::string, Written> written_;
  kube::Clock::time_point next_slot_{};
};

}  // namespace dgd::reconcile
