// Clock, cancellation, token bucket and back-off: the small timing primitives.
#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <map>
#include <mutex>

#include "dgd/kube/backoff.h"
#include "dgd/kube/cancel.h"
#include "dgd/kube/clock.h"
#include "dgd/kube/token_bucket.h"

namespace dgd::kube {

namespace {
class RealClock final : public Clock {
 public:
  time_point now() const override { return std::chrono::steady_clock::now(); }
  void wait_until(std::condition_variable& cv, std::unique_lock<std::mutex>& lock,
                  time_point deadline) const override {
    cv.wait_until(lock, deadline);
  }
};
}  // namespace

const Clock& real_clock() {
  static const RealClock* clock = new RealClock();  // never destroyed: used from any thread
  return *clock;
}

namespace detail {
struct CancelState {
  std::mutex mu;
  std::recursive_mutex running;  // held while callbacks run, so unsubscribing waits for them
  std::condition_variable cv;
  bool cancelled = false;
  unsigned long next_id = 1;
  std::map<unsigned long, std::function<void()>> callbacks;
};
}  // namespace detail

CancelSubscription& CancelSubscription::operator=(CancelSubscription&& o) noexcept {
  if (this != &o) {
    this->~CancelSubscription();
    state_ = std::move(o.state_);
    id_ = o.id_;
  }
  return *this;
}

CancelSubscription::~CancelSubscription() {
  if (!state_) return;
  bool cancelled;
  {
    std::lock_guard<std::mutex> l(state_->mu);
    state_->callbacks.erase(id_);
    cancelled = state_->cancelled;
  }
  // A callback may be running on the cancelling thread: wait until it is done, because
  // it may use objects the subscriber is about to destroy.
  if (cancelled) std::lock_guard<std::recursive_mutex> r(state_->running);
  state_.reset();
}

CancelToken::CancelToken() : state_(std::make_shared<detail::CancelState>()) {}

bool CancelToken::cancelled() const {
  std::lock_guard<std::mutex> l(state_->mu);
  return state_->cancelled;
}

CancelSubscription CancelToken::on_cancel(std::function<void()> fn) const {
  {
    std::lock_guard<std::mutex> l(state_->mu);
    if (!state_->cancelled) {
      unsigned long id = state_->next_id++;
      state_->callbacks.emplace(id, std::move(fn));
      return CancelSubscription(state_, id);
    }
  }
  fn();
  return {};
}

bool CancelToken::sleep_for(std::chrono::steady_clock::duration d) const {
  std::unique_lock<std::mutex> l(state_->mu);
  state_->cv.wait_for(l, d, [&] { return state_->cancelled; });
  return !state_->cancelled;
}

CancelSource::CancelSource() : state_(std::make_shared<detail::CancelState>()) {}

void CancelSource::cancel() {
  std::lock_guard<std::recursive_mutex> running(state_->running);
  std::map<unsigned long, std::function<void()>> callbacks;
  {
    std::lock_guard<std::mutex> l(state_->mu);
    if (state_->cancelled) return;
    state_->cancelled = true;
    callbacks.swap(state_->callbacks);
  }
  state_->cv.notify_all();
  for (auto& [id, fn] : callbacks) fn();
}

bool CancelSource::cancelled() const {
  std::lock_guard<std::mutex> l(state_->mu);
  return state_->cancelled;
}

TokenBucket::TokenBucket(double qps, int burst, const Clock& clock)
    : qps_(qps), burst_(std::max(1, burst)), clock_(clock), tokens_(burst_), last_(clock.now()) {}

void TokenBucket::refill_locked(Clock::time_point now) {
  if (now > last_) {
    double secs = std::chrono::duration<double>(now - last_).count();
    tokens_ = std::min(burst_, tokens_ + secs * qps_);
    last_ = now;
  }
}

Clock::duration TokenBucket::reserve() {
  std::lock_guard<std::mutex> l(mu_);
  refill_locked(clock_.now());
  tokens_ -= 1;
  if (tokens_ >= 0) return Clock::duration::zero();
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(-tokens_ / qps_));
}

bool TokenBucket::try_take() {
  std::lock_guard<std::mutex> l(mu_);
  refill_locked(clock_.now());
  if (tokens_ < 1) return false;
  tokens_ -= 1;
  return true;
}

Backoff::Backoff(BackoffOptions o) : o_(o), rng_(std::random_device{}()) {}

std::chrono::milliseconds Backoff::next() {
  double base = static_cast<double>(o_.initial.count()) * std::pow(o_.factor, std::min(attempt_, 60));
  base = std::min(base, static_cast<double>(o_.max.count()));
  ++attempt_;
  std::uniform_real_distribution<double> d(1.0 - o_.jitter, 1.0 + o_.jitter);
  double v = std::min(base * d(rng_), static_cast<double>(o_.max.count()));
  return std::chrono::milliseconds(static_cast<long long>(v));
}

}  // namespace dgd::kube
