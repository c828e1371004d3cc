// The manager end to end against kube-sim: informer + controller wired, /readyz turns
// 200 once caches synced, /metrics parses as Prometheus text and carries the documented
// names (docs/operations.md), stop drains and returns 0.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <mutex>
#include <set>
#include <thread>

#include "common/kubesim_process.h"
#include "common/prom_text.h"
#include "dgd/kube/metrics.h"
#include "dgd/kube/rest_client.h"
#include "dgd/runtime/manager.h"

namespace dgd::runtime {
namespace {

using nlohmann::json;
using testing::KubeSimProcess;
using namespace std::chrono_literals;

template <class F>
bool eventually(F f, std::chrono::milliseconds limit = 30s) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (f()) return true;
    std::this_thread::sleep_for(20ms);
  }
  return f();
}

struct Probe {
  explicit Probe(int port) {
    kube::RestConfig c;
    c.server = "http://127.0.0.1:" + std::to_string(port);
    kube::ClientOptions o;
    o.max_retries = 0;
    o.timeout = 2s;
    client = std::make_unique<kube::RestClient>(c, o);
  }
  std::pair<int, std::string> get(const std::string& path) {
    kube::HttpRequest r;
    r.target = path;
    auto resp = client->raw(r);
    if (!resp) return {resp.error().code, resp.error().to_string()};
    return {resp->status, resp->body};
  }
  std::unique_ptr<kube::RestClient> client;
};

TEST(ManagerKubeSim, ServesProbesAndMetricsAndReconciles) {
  KubeSimProcess sim;
  ASSERT_TRUE(sim.ok()) << sim.log();
  auto client = std::make_shared<kube::RestClient>(sim.config(), kube::ClientOptions{});
  // The test's own writes go through an ungated client: the manager gates `client`.
  kube::RestClient setup(sim.config(), kube::ClientOptions{});
  ASSERT_TRUE(setup.create(kube::resources::namespaces(), "",
                             {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", "m"}}}}).ok());
  ASSERT_TRUE(setup.create(kube::resources::config_maps(), "m",
                            {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "seed"}}}}).ok());
  // Port 0: each listener binds a port the kernel picks and reports it. Two addresses (equal
  // ones would share one listener), both reachable on the loopback.
  std::mutex bound_mu;
  std::string metrics_bound, health_bound;
  ManagerOptions mo;
  mo.metrics_address = "127.0.0.1:0";
  mo.health_address = ":0";
  mo.on_listening = [&](const std::string& address, bool serves_metrics, bool serves_probes) {
    std::lock_guard<std::mutex> l(bound_mu);
    if (serves_metrics) metrics_bound = address;
    if (serves_probes) health_bound = address;
  };
  mo.leader_election = true;
  mo.leader_election_options.lease_namespace = "m";
  mo.leader_election_options.lease_name = "manager-test";
  mo.leader_election_options.retry_period = 200ms;
  Manager mgr(client, mo);
  InformerOptions io;
  io.resource = kube::resources::config_maps();
  io.ns = "m";
  Informer& inf = mgr.add_informer(io);
  std::mutex mu;
  std::set<std::string> reconciled;
  std::atomic<int> failures{0};
  ControllerOptions co;
  co.name = "configmaps";
  Controller& ctl = mgr.add_controller(co, std::make_shared<FnReconciler>([&](const ObjectKey& k) {
    if (k.name == "flaky" && failures++ < 1) return ReconcileResult::failed("first try fails");
    // Writes through the manager's client pass the leadership gate.
    auto r = client->patch(kube::resources::config_maps(), k.ns, k.name, kube::PatchType::kMerge,
                           {{"metadata", {{"annotations", {{"reconciled", "yes"}}}}}});
    if (!r && r.error().kind != kube::ErrorKind::kNotFound) return ReconcileResult::failed(r.error().to_string());
    std::lock_guard<std::mutex> l(mu);
    reconciled.insert(k.str());
    return ReconcileResult::done();
  }));
  inf.add_handler(ctl.enqueue_self());

  kube::CancelSource stop;
  int rc = -1;
  std::thread run([&] { rc = mgr.run(stop.token()); });
  struct Joiner {
    kube::CancelSource& stop;
    std::thread& t;
    ~Joiner() {
      stop.cancel();
      if (t.joinable()) t.join();
    }
  } joiner{stop, run};
  auto bound = [&](const std::string& which) {
    std::lock_guard<std::mutex> l(bound_mu);
    return which == "metrics" ? metrics_bound : health_bound;
  };
  ASSERT_TRUE(eventually([&] { return !bound("metrics").empty() && !bound("health").empty(); }));
  auto port_of = [](const std::string& address) { return std::stoi(address.substr(address.rfind(':') + 1)); };
  EXPECT_EQ(bound("health").rfind("0.0.0.0:", 0), 0u) << bound("health");
  ASSERT_NE(port_of(bound("metrics")), 0);
  ASSERT_NE(port_of(bound("metrics")), port_of(bound("health"))) << "two listeners, two ports";
  Probe metrics(port_of(bound("metrics"))), health(port_of(bound("health")));
  ASSERT_TRUE(eventually([&] { return health.get("/healthz").first == 200; }));
  ASSERT_TRUE(eventually([&] { return health.get("/readyz").first == 200; })) << "caches never synced";
  ASSERT_TRUE(setup.create(kube::resources::config_maps(), "m",
                            {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "flaky"}}}}).ok());
  ASSERT_TRUE(eventually([&] {
    std::lock_guard<std::mutex> l(mu);
    return reconciled.count("m/seed") && reconciled.count("m/flaky");
  }));
  EXPECT_TRUE(mgr.leading());
  EXPECT_EQ(health.get("/metrics").first, 404) << "metrics are served on their own address";

  auto [code, text] = metrics.get("/metrics");
  ASSERT_EQ(code, 200);
  std::vector<testing::PromSample> samples;
  ASSERT_EQ(testing::check_prometheus_text(text, &samples), "") << text;
  std::set<std::string> names;
  for (const auto& s : samples) names.insert(s.name);
  for (const char* want :
       {"controller_runtime_reconcile_total", "controller_runtime_reconcile_errors_total",
        "controller_runtime_reconcile_time_seconds_bucket", "workqueue_depth", "workqueue_adds_total",
        "workqueue_queue_duration_seconds_bucket", "workqueue_work_duration_seconds_bucket",
        "workqueue_retries_total", "rest_client_requests_total", "rest_client_request_duration_seconds_bucket",
        "leader_election_master_status", "dgd_informer_cache_objects"}) {
    EXPECT_TRUE(names.count(want)) << "missing metric " << want << "\n" << text;
  }
  for (const auto& s : samples) {
    if (s.name == "leader_election_master_status") {
      EXPECT_EQ(s.value, 1);
    }
  }

  stop.cancel();
  run.join();
  EXPECT_EQ(rc, 0);
  EXPECT_FALSE(mgr.leading());
  // The lease was released on the clean stop.
  auto lease = setup.get(kube::resources::leases(), "m", "manager-test");
  ASSERT_TRUE(lease.ok());
  EXPECT_EQ((*lease)["spec"].value("holderIdentity", "x"), "");
}

}  // namespace
}  // namespace dgd::runtime
