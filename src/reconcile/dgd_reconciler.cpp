#include "dgd/reconcile/dgd_reconciler.h"

#include <nlohmann/json.hpp>

#include <spdlog/spdlog.h>

#include "dgd/reconcile/dgd_executor.h"
#include "dgd/reconcile/pass_status.h"
#include "dgd/reconcile/serving.h"
#include "dgd/reconcile/status_writer.h"

namespace dgd::reconcile {

using runtime::ReconcileResult;
using runtime::RetryClass;

namespace {

// How long a pass waits for the watch events of the last pass's own writes (they normally
// come in milliseconds, and bring the DGD back themselves).
constexpr std::chrono::seconds kEchoWait{10};
// How often a DGD whose model-cache PVC does not exist looks for it again (not watched).
constexpr std::chrono::seconds kClaimPoll{10};
// How often a DGD whose download Job another pass is creating looks again.
constexpr std::chrono::seconds kDownloadClaimPoll{1};

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : "; ") + s;
  return out;
}

// The earliest of the waits that are set (0: none).
std::chrono::milliseconds earliest(std::initializer_list<std::chrono::milliseconds> waits) {
  std::chrono::milliseconds out{0};
  for (auto w : waits) {
    if (w.count() > 0 && (out.count() == 0 || w < out)) out = w;
  }
  return out;
}

// The pass's outcome for the work queue.
ReconcileResult outcome(const Plan& p, const Execution& ex, const StatusWrite& w) {
  if (w.gone) return ReconcileResult::done();
  std::vector<std::string> errors = ex.api_errors;
  if (w.error) errors.push_back("status write failed: " + w.error->to_string());
  if (!errors.empty()) {
    const bool conflict = ex.api_errors.empty() && w.error->is(kube::ErrorKind::kConflict);
    return ReconcileResult::failed(join(errors), conflict ? RetryClass::kConflict : RetryClass::kUnavailable);
  }
  ReconcileResult r = ReconcileResult::after(
      earliest({ex.claim_missing ? std::chrono::milliseconds(kClaimPoll) : std::chrono::milliseconds(0),
                ex.download_in_flight ? std::chrono::milliseconds(kDownloadClaimPoll) : std::chrono::milliseconds(0),
                w.progress_wait}));
  std::vector<std::string> problems = p.sync_problems;
  problems.insert(problems.end(), ex.sync_problems.begin(), ex.sync_problems.end());
  if (p.kind == PlanKind::kInvalidSpec) {
    r.error = "invalid spec (generation " + std::to_string(p.generation) + "), nothing changed: " + join(p.spec_errors);
  } else if (!problems.empty()) {
    r.error = join(problems);  // the kind's informer brings the DGD back once its CRD is there
  }
  if (!r.ok()) r.retry = RetryClass::kTerminal;
  return r;
}

// The download Job's resourceVersion in the cache ("" when absent).
std::string job_version(ClusterCache& cache, const std::string& ns, const std::string& job) {
  auto o = cache.cached_status(*find_child_kind("batch/v1", "Job"), ns, job);
  return o ? o->value("/metadata/resourceVersion"_json_pointer, std::string()) : "";
}

}  // namespace

DgdReconciler::DgdReconciler(Cluster& cluster, const recipes::Catalog& catalog, DgdReconcilerOptions options)
    : cluster_(cluster),
      catalog_(catalog),
      options_(std::move(options)),
      clock_(options_.clock != nullptr ? *options_.clock : kube::real_clock()),
      events_(cluster, options_.instance),
      downloads_(clock_),
      pacer_({options_.status_progress_interval, options_.status_progress_qps}, clock_) {}

ReconcileResult DgdReconciler::reconcile(const runtime::ObjectKey& key) {
  const std::string id = key.str();
  const auto memo = memos_.get(id);
  Plan p = plan({key, cluster_, nullptr, options_.pod_monitors}, catalog_, memo.get(), options_.render);
  if (p.kind == PlanKind::kWaitForCache) {
    if (memos_.wait_for_echo(id)) return ReconcileResult::wait_for_cache(kEchoWait);
    p = plan({key, cluster_, nullptr, options_.pod_monitors}, catalog_, nullptr, options_.render);
  }
  if (p.kind == PlanKind::kSync && p.download_job) {
    // The cache has no download Job of ours: a record made outside the operator may do.
    const auto records = cluster_.download_records(key.ns, p.memo->cache->claim);
    if (!records.empty())
      p = plan({key, cluster_, &records, options_.pod_monitors}, catalog_, nullptr, options_.render);
  }
  // The version a pass starts from: how a reader of the log knows a change was seen.
  if (p.dgd.is_object())
    spdlog::debug("dgd={}: reconciling resourceVersion {}", id,
                  p.dgd.value("/metadata/resourceVersion"_json_pointer, std::string()));
  if (p.kind == PlanKind::kGone) {
    forget(id);
    return ReconcileResult::done();
  }
  if (p.kind == PlanKind::kDeleting) return ReconcileResult::done();
  spdlog::debug("dgd={}: {} pass", id, p.kind == PlanKind::kStatusOnly ? "status" : "full");
  if (p.kind != PlanKind::kStatusOnly) memos_.forget(id);
  if (p.kind == PlanKind::kInvalidSpec) events_.record(p.dgd, "Warning", kReasonInvalidSpec, join(p.spec_errors));
  for (const auto& why : p.kinds_not_served) events_.record(p.dgd, "Warning", kReasonKindNotServed, why);

  ExecutorContext ctx{cluster_, events_, downloads_};
  const Execution ex = execute(p, memo.get(), ctx, key);
  if (ex.stop) return ex.api_errors.empty() ? ReconcileResult::done() : ReconcileResult::failed(join(ex.api_errors));
  bool recheck_job = false;
  if (p.kind == PlanKind::kSync) {
    const auto& cache = p.memo->cache;
    const bool downloads = cache && !cache->job_name.empty();
    downloads_.note_use(id, downloads ? key.ns + "/" + cache->job_name : "");
    // A change of the Job between the plan's read and note_use woke no one: look again.
    recheck_job = downloads && !ex.job_created &&
                  job_version(cluster_, key.ns, cache->job_name) !=
                      (p.job ? p.job->value("/metadata/resourceVersion"_json_pointer, std::string()) : "");
  }
  const StatusInput in = observe_status(p, ex, cluster_, options_.serving, events_, key, now_rfc3339());
  const StatusWrite w = write_status(cluster_, p.kind == PlanKind::kInvalidSpec ? nullptr : &pacer_, events_, id,
                                     p.dgd, p.generation, in);
  if (p.kind == PlanKind::kSync && ex.settled(p)) memos_.put(id, memo_after(p, ex, in));
  ReconcileResult r = outcome(p, ex, w);
  if (recheck_job && r.ok()) r.requeue_after = earliest({r.requeue_after, std::chrono::milliseconds(kDownloadClaimPoll)});
  return r;
}

void DgdReconciler::forget(const std::string& key) {
  // Deleted: the garbage collector removes the children (ownerReferences).
  if (options_.serving != nullptr) options_.serving->forget(key);
  downloads_.note_use(key, "");
  memos_.forget(key);
  pacer_.forget(key);
  events_.forget(key);
}

std::vector<std::string> DgdReconciler::dgds_using_job(const std::string& ns, const std::string& job_name) const {
  return downloads_.users_of(ns + "/" + job_name);
}

}  // namespace dgd::reconcile
