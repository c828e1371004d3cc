#include "dgd/reconcile/serving.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <nlohmann/json.hpp>
#include <tuple>

#include "dgd/api/dgd.h"
#include "dgd/kube/rest_client.h"
#include "dgd/reconcile/events.h"
#include "dgd/reconcile/smoke_http.h"

namespace dgd::reconcile {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

struct ServingChecks::Entry {
  std::string ns, uid;
  int64_t generation = -1;
  SmokePlan plan;
  uint64_t epoch = 0;          // bumped whenever earlier results stop counting
  bool due = false;            // a check should start at next_at
  Clock::time_point next_at;
  // The check of the current epoch in flight (a check of an earlier epoch is canceled).
  std::optional<uint64_t> running_epoch;
  std::shared_ptr<kube::CancelSource> running_cancel;
  bool have_result = false;    // a result for the current epoch
  std::string signature;       // reason and HTTP status of the reported outcome
  std::optional<Condition> reported;
  std::optional<std::tuple<std::string, std::string, std::string>> event;
  int failures = 0;
};

namespace {

bool same_plan(const SmokePlan& a, const SmokePlan& b) {
  return a.model == b.model && a.prompt == b.prompt && a.max_tokens == b.max_tokens && a.timeout == b.timeout &&
         a.frontend_service == b.frontend_service && a.frontend_port == b.frontend_port &&
         a.disaggregated == b.disaggregated;
}

bool same_condition(const std::optional<Condition>& a, const Condition& b) {
  return a && a->type == b.type && a->status == b.status && a->reason == b.reason && a->message == b.message;
}

std::string signature_of(const SmokeResult& r) {
  return std::string(to_reason(r.diagnosis)) + ":" + std::to_string(r.http_status);
}

}  // namespace

void ServingChecks::reset(Entry& e) {
  e.epoch++;
  e.have_result = false;
  e.due = false;
  e.failures = 0;
  e.signature.clear();
  e.event.reset();
  if (e.running_cancel) e.running_cancel->cancel();
  e.running_cancel.reset();
  e.running_epoch.reset();
}

Condition serving_condition(const SmokeResult& r) {
  if (r.diagnosis == SmokeDiagnosis::kServing) return {kConditionServing, "True", kReasonSmokeTestPassed, r.message};
  std::string message = r.message;
  if (!r.hint.empty()) message += ". " + r.hint;
  return {kConditionServing, "False", to_reason(r.diagnosis), message};
}

ServingChecks::ServingChecks(ServingOptions options, TransportFactory factory)
    : options_(std::move(options)), factory_(std::move(factory)) {}

ServingChecks::~ServingChecks() { stop(); }

ServingChecks::Stopper ServingChecks::start(Requeue requeue) {
  std::lock_guard<std::mutex> lock(mu_);
  requeue_ = std::move(requeue);
  if (workers_.empty() && !stopping_) {
    for (int i = 0; i < std::max(1, options_.concurrency); ++i) workers_.emplace_back([this] { worker(); });
  }
  return Stopper(this);
}

void ServingChecks::stop() {
  std::vector<std::thread> workers;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
    workers.swap(workers_);
  }
  cancel_.cancel();
  cv_.notify_all();
  for (auto& t : workers) {
    if (t.joinable()) t.join();
  }
}

uint64_t ServingChecks::checks_started() const {
  std::lock_guard<std::mutex> lock(mu_);
  return started_;
}

Clock::duration ServingChecks::retry_delay(int failures) const {
  const double s = std::min(options_.retry_max_seconds,
                            options_.retry_initial_seconds * std::pow(2.0, std::min(failures, 30)));
  return std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(std::max(0.001, s)));
}

ServingChecks::Observation ServingChecks::observe(const std::string& key, const std::string& ns,
                                                  const std::string& uid, int64_t generation, bool ready,
                                                  const SmokePlan& plan, const std::optional<Condition>& previous) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!options_.enabled || !plan.enabled) {
    if (auto it = entries_.find(key); it != entries_.end()) {
      reset(*it->second);
      entries_.erase(it);
    }
    return {};
  }
  auto& slot = entries_[key];
  if (!slot) slot = std::make_shared<Entry>();
  Entry& e = *slot;
  if (e.uid != uid || e.generation != generation || !same_plan(e.plan, plan)) {
    // A new object, generation or request: earlier results no longer say anything.
    reset(e);
    e.uid = uid;
    e.generation = generation;
    e.plan = plan;
    e.ns = ns;
  }
  if (plan.model.empty()) {
    e.due = false;
    return {Condition{kConditionServing, "False", kReasonNoServedModelName,
                      "no served model name to send: set spec.model.servedName (or spec.model.id), or disable "
                      "spec.smokeTest"},
            std::nullopt};
  }
  if (plan.frontend_service.empty()) {
    e.due = false;
    return {Condition{kConditionServing, "False", "NoFrontend", "the graph has no frontend component to send the smoke request to"},
            std::nullopt};
  }
  if (!ready) {
    // The next Ready (rollout done, pod replaced) is checked afresh.
    if (e.have_result || e.due || e.running_epoch) reset(e);
    e.reported = Condition{kConditionServing, "Unknown", kReasonAwaitingReady,
                           "the smoke request is sent once the graph is Ready"};
    return {e.reported, std::nullopt};
  }
  if (!e.have_result) {
    if (!e.due && e.running_epoch != e.epoch) {
      e.due = true;
      e.next_at = Clock::now();
      cv_.notify_one();
    }
    // Until the result arrives, keep what the status says (no write for an operator restart).
    if (previous) {
      e.reported = previous;
    } else if (!e.reported || e.reported->reason == kReasonAwaitingReady) {
      e.reported = Condition{kConditionServing, "Unknown", kReasonSmokeTestPending,
                             "the smoke request is on its way to the frontend"};
    }
    return {e.reported, std::nullopt};
  }
  Observation o{e.reported, std::move(e.event)};
  e.event.reset();
  return o;
}

