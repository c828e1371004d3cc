// Cooperative cancellation shared by the HTTP transport, watches, back-off waits and
// shutdown. A CancelSource owns the flag; CancelTokens observe it. Thread-safe.
#pragma once
#include <chrono>
#include <functional>
#include <memory>

namespace dgd::kube {

namespace detail {
struct CancelState;
}

class CancelToken;

// RAII registration of a callback run on cancel; destroying it unregisters the callback
// (and waits for nothing: the callback must be quick and must not take caller locks).
class CancelSubscription {
 public:
  CancelSubscription() = default;
  CancelSubscription(std::shared_ptr<detail::CancelState> s, unsigned long id)
      : state_(std::move(s)), id_(id) {}
  CancelSubscription(CancelSubscription&& o) noexcept : state_(std::move(o.state_)), id_(o.id_) {}
  CancelSubscription& operator=(CancelSubscription&&) noexcept;
  CancelSubscription(const CancelSubscription&) = delete;
  CancelSubscription& operator=(const CancelSubscription&) = delete;
  ~CancelSubscription();

 private:
  std::shared_ptr<detail::CancelState> state_;
  unsigned long id_ = 0;
};

class CancelToken {
 public:
  // A token that is never cancelled.
  CancelToken();
  bool cancelled() const;
  // Runs `fn` once when cancelled (at once, on this thread, if already cancelled).
  [[nodiscard]] CancelSubscription on_cancel(std::function<void()> fn) const;
  // Sleeps for `d` unless cancelled first. Returns false if cancelled.
  bool sleep_for(std::chrono::steady_clock::duration d) const;

 private:
  friend class CancelSource;
  explicit CancelToken(std::shared_ptr<detail::CancelState> s) : state_(std::move(s)) {}
  std::shared_ptr<detail::CancelState> state_;
};

class CancelSource {
 public:
  CancelSource();
  void cancel();
  bool cancelled() const;
  CancelToken token() const { return CancelToken(state_); }

 private:
  std::shared_ptr<detail::CancelState> state_;
};

}  // namespace dgd::kube
