#include "dgd/runtime/controller.h"

#include <spdlog/spdlog.h>

#include "dgd/kube/metrics.h"

namespace dgd::runtime {

ObjectKey ObjectKey::parse(std::string_view key) {
  auto slash = key.find('/');
  if (slash == std::string_view::npos) return {"", std::string(key)};
  return {std::string(key.substr(0, slash)), std::string(key.substr(slash + 1))};
}

Controller::Controller(ControllerOptions options, std::shared_ptr<Reconciler> reconciler)
    : o_(std::move(options)), reconciler_(std::move(reconciler)) {
  WorkQueueOptions q = o_.queue;
  if (q.name == "default") q.name = o_.name;
  if (!q.metrics) q.metrics = o_.metrics;
  queue_ = std::make_unique<WorkQueue>(std::move(q));
  if (o_.metrics) {
    // Every series present from the start at 0, as controller-runtime does: a rate() or
    // an alert over them has data before the first reconcile or the first error.
    kube::Labels c{{"controller", o_.name}};
    o_.metrics->histogram("controller_runtime_reconcile_time_seconds", "Duration of reconciles.", c);
    for (const char* result : {"success", "error", "requeue_after"}) {
      o_.metrics->counter("controller_runtime_reconcile_total", "Reconciles by result (success, error, requeue_after).",
                          {{"controller", o_.name}, {"result", result}});
    }
    o_.metrics->counter("controller_runtime_reconcile_errors_total", "Failed reconciles.", c);
    o_.metrics->gauge("controller_runtime_max_concurrent_reconciles", "Workers of the controller.", c)
        .set(o_.workers);
  }
}

Controller::~Controller() { stop(); }

EventHandler Controller::enqueue_self() {
  WorkQueue* q = queue_.get();
  EventHandler h;
  h.on_add = [q](const ObjectPtr& o) { q->add(o->key()); };
  h.on_update = [q](const ObjectPtr&, const ObjectPtr& n) { q->add(n->key()); };
  h.on_delete = [q](const ObjectPtr& o) { q->add(o->key()); };
  return h;
}

EventHandler Controller::enqueue_owner(std::string owner_group, std::string owner_kind,
                                       std::chrono::milliseconds window) {
  WorkQueue* q = queue_.get();
  auto enqueue = [q, owner_group, owner_kind, window](const ObjectPtr& o) {
    for (const auto& r : o->owner_refs()) {
      if (!r.controller || r.kind != owner_kind) continue;
      auto slash = r.api_version.find('/');
      std::string group = slash == std::string::npos ? "" : r.api_version.substr(0, slash);
      if (group != owner_group) continue;
      const std::string key = o->ns().empty() ? r.name : o->ns() + "/" + r.name;
      if (window.count() > 0) {
        q->add_after(key, window);
      } else {
        q->add(key);
      }
    }
  };
  EventHandler h;
  h.on_add = enqueue;
  // The owner may have changed: map both states (controller-runtime's owner handler).
  h.on_update = [enqueue](const ObjectPtr& old_obj, const ObjectPtr& new_obj) {
    enqueue(old_obj);
    enqueue(new_obj);
  };
  h.on_delete = enqueue;
  return h;
}

void Controller::start() {
  if (!workers_.empty()) return;
  for (int i = 0; i < std::max(1, o_.workers); ++i) workers_.emplace_back([this] { worker(); });
}

void Controller::stop() {
  queue_->shut_down_with_drain();
  for (auto& t : workers_) {
    if (t.joinable()) t.join();
  }
  workers_.clear();
}

void Controller::worker() {
  while (auto key = queue_->get()) {
    process(*key);
    queue_->done(*key);
  }
}

void Controller::process(const std::string& key) {
  auto start = std::chrono::steady_clock::now();
  ReconcileResult r;
  try {
    r = reconciler_->reconcile(ObjectKey::parse(key));
  } catch (const std::exception& e) {
    r = ReconcileResult::failed(std::string("exception: ") + e.what());
  } catch (...) {
    r = ReconcileResult::failed("unknown exception");
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::string result;
  log_outcome(key, r);
  if (!r.ok() && r.retry == RetryClass::kTerminal) {
    result = "error";
    queue_->forget(key);
    if (r.requeue_after.count() > 0) queue_->add_after(key, r.requeue_after);
  } else if (!r.ok()) {
    result = "error";
    queue_->add_rate_limited(key);
  } else if (r.requeue_after.count() > 0) {
    result = "requeue_after";
    queue_->forget(key);
    queue_->add_after(key, r.requeue_after);
  } else {
    result = "success";
    queue_->forget(key);
  }
  if (o_.metrics) {
    kube::Labels c{{"controller", o_.name}};
    o_.metrics->histogram("controller_runtime_reconcile_time_seconds", "Duration of reconciles.", c).observe(secs);
    o_.metrics
        ->counter("controller_runtime_reconcile_total", "Reconciles by result (success, error, requeue_after).",
                  {{"controller", o_.name}, {"result", result}})
        .inc();
    if (!r.ok()) o_.metrics->counter("controller_runtime_reconcile_errors_total", "Failed reconciles.", c).inc();
  }
}

void Controller::log_outcome(const std::string& key, const ReconcileResult& r) {
  std::unique_lock lock(failures_mu_);
  auto it = failing_.find(key);
  if (r.waiting) return;
  if (r.retry == RetryClass::kConflict && !r.ok()) {
    // A conflict is expected (a cache behind a write): rerun quietly, and keep the error
    // the key failed with so that meeting it again stays at debug.
    lock.unlock();
    spdlog::debug("controller {}: {}={}: {} (conflict, retried)", o_.name, o_.key_label, key, r.error);
    return;
  }
  if (r.ok()) {
    if (it == failing_.end()) return;
    failing_.erase(it);
    lock.unlock();
    spdlog::info("controller {}: {}={}: recovered", o_.name, o_.key_label, key);
    return;
  }
  const bool repeated = it != failing_.end() && it->second == r.error;
  failing_[key] = r.error;
  lock.unlock();
  const char* how = r.retry == RetryClass::kTerminal ? "not retried" : "retried with back-off";
  if (repeated) {
    spdlog::debug("controller {}: {}={}: still: {} ({})", o_.name, o_.key_label, key, r.error, how);
  } else {
    spdlog::warn("controller {}: {}={}: {} ({})", o_.name, o_.key_label, key, r.error, how);
  }
}

}  // namespace dgd::runtime
