#include "dgd/runtime/manager.h"

#include <spdlog/spdlog.h>

#include <atomic>
#include <thread>

#include "dgd/kube/metrics.h"
#include "dgd/kube/rest_client.h"
#include "dgd/runtime/health_server.h"
#include "dgd/runtime/process_memory.h"

namespace dgd::runtime {

Manager::Manager(std::shared_ptr<kube::RestClient> client, ManagerOptions options,
                 std::shared_ptr<kube::RestClient> lease_client)
    : client_(std::move(client)), lease_client_(std::move(lease_client)), o_(std::move(options)) {
  if (!o_.metrics) o_.metrics = std::make_shared<kube::MetricsRegistry>();
  if (o_.leader_election) {
    auto& le = o_.leader_election_options;
    if (le.identity.empty()) le.identity = default_identity();
    if (!le.metrics) le.metrics = o_.metrics;
    if (!lease_client_) {
      kube::ClientOptions co;
      co.user_agent = "dgd-operator/leader-election";
      // A renew must fail fast rather than outlive the renew deadline.
      co.timeout = le.renew_deadline / 2;
      co.max_retries = 0;
      co.metrics = o_.metrics;
      lease_client_ = std::make_shared<kube::RestClient>(client_->config(), co);
    }
    elector_ = std::make_unique<LeaderElector>(make_lease_lock(lease_client_, le.lease_namespace, le.lease_name), le);
    LeaderElector* e = elector_.get();
    client_->set_write_gate([e] { return e->is_leader(); });
  }
}

Manager::~Manager() {
  for (auto& c : controllers_) c->stop();
  for (auto& i : informers_) i->stop();
}

Informer& Manager::add_informer(InformerOptions options) {
  if (!options.metrics) options.metrics = o_.metrics;
  informers_.push_back(std::make_unique<Informer>(client_, std::move(options)));
  return *informers_.back();
}

Controller& Manager::add_controller(ControllerOptions options, std::shared_ptr<Reconciler> reconciler) {
  if (!options.metrics) options.metrics = o_.metrics;
  controllers_.push_back(std::make_unique<Controller>(std::move(options), std::move(reconciler)));
  return *controllers_.back();
}

bool Manager::caches_synced() const {
  for (const auto& i : informers_) {
    if (!i->has_synced()) return false;
  }
  return true;
}

bool Manager::leading() const { return !elector_ || elector_->is_leader(); }

int Manager::run(const kube::CancelToken& stop) {
  if (o_.leader_election) {
    if (auto s = LeaderElector::validate(o_.leader_election_options); !s) {
      spdlog::error("leader election: {}", s.error().message);
      return 2;
    }
  }
  std::vector<std::unique_ptr<HealthServer>> servers;
  std::string metrics_addr = normalize_listen_address(o_.metrics_address);
  std::string health_addr = normalize_listen_address(o_.health_address);
  auto add_server = [&](const std::string& addr, bool metrics, bool probes) -> kube::Status {
    HealthServerOptions ho;
    ho.address = addr;
    ho.metrics = o_.metrics;
    ho.ready = [this] { return caches_synced(); };
    ho.serve_metrics = metrics;
    ho.serve_probes = probes;
    servers.push_back(std::make_unique<HealthServer>(ho));
    kube::Status started = servers.back()->start();
    if (!started.ok()) {
      // Name what could not listen by the option that set its address (the operator's
      // flags carry the same names: --metrics-addr, --health-addr).
      kube::Error e = started.error();
      const std::string paths = metrics && probes ? "/metrics, /healthz and /readyz" : metrics ? "/metrics" : "/healthz and /readyz";
      const std::string option = metrics ? "metrics address (--metrics-addr)" : "health address (--health-addr)";
      e.message = "cannot serve " + paths + " on the " + option + " " + addr + ": " + e.message;
      return e;
    }
    if (o_.on_listening) o_.on_listening(servers.back()->bound_address(), metrics, probes);
    return started;
  };
  kube::Status started_servers;
  if (!metrics_addr.empty() && metrics_addr == health_addr) {
    started_servers = add_server(metrics_addr, true, true);
  } else {
    if (!metrics_addr.empty()) started_servers = add_server(metrics_addr, true, false);
    if (started_servers.ok() && !health_addr.empty()) started_servers = add_server(health_addr, false, true);
  }
  if (!started_servers.ok()) {
    spdlog::error("{}", started_servers.error().to_string());
    return 2;
  }
  for (auto& i : informers_) i->start();
  // Trims on its own thread: malloc_trim walks the heap (a few ms at N = 1000).
  kube::CancelSource trim_stop;
  std::thread trimmer;
  if (o_.heap_trim_interval.count() > 0) {
    trimmer = std::thread([this, t = trim_stop.token()] {
      while (t.sleep_for(o_.heap_trim_interval)) release_free_heap(o_.heap_trim_min_free);
    });
  }

  int rc = 0;
  auto deadline = std::chrono::steady_clock::now() + o_.cache_sync_timeout;
  while (!caches_synced() && !stop.cancelled()) {
    if (std::chrono::steady_clock::now() > deadline) {
      spdlog::error("caches did not sync within {} ms", o_.cache_sync_timeout.count());
      rc = 1;
      break;
    }
    stop.sleep_for(std::chrono::milliseconds(50));
  }
  if (rc == 0 && !stop.cancelled()) {
    spdlog::info("caches synced");
    if (elector_) {
      // Controllers run only while leading; losing the lease ends run() (the process
      // exits and restarts as a follower, as controller-runtime does).
      bool started = false;
      kube::CancelSource elector_stop;
      auto sub = stop.on_cancel([&elector_stop] { elector_stop.cancel(); });
      bool led = false;
      LeaderElector* e = elector_.get();
      std::thread le([&] { led = e->run(elector_stop.token()); });
      while (!stop.cancelled()) {
        if (!started && e->is_leader()) {
          for (auto& c : controllers_) c->start();
          started = true;
        }
        // A stop cancels the elector too (stop's flag is set first): not a lost lease.
        if (started && !e->is_leader() && !stop.cancelled()) {
          spdlog::error("leadership lost: stopping");
          rc = 1;
          break;
        }
        stop.sleep_for(std::chrono::milliseconds(20));
      }
      // Drain controllers first (their writes are gated anyway), then release the lease.
      for (auto& c : controllers_) c->stop();
      elector_stop.cancel();
      le.join();
      (void)led;
    } else {
      for (auto& c : controllers_) c->start();
      while (stop.sleep_for(std::chrono::hours(24))) {
      }
    }
  }
  for (auto& c : controllers_) c->stop();
  for (auto& i : informers_) i->stop();
  for (auto& srv : servers) srv->stop();
  trim_stop.cancel();
  if (trimmer.joinable()) trimmer.join();
  spdlog::info("manager stopped");
  return rc;
}

}  // namespace dgd::runtime