void ServingChecks::forget(const std::string& key) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = entries_.find(key);
  if (it == entries_.end()) return;
  reset(*it->second);
  entries_.erase(it);
}

void ServingChecks::worker() {
  std::unique_lock<std::mutex> lock(mu_);
  while (!stopping_) {
    const auto now = Clock::now();
    std::string key;
    std::shared_ptr<Entry> pick;
    std::optional<Clock::time_point> earliest;
    for (auto& [k, e] : entries_) {
      if (!e->due || e->running_epoch == e->epoch) continue;
      if (e->next_at <= now) {
        key = k;
        pick = e;
        break;
      }
      if (!earliest || e->next_at < *earliest) earliest = e->next_at;
    }
    if (!pick) {
      if (earliest) {
        cv_.wait_until(lock, *earliest);
      } else {
        cv_.wait(lock);
      }
      continue;
    }
    pick->due = false;
    const uint64_t epoch = pick->epoch;
    auto check_cancel = std::make_shared<kube::CancelSource>();
    pick->running_epoch = epoch;
    pick->running_cancel = check_cancel;
    const SmokePlan plan = pick->plan;
    const std::string ns = pick->ns;
    ++started_;
    lock.unlock();

    auto on_stop = cancel_.token().on_cancel([check_cancel] { check_cancel->cancel(); });
    SmokeResult result;
    std::string where;
    try {
      std::unique_ptr<SmokeTransport> transport = factory_(ns, plan);
      where = transport->where();
      SmokeExchange ex = transport->post(smoke_request_body(plan),
                                         std::chrono::duration_cast<std::chrono::milliseconds>(plan.timeout),
                                         check_cancel->token());
      if (ex.failure == SmokeExchange::Failure::kNone && ex.status == 0) ex.failure = SmokeExchange::Failure::kUnreachable;
      result = diagnose(ex, plan);
    } catch (const std::exception& ex) {
      SmokeExchange failed;
      failed.failure = SmokeExchange::Failure::kUnreachable;
      failed.error = ex.what();
      result = diagnose(failed, plan);
    }

    lock.lock();
    if (pick->running_epoch == epoch) {
      pick->running_epoch.reset();
      pick->running_cancel.reset();
    }
    auto it = entries_.find(key);
    if (stopping_ || it == entries_.end() || it->second != pick || pick->epoch != epoch) {
      cv_.notify_all();  // a stale result: the entry may want a fresh check
      continue;
    }
    Entry& e = *pick;
    const Condition cond = serving_condition(result);
    const std::string sig = signature_of(result);
    bool changed = false;
    if (!e.have_result) {
      changed = !same_condition(e.reported, cond);
      e.reported = cond;
    } else if (sig != e.signature) {
      changed = true;
      e.reported = cond;
    }
    e.have_result = true;
    e.signature = sig;
    const bool serving = result.diagnosis == SmokeDiagnosis::kServing;
    if (serving) {
      e.failures = 0;
    } else {
      e.due = true;
      e.next_at = Clock::now() + retry_delay(e.failures);
      e.failures++;
    }
    const std::string detail = cond.reason + " after " + std::to_string(result.latency.count()) + " ms (" + where + ")";
    if (changed) {
      e.event = std::make_tuple(std::string(serving ? "Normal" : "Warning"),
                                std::string(serving ? kReasonServingCheckPassed : kReasonServingCheckFailed),
                                (serving ? "Smoke test passed: answer \"" + result.answer.substr(0, 64) + "\", " +
                                               std::to_string(result.completion_tokens.value_or(0)) +
                                               " completion tokens, " + std::to_string(result.latency.count()) + " ms"
                                         : "Smoke test failed: " + cond.reason + ": " + result.message + " (" +
                                               std::to_string(result.latency.count()) + " ms)"));
      if (serving) {
        spdlog::info("dgd={}: serving check: {}", key, detail);
      } else {
        spdlog::warn("dgd={}: serving check: {}: {}", key, detail, result.message);
      }
    } else {
      spdlog::debug("dgd={}: serving check again: {}", key, detail);
    }
    Requeue requeue = changed ? requeue_ : nullptr;
    lock.unlock();
    if (requeue) requeue(key);
    lock.lock();
  }
}

}  // namespace dgd::reconcile
