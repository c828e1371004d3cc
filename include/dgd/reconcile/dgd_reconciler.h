// DgdReconciler: makes one DynamoGraphDeployment's children match its spec and reports
// what the cluster shows in its status (DESIGN.md §3). A reconcile is a function of the
// key and the caches: plan (dgd_plan.h, pure) -> execute (dgd_executor.h) -> status
// (status_writer.h). It keeps between passes only
//  - a memo per DGD (dgd_memo.h) that saves the parse, expand and render of a DGD whose
//    children are as the last pass left them; forget_memo at any moment gives the same
//    children and status;
//  - the cross-DGD parts: the shared model download (shared_download.h) and the
//    fleet-wide pacing of progress-only status writes (status_pacing.h);
//  - the Events already sent (events.h).
// Watch handlers only enqueue keys. Failures return to the work queue with their retry
// class (an API error backs off there; an invalid spec or a kind the server does not
// serve is terminal until something changes); nothing here retries or sleeps.
// At rest: zero writes. Thread-safe: the controller runs reconciles of different keys at once.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "dgd/kube/clock.h"
#include "dgd/reconcile/cluster.h"
#include "dgd/reconcile/dgd_memo.h"
#include "dgd/reconcile/dgd_plan.h"
#include "dgd/reconcile/events.h"
#include "dgd/reconcile/shared_download.h"
#include "dgd/reconcile/status_pacing.h"
#include "dgd/runtime/controller.h"

namespace dgd::recipes {
class Catalog;
}

namespace dgd::reconcile {

class ServingChecks;

struct DgdReconcilerOptions {
  // Reporting instance of events (the pod name or leader identity).
  std::string instance = "dgd-operator";
  // The Serving condition's checks (serving.h); nullptr: no Serving condition.
  ServingChecks* serving = nullptr;
  // Progress-only status writes (status_pacing.h): least time between two of one DGD
  // (0: every change at once), and per second for all DGDs together (0: no limit).
  std::chrono::milliseconds status_progress_interval{5000};
  double status_progress_qps = 2;
  // Every DGD gets a PodMonitor (pod_monitor.h, dgd_plan.h Snapshot::pod_monitors).
  bool pod_monitors = false;
  // The clock of the pacing and of the download claims; null: the real clock.
  const kube::Clock* clock = nullptr;
  // What the renderer needs of the operator's settings (planner ClusterRole, Prometheus).
  render::RenderOptions render;
};

class DgdReconciler final : public runtime::Reconciler {
 public:
  // `cluster` and `catalog` (and options.clock) must outlive the reconciler.
  DgdReconciler(Cluster& cluster, const recipes::Catalog& catalog, DgdReconcilerOptions options = {});

  runtime::ReconcileResult reconcile(const runtime::ObjectKey& key) override;

  // Keys ("ns/name") of the DGDs whose latest pass used the download Job ns/job_name:
  // the ones a change of that Job wakes. Empty when no DGD is known to use it.
  std::vector<std::string> dgds_using_job(const std::string& ns, const std::string& job_name) const;

  // Drops the memo of `key` ("ns/name"): the next pass plans in full.
  void forget_memo(const std::string& key) { memos_.forget(key); }
  // How many DGDs the reconciler remembers sent Events of: at most the live ones.
  size_t dgds_with_events() const { return events_.remembered_dgds(); }

 private:
  void forget(const std::string& key);

  Cluster& cluster_;
  const recipes::Catalog& catalog_;
  const DgdReconcilerOptions options_;
  const kube::Clock& clock_;
  EventRecorder events_;
  MemoStore memos_;
  SharedDownloads downloads_;
  StatusPacer pacer_;
};

}  // namespace dgd::reconcile
