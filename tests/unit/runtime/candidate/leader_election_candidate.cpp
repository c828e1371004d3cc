// leader-election-candidate: one candidate of leader_election_kubesim_test.cpp, a process
// of its own. It campaigns on the Lease default/le-test with the identity $DGD_LE_ID and,
// through a client gated on leadership, tries to write its name into the ConfigMap
// le-writes every 50 ms. Losing the lease, or SIGTERM (which releases it), ends the
// process with 0.
//
// Environment: DGD_LE_KUBECONFIG (kube-sim's kubeconfig), DGD_LE_ID, DGD_LE_LEASE_MS
// (lease duration; renew deadline 70 % of it, retry period 300 ms). Its lease requests use
// the bearer token lease-<id>, its writes write-<id>.
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "dgd/kube/rest_client.h"
#include "dgd/runtime/leader_election.h"
#include "dgd/runtime/signals.h"

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

}  // namespace

int main() {
  using namespace dgd;
  using namespace std::chrono_literals;
  if (env("DGD_LE_KUBECONFIG").empty() || env("DGD_LE_ID").empty()) {
    std::fprintf(stderr, "leader-election-candidate: set DGD_LE_KUBECONFIG and DGD_LE_ID\n");
    return 2;
  }
  std::chrono::milliseconds lease_duration{std::atoll(env("DGD_LE_LEASE_MS").c_str())};
  if (lease_duration.count() <= 0) lease_duration = 5000ms;
  runtime::block_termination_signals();
  kube::CancelSource stop;
  std::thread waiter = runtime::start_signal_waiter(stop);
  kube::KubeconfigOptions ko;
  ko.path = env("DGD_LE_KUBECONFIG");
  auto cfg = kube::load_kubeconfig(ko);
  if (!cfg) {
    std::fprintf(stderr, "kubeconfig: %s\n", cfg.error().to_string().c_str());
    return 2;
  }
  std::string id = env("DGD_LE_ID");
  kube::RestConfig lease_cfg = *cfg, write_cfg = *cfg;
  lease_cfg.token = "lease-" + id;
  write_cfg.token = "write-" + id;
  runtime::LeaderElectionOptions o;
  o.lease_namespace = "default";
  o.lease_name = "le-test";
  o.identity = id;
  o.lease_duration = lease_duration;
  o.renew_deadline = lease_duration * 7 / 10;
  o.retry_period = 300ms;
  kube::ClientOptions lo;
  lo.user_agent = "candidate-" + id;
  lo.timeout = o.renew_deadline / 2;
  lo.max_retries = 0;
  auto lease_client = std::make_shared<kube::RestClient>(lease_cfg, lo);
  kube::ClientOptions wo;
  wo.user_agent = "candidate-" + id;
  wo.max_retries = 0;
  kube::RestClient writer(write_cfg, wo);

  runtime::LeaderElector elector(runtime::make_lease_lock(lease_client, "default", "le-test"), o);
  writer.set_write_gate([&] { return elector.is_leader(); });
  kube::CancelSource elector_stop;
  std::thread campaign([&] {
    elector.run(elector_stop.token());
    stop.cancel();  // leadership lost (or released): stop, as the manager does
  });
  nlohmann::json body = {{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "le-writes"}}},
                         {"data", {{"writer", id}}}};
  // A write every 50 ms whatever our state: the gate must refuse it unless leading.
  while (stop.token().sleep_for(50ms)) {
    (void)writer.apply(kube::resources::config_maps(), "default", "le-writes", body, "candidate-" + id, true);
  }
  elector_stop.cancel();
  campaign.join();
  runtime::stop_signal_waiter(waiter);
  return 0;
}
