// Leader election on a coordination.k8s.io/v1 Lease, as client-go's leaderelection:
// candidates retry every retry_period; the holder renews every retry_period and gives up
// when it could not renew for renew_deadline; others take over once they have seen the
// lease unchanged for lease_duration, judged by their own local clock from the moment they
// last saw the record change (so clock skew between candidates does not matter).
//
// Safety: is_leader() turns false by itself renew_deadline after the start of the last
// successful renew, without waiting for the elector thread; since renew_deadline <
// lease_duration, writes gated on it stop before another candidate can take the lease.
// Thread-safe: run() on one thread, is_leader() from any.
#pragma once
#include <atomic>
#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "dgd/kube/cancel.h"
#include "dgd/kube/clock.h"
#include "dgd/kube/error.h"

namespace dgd::kube {
class RestClient;
class MetricsRegistry;
}  // namespace dgd::kube

namespace dgd::runtime {

// The Lease spec fields client-go's LeaderElectionRecord maps onto.
struct LeaseRecord {
  std::string holder_identity;
  int lease_duration_seconds = 0;
  std::string acquire_time;  // MicroTime
  std::string renew_time;    // MicroTime
  int lease_transitions = 0;
  bool operator==(const LeaseRecord&) const = default;
};

// The storage seam of the elector (a Lease object via the REST client, or a fake).
class LeaseLock {
 public:
  virtual ~LeaseLock() = default;
  struct Current {
    LeaseRecord record;
    std::string resource_version;
  };
  // kNotFound when the lease does not exist.
  virtual kube::Result<Current> get() = 0;
  // kAlreadyExists when someone created it first. Returns the new resourceVersion.
  virtual kube::Result<std::string> create(const LeaseRecord& record) = 0;
  // Optimistic update: kConflict when resource_version is stale.
  virtual kube::Result<std::string> update(const LeaseRecord& record, const std::string& resource_version) = 0;
  virtual std::string describe() const = 0;
};

// A Lease `ns/name` through `client` (which must have no write gate).
std::unique_ptr<LeaseLock> make_lease_lock(std::shared_ptr<kube::RestClient> client, std::string ns,
                                           std::string name);

struct LeaderElectionOptions {
  std::string lease_namespace;
  std::string lease_name;
  std::string identity;  // unique per process: "<hostname>_<random>"
  // Defaults of controller-runtime / kube-controller-manager.
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
  // On clean shutdown write an empty holder and leaseDurationSeconds 1 so the next
  // candidate takes over within one retry_period.
  bool release_on_cancel = true;
  const kube::Clock* clock = nullptr;  // null: real clock
  std::shared_ptr<kube::MetricsRegistry> metrics;  // leader_election_master_status
};

struct LeaderCallbacks {
  std::function<void()> on_started_leading;
  // Called when leadership ends (lost, or released at shutdown). By then is_leader() is
  // already false. controller-runtime exits the process here rather than risk two leaders.
  std::function<void()> on_stopped_leading;
  std::function<void(const std::string& identity)> on_new_leader;
};

// "<hostname>_<16 hex random>".
std::string default_identity();

class LeaderElector {
 public:
  LeaderElector(std::unique_ptr<LeaseLock> lock, LeaderElectionOptions options, LeaderCallbacks callbacks = {});
  ~LeaderElector();

  // lease_duration > renew_deadline > 1.2 * retry_period > 0 (client-go's rules).
  static kube::Status validate(const LeaderElectionOptions& options);

  // Blocks: acquires, renews, and returns when leadership is lost or `cancel` fires (then
  // releases the lease if we held it and release_on_cancel). Returns true if it ever led.
  bool run(const kube::CancelToken& cancel);

  // One step of client-go's tryAcquireOrRenew. Public for tests.
  bool try_acquire_or_renew();
  // Writes the released record if we hold the lease. Public for tests.
  bool release();

  // True while writes are safe (see the file comment). Lock-free.
  bool is_leader() const;
  // Last holder seen in the lease.
  std::string observed_holder() const;
  const LeaderElectionOptions& options() const { return o_; }

 private:
  void set_gauge(bool leading);
  std::unique_ptr<LeaseLock> lock_;
  const LeaderElectionOptions o_;
  LeaderCallbacks cb_;
  const kube::Clock& clock_;
  mutable std::mutex mu_;
  std::optional<LeaseRecord> observed_;
  std::string observed_rv_;
  kube::Clock::time_point observed_time_{};
  std::string reported_leader_;
  // Steady-clock ticks until which we may act as leader; min() when not leading.
  std::atomic<kube::Clock::duration::rep> leader_until_;
};

}  // namespace dgd::runtime
