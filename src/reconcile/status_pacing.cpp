#include "dgd/reconcile/status_pacing.h"

#include <algorithm>

namespace dgd::reconcile {

namespace {
constexpr std::chrono::milliseconds kMaxInterval{60000};
}  // namespace

void StatusPacer::note_write(const std::string& dgd, bool transition) {
  const auto base = pacing_.interval;
  const auto cap = std::max(base, kMaxInterval);
  std::lock_guard<std::mutex> lock(mu_);
  Written& w = written_[dgd];
  w.at = clock_.now();
  w.interval = transition || w.interval.count() == 0 ? base : std::min(w.interval * 2, cap);
  w.has_slot = false;  // used, or (a transition) not needed
}

void StatusPacer::forget(const std::string& dgd) {
  std::lock_guard<std::mutex> lock(mu_);
  written_.erase(dgd);
}

std::chrono::milliseconds StatusPacer::progress_delay(const std::string& dgd) {
  if (pacing_.interval.count() <= 0) return std::chrono::milliseconds(0);
  std::lock_guard<std::mutex> lock(mu_);
  auto it = written_.find(dgd);
  if (it == written_.end()) return std::chrono::milliseconds(0);
  Written& w = it->second;
  auto due = w.at + w.interval;
  const auto now = clock_.now();
  if (due <= now && pacing_.qps > 0) {
    if (!w.has_slot) {
      const auto step = std::chrono::duration_cast<kube::Clock::duration>(
          std::chrono::duration<double>(1.0 / std::max(pacing_.qps, 0.001)));
      w.slot = std::max(now, next_slot_);
      w.has_slot = true;
      next_slot_ = w.slot + step;
    }
    due = w.slot;
  }
  if (due <= now) return std::chrono::milliseconds(0);
  // Rounded up: a requeue a hair early would find the wait not yet over.
  return std::chrono::ceil<std::chrono::milliseconds>(due - now);
}

}  // namespace dgd::reconcile
