// The dgd-operator process: informers on DGDs and on every child kind (scoped by
// the operator's label), one controller running DgdReconciler, leader election,
// /metrics, /healthz and /readyz. `dgd-operator run` parses flags into
// OperatorOptions and calls run_operator.
//
// A child kind the server does not serve (no ComputeDomain CRD) does not stop the
// operator: it logs one line, runs without that informer, reports the kind in the
// status of DGDs that need it, and probes again every `kind_probe_interval`; once
// the kind appears its informer starts and every DGD is reconciled again.
#pragma once

#include <chrono>
#include <string>

#include "dgd/kube/cancel.h"
#include "dgd/kube/config.h"
#include "dgd/reconcile/serving.h"

namespace dgd::reconcile {

inline constexpr const char* kOperatorVersion = "0.1.0";  // CMake project version

struct OperatorOptions {
  // Kubeconfig file and context; both empty: KUBECONFIG, else in-cluster, else ~/.kube/config.
  kube::KubeconfigOptions kubeconfig;
  std::string watch_namespace;                 // "" = all namespaces
  std::string metrics_address = ":8080";       // /metrics; "0" disables
  std::string health_address = ":8081";        // /healthz, /readyz; "0" disables; equal: one listener
  int concurrency = 4;                         // reconcile workers (distinct DGDs in parallel)
  double qps = 0;                              // client-side limit; <= 0: none (APF protects the server)
  int burst = 10;
  bool leader_elect = true;
  std::string leader_election_namespace;       // "" = the config's namespace (the pod's, in-cluster)
  std::string leader_election_id = "dgd-operator-leader";
  std::chrono::milliseconds lease_duration{15000};
  std::chrono::milliseconds renew_deadline{10000};
  std::chrono::milliseconds retry_period{2000};
  std::chrono::milliseconds kind_probe_interval{30000};
  // Least time between progress-only status writes of one DGD (dgd_reconciler.h).
  std::chrono::milliseconds status_progress_interval{5000};
  // Progress-only status writes per second for all DGDs together (dgd_reconciler.h).
  double status_progress_qps = 2;
  // How long a child's (or pod's, node's, download Job's) event waits before its DGD is
  // reconciled; every event of that DGD within the window shares the reconcile.
  std::chrono::milliseconds child_event_window{300};
  std::chrono::milliseconds cache_sync_timeout{120000};
  ServingOptions serving;                      // the Serving condition's checks (serving.h)
  // A PodMonitor per DGD (pod_monitor.h); off: the kind is neither watched nor written,
  // so the operator needs no RBAC on monitoring.coreos.com.
  bool pod_monitors = false;
  // The ClusterRole each namespace's planner-serviceaccount is bound to (the chart's).
  std::string planner_cluster_role = "dgd-operator-planner";
  // PROMETHEUS_ENDPOINT of every component ("": not set).
  std::string prometheus_endpoint;
};

// Runs until `stop` fires (returns 0 after a clean drain) or a fatal problem:
// 1 = leadership lost or caches did not sync, 2 = configuration error.
int run_operator(const OperatorOptions& options, const kube::CancelToken& stop);

}  // namespace dgd::reconcile
