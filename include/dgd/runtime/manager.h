// Manager: wires informers, controllers and leader election into one process, as
// controller-runtime's manager. run():
//  1. starts the health server (/metrics, /healthz, /readyz) and every informer;
//  2. waits for the caches to sync (readyz turns 200 once all have synced);
//  3. with leader election: campaigns; controllers start only once leading, and every
//     write of the clients gated by the elector is refused the moment leadership is lost;
//  4. hands free heap pages back to the OS now and then (heap_trim_interval);
//  5. returns when `stop` fires (SIGTERM): controllers drain in-flight reconciles, the
//     lease is released, informers and the server stop. Returns non-zero if leadership
//     was lost or the caches did not sync: the process should exit and be restarted.
// Single-owner: build, add, run from one thread.
#pragma once
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "dgd/kube/cancel.h"
#include "dgd/runtime/controller.h"
#include "dgd/runtime/informer.h"
#include "dgd/runtime/leader_election.h"

namespace dgd::kube {
class RestClient;
class MetricsRegistry;
}  // namespace dgd::kube

namespace dgd::runtime {

struct ManagerOptions {
  // Listen addresses ("host:port" or ":port"; "" or "0" disables; port 0 lets the kernel
  // pick). When both are equal one listener serves /metrics, /healthz and /readyz.
  std::string metrics_address = ":8080";
  std::string health_address = ":8081";
  // Called from run() with each listener's bound "host:port" once it accepts connections.
  std::function<void(const std::string& bound_address, bool serves_metrics, bool serves_probes)> on_listening;
  bool leader_election = false;
  // lease namespace/name/identity and timings; clock and metrics are filled in by the manager.
  LeaderElectionOptions leader_election_options;
  std::chrono::milliseconds cache_sync_timeout{120000};  // controller-runtime's 2 min
  std::shared_ptr<kube::MetricsRegistry> metrics;        // null: the manager makes one
  // While running, free heap pages go back to the OS every interval once at least
  // `heap_trim_min_free` bytes are free (process_memory.h); 0 turns it off.
  std::chrono::milliseconds heap_trim_interval{10000};
  size_t heap_trim_min_free = size_t{4} << 20;
};

class Manager {
 public:
  // `client` is the client controllers write through: its writes are gated on leadership.
  // `lease_client` (ungated, may be null: then one is built from client's config) holds
  // the lease.
  Manager(std::shared_ptr<kube::RestClient> client, ManagerOptions options,
          std::shared_ptr<kube::RestClient> lease_client = nullptr);
  ~Manager();

  std::shared_ptr<kube::MetricsRegistry> metrics() const { return o_.metrics; }
  std::shared_ptr<kube::RestClient> client() const { return client_; }
  // The informer is owned by the manager and started by run().
  Informer& add_informer(InformerOptions options);
  Controller& add_controller(ControllerOptions options, std::shared_ptr<Reconciler> reconciler);

  // Blocks until `stop` fires or leadership is lost. 0 = clean stop.
  int run(const kube::CancelToken& stop);

  bool caches_synced() const;
  bool leading() const;

 private:
  std::shared_ptr<kube::RestClient> client_;
  std::shared_ptr<kube::RestClient> lease_client_;
  ManagerOptions o_;
  std::vector<std::unique_ptr<Informer>> informers_;
  std::vector<std::unique_ptr<Controller>> controllers_;
  std::unique_ptr<LeaderElector> elector_;
};

}  // namespace dgd::runtime
