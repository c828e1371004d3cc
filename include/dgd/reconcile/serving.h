// ServingChecks: the operator's Serving condition. Once a DGD is Ready for its
// current generation, a smoke request (smoke.h) goes to its frontend on a worker thread of
// this class, never on a reconcile worker; the result re-enqueues the DGD, and the
// reconcile only reads the latest result (observe) into StatusInput::extra_conditions.
//
// Rules:
//  - Off unless SmokePlan::enabled (spec.smokeTest; on by default for recipe DGDs).
//  - Not Ready: Serving=Unknown/AwaitingReady, and the next Ready (a rollout, a replaced
//    pod) runs the check again. A new generation or a changed plan runs it again too.
//  - While a check is pending the previous condition is kept (from the live status after
//    an operator restart), so a restart at rest writes nothing.
//  - False: retried with back-off (retry_initial doubling to retry_max). A retry that
//    ends the same way (same reason and HTTP status) keeps the condition as it is, so a
//    graph at rest causes zero writes; its latency goes to the debug log only.
//  - A changed outcome is "news": the reconcile records one Event (with the latency).
//  - At most `concurrency` checks run at once; a slow frontend delays only its own
//    DGD's check. Serving never changes Ready.
// Thread-safe.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "dgd/kube/cancel.h"
#include "dgd/reconcile/smoke.h"
#include "dgd/reconcile/status.h"

namespace dgd::kube {
class RestClient;
}
namespace dgd::api {
struct Dgd;
}

namespace dgd::reconcile {

class EventRecorder;
class SmokeTransport;

inline constexpr const char* kConditionServing = "Serving";
inline constexpr const char* kReasonSmokeTestPassed = "SmokeTestPassed";
inline constexpr const char* kReasonAwaitingReady = "AwaitingReady";
inline constexpr const char* kReasonSmokeTestPending = "SmokeTestPending";
inline constexpr const char* kReasonNoServedModelName = "NoServedModelName";
inline constexpr const char* kReasonServingCheckPassed = "ServingCheckPassed";  // events
inline constexpr const char* kReasonServingCheckFailed = "ServingCheckFailed";

struct ServingOptions {
  bool enabled = true;                 // --serving-checks: false turns every check off
  std::string via = "service-dns";     // service-dns | apiserver-proxy
  int concurrency = 2;                 // checks in flight at once
  double retry_initial_seconds = 10;   // back-off while False: doubling ...
  double retry_max_seconds = 300;      // ... up to this
};

// The Serving condition of a finished check (True/SmokeTestPassed or False/<diagnosis>).
Condition serving_condition(const SmokeResult& result);

class ServingChecks {
 public:
  // Builds the transport for a DGD's frontend (namespace, plan).
  using TransportFactory = std::function<std::unique_ptr<SmokeTransport>(const std::string& ns, const SmokePlan&)>;
  using Requeue = std::function<void(const std::string& key)>;

  ServingChecks(ServingOptions options, TransportFactory factory);
  ~ServingChecks();  // stop()
  ServingChecks(const ServingChecks&) = delete;
  ServingChecks& operator=(const ServingChecks&) = delete;

  // Starts the worker threads; `requeue(key)` ("ns/name") is called when a DGD's
  // condition changed. The returned guard stops the workers when destroyed: declare it
  // after the controller that `requeue` uses.
  class Stopper {
   public:
    explicit Stopper(ServingChecks* checks) : checks_(checks) {}
    Stopper(Stopper&& other) noexcept : checks_(std::exchange(other.checks_, nullptr)) {}
    Stopper(const Stopper&) = delete;
    Stopper& operator=(const Stopper&) = delete;
    Stopper& operator=(Stopper&&) = delete;
    ~Stopper() {
      if (checks_ != nullptr) checks_->stop();
    }

   private:
    ServingChecks* checks_;
  };
  [[nodiscard]] Stopper start(Requeue requeue);
  // Cancels checks in flight and joins the workers. Idempotent.
  void stop();

  struct Observation {
    std::optional<Condition> condition;  // nullopt: the check is off (no Serving condition)
    // Set once per changed outcome: an Event to record (type, reason, message).
    std::optional<std::tuple<std::string, std::string, std::string>> event;
  };
  // From a reconcile of `key`: what to report, and schedules a check when due.
  // `previous` is the live Serving condition (status), if any.
  Observation observe(const std::string& key, const std::string& ns, const std::string& uid, int64_t generation,
                      bool ready, const SmokePlan& plan, const std::optional<Condition>& previous);
  // The DGD is gone: drop its state (a check in flight is discarded).
  void forget(const std::string& key);

  // Checks started so far (tests, metrics).
  uint64_t checks_started() const;

 private:
  struct Entry;
  void worker();
  // Earlier results stop counting; a check in flight is canceled. REQUIRES: mu_ held.
  static void reset(Entry& e);
  std::chrono::steady_clock::duration retry_delay(int failures) const;

  const ServingOptions options_;
  const TransportFactory factory_;
  Requeue requeue_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::map<std::string, std::shared_ptr<Entry>> entries_;
  std::vector<std::thread> workers_;
  bool stopping_ = false;
  uint64_t started_ = 0;
  kube::CancelSource cancel_;
};

// The operator's wiring: ServingChecks for `options` (nullptr when disabled). With
// via=apiserver-proxy the requests go through `client` (RBAC: services/proxy create).
std::unique_ptr<ServingChecks> make_serving_checks(const ServingOptions& options,
                                                   std::shared_ptr<kube::RestClient> client);

// The reconcile hook: computes Ready from `in` (compute_status), asks `checks` and adds
// the Serving condition to in.extra_conditions; records the Event of a changed outcome.
// `user` is the DGD as written, `graph` the expanded graph, `dgd` the live object.
void add_serving_condition(ServingChecks& checks, EventRecorder& events, const nlohmann::json& dgd,
                           const std::string& ns, const std::string& name, const api::Dgd& user,
                           const api::Dgd& graph, StatusInput& in);
// The same with the plan already made (smoke_plan of the DGD as written and its graph).
void add_serving_condition(ServingChecks& checks, EventRecorder& events, const nlohmann::json& dgd,
                           const std::string& ns, const std::string& name, const SmokePlan& plan,
                           StatusInput& in);

}  // namespace dgd::reconcile
