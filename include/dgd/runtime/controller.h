// Controller: runs a Reconciler over the keys of a WorkQueue with N workers. A key is
// namespace/name only; the reconciler reads current state from informer caches
// (level-triggered, controller-runtime's contract). Outcome order:
//   error (or exception)  -> by its retry class: unavailable and conflict are requeued
//                            with the rate limiter's back-off; terminal is not retried
//                            (a requeue_after it carries still holds);
//   requeue_after > 0     -> forget failures, requeue after that delay;
//   otherwise             -> forget failures; done until the next event.
// A failure is logged at warn when a key starts failing or its error changes, at debug
// ("<key_label>=<key>: still: ...") while the same error repeats or when it is a
// conflict, and its end at info, so a lasting problem costs one line.
// Thread-safe; start()/stop() from one owner thread.
#pragma once
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "dgd/runtime/informer.h"
#include "dgd/runtime/work_queue.h"

namespace dgd::runtime {

struct ObjectKey {
  std::string ns;  // "" for cluster-scoped objects
  std::string name;
  // "ns/name" or "name".
  std::string str() const { return ns.empty() ? name : ns + "/" + name; }
  static ObjectKey parse(std::string_view key);
  bool operator==(const ObjectKey&) const = default;
};

// How a failed reconcile is retried.
enum class RetryClass {
  kUnavailable,  // the server could not answer (429, 5xx, network): back off and retry
  kConflict,     // the read state was stale (409): re-read and rerun, with back-off
  kTerminal,     // retrying cannot help until the object changes: no retry
};

struct ReconcileResult {
  std::chrono::milliseconds requeue_after{0};
  std::string error;  // non-empty: failed, handled by `retry`
  RetryClass retry = RetryClass::kUnavailable;
  // The pass decided nothing (it waits for the cache to catch up with its own writes): it
  // neither ends nor repeats a failure of the key.
  bool waiting = false;

  static ReconcileResult done() { return {}; }
  static ReconcileResult after(std::chrono::milliseconds d) { return {d, {}, RetryClass::kUnavailable}; }
  static ReconcileResult wait_for_cache(std::chrono::milliseconds d) {
    return {d, {}, RetryClass::kUnavailable, true};
  }
  static ReconcileResult failed(std::string why, RetryClass retry = RetryClass::kUnavailable) {
    return {{}, std::move(why), retry};
  }
  bool ok() const { return error.empty(); }
};

class Reconciler {
 public:
  virtual ~Reconciler() = default;
  // Makes the world match the desired state of `key`. Must be idempotent; the object may
  // be gone (then clean up or do nothing).
  virtual ReconcileResult reconcile(const ObjectKey& key) = 0;
};

// Adapts a function to a Reconciler.
class FnReconciler final : public Reconciler {
 public:
  explicit FnReconciler(std::function<ReconcileResult(const ObjectKey&)> fn) : fn_(std::move(fn)) {}
  ReconcileResult reconcile(const ObjectKey& key) override { return fn_(key); }

 private:
  std::function<ReconcileResult(const ObjectKey&)> fn_;
};

struct ControllerOptions {
  std::string name = "controller";  // metrics label and log prefix
  std::string key_label = "key";    // names keys in logs: "<key_label>=<ns>/<name>"
  int workers = 1;                  // controller-runtime's MaxConcurrentReconciles default
  WorkQueueOptions queue;           // queue.name defaults to `name`
  std::shared_ptr<kube::MetricsRegistry> metrics;
};

class Controller {
 public:
  Controller(ControllerOptions options, std::shared_ptr<Reconciler> reconciler);
  ~Controller();  // stop()
  Controller(const Controller&) = delete;
  Controller& operator=(const Controller&) = delete;

  WorkQueue& queue() { return *queue_; }
  const std::string& name() const { return o_.name; }

  // Handler enqueueing the object's own key (for the primary kind).
  EventHandler enqueue_self();
  // Handler enqueueing the controlling owner's key when its ownerReference has
  // controller=true and matches `owner_api_version` (group/version or group prefix "g/")
  // and `owner_kind`. The owner's namespace is the child's. With `window` > 0 the key is
  // added that much later, and every event of the owner's children within the window
  // shares that one reconcile (WorkQueue::add_after keeps the earliest pending time).
  EventHandler enqueue_owner(std::string owner_group, std::string owner_kind,
                             std::chrono::milliseconds window = std::chrono::milliseconds(0));

  void start();
  // Stops taking keys, waits for in-flight reconciles, joins workers. Idempotent.
  void stop();

 private:
  void worker();
  void process(const std::string& key);
  // Logs a failure of `key` (warn when new or changed, debug when repeated) or its end.
  void log_outcome(const std::string& key, const ReconcileResult& r);
  ControllerOptions o_;
  std::mutex failures_mu_;
  std::map<std::string, std::string> failing_;  // key -> its last error, while it fails
  std::shared_ptr<Reconciler> reconciler_;
  std::unique_ptr<WorkQueue> queue_;
  std::vector<std::thread> workers_;
};

}  // namespace dgd::runtime
