// DgdReconciler: makes one DynamoGraphDeployment's children match its spec, and
// reports what the cluster shows in its status (DESIGN.md §3).
//
// reconcile(key), level-triggered: it reads the DGD and its children from the
// caches and acts on what it finds, never on what an event said.
//  1. DGD gone, or being deleted (deletionTimestamp): do nothing. Children carry
//     a controller ownerReference and the garbage collector removes them; the
//     operator has no finalizer and never re-creates children of a DGD being
//     deleted (upstream ai-dynamo/dynamo#8204).
//  2. parse → expand (recipe catalog) → validate → render. Any error: status
//     SpecValid=False with every field path, one Warning event InvalidSpec, and
//     NOTHING applied or deleted: an invalid edit never tears down what serves.
//  3. stamp the controller owner; plan against the owned children in the caches;
//     server-side apply only children whose live state lacks a desired field;
//     delete only children this DGD controls and no longer wants.
//  4. status from the live Deployments (Ready only once every component rolled
//     out the current template), written only when it changed: at once when a
//     condition changes status or a generation is observed, while progress alone
//     (replica counts, messages) is written at most once per progress interval.
// Status pass: when the last full pass (2-3) found or left every child as desired (its
// applies all succeeded, nothing to delete) and since then only statuses changed (a Deployment's replica counts, pods, nodes, a progress
// requeue), steps 2-3 are skipped and step 4 reads what that pass found. Anything else
// brings the full pass back: a new generation, labels or annotations of the DGD, a
// child added, deleted or changed outside its status other than the echo of the pass's
// own apply (note_spec_change, note_child_change), a download
// Job that is gone or failed, a change in whether the workers wait for it, an error, or a
// wake 30 s or more after the last full pass.
// Events (Normal ChildCreated / ChildUpdated / ChildDeleted / RolloutComplete,
// Warning InvalidSpec / ApplyFailed / KindNotServed) are sent once per
// generation and only when something happened. At rest: zero writes.
// API errors requeue the key with its own back-off (100 ms doubling to 5 min) rather
// than through the controller's error path, so a lasting problem is logged once
// (warn, `dgd=<ns>/<name>`) until it changes or clears, not at every retry.
// Thread-safe: the controller may run reconciles of different keys at once.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "dgd/reconcile/cluster.h"
#include "dgd/reconcile/events.h"
#include "dgd/reconcile/status.h"
#include "dgd/runtime/controller.h"

namespace dgd::recipes {
class Catalog;
}

namespace dgd::reconcile {

class ServingChecks;

inline constexpr const char* kFieldManager = "dgd-operator";

// False when `after` differs from `before` (two states of one object, as compact JSON
// texts: an informer's cached objects) only in its status, resourceVersion,
// managedFields or the Deployment controller's annotation deployment.kubernetes.io/revision:
// the echo of a status write, a Deployment's replica counts, a rollout's revision number. Everything
// else (spec, labels, annotations, deletionTimestamp, finalizers, uid) makes it true, as
// does a text that is not a JSON object. Parses neither text: it runs on every update.
bool changed_outside_status(std::string_view before, std::string_view after);

struct DgdReconcilerOptions {
  // Reporting instance of events (the pod name or leader identity).
  std::string instance = "dgd-operator";
  // The Serving condition's checks (serving.h); nullptr: no Serving condition.
  ServingChecks* serving = nullptr;
  // Least time between two status writes of one DGD that carry only progress (counts,
  // messages; status.h status_transition). It doubles after each progress write, up to
  // 60 s (or itself, if longer), and returns to this value after a transition, so a
  // rollout that takes minutes costs a handful of writes. 0: every change at once.
  std::chrono::milliseconds status_progress_interval{5000};
  // Progress-only status writes per second for every DGD together: each takes the next
  // free slot, so a fleet converging at once (1,000 DGDs waiting minutes on a busy API
  // server) does not add a status write every few seconds per DGD to that server's load.
  // Transitions never wait for a slot. 0: no limit.
  double status_progress_qps = 2;
};

class DgdReconciler final : public runtime::Reconciler {
 public:
  // `cluster` and `catalog` must outlive the reconciler.
  DgdReconciler(Cluster& cluster, const recipes::Catalog& catalog, DgdReconcilerOptions options = {});

  ~DgdReconciler() override;

  runtime::ReconcileResult reconcile(const runtime::ObjectKey& key) override;

  // The next reconcile of `key` ("ns/name") makes the full pass: a child of it was added,
  // deleted or changed outside its status. Informer handlers call this before they enqueue
  // the key. (The download Job is read by the status pass itself.)
  void note_spec_change(const std::string& key);
  // The same for an added or changed child `child` ("group/Kind/ns/name") now at
  // `resource_version`, except when that is the echo of this reconciler's own apply: the
  // object exactly as the apply returned it, which the pass that wrote it already saw.
  void note_child_change(const std::string& key, const std::string& child, const std::string& resource_version);

  // Keys ("ns/name") of the DGDs whose latest reconcile found that they use the download
  // Job ns/job_name (the same model, revision and cache share one Job). A reconcile
  // records its Job before it reads the Job from the cache, so a change of the Job after
  // that read always finds the DGD here. Empty when no DGD is known to use it.
  std::vector<std::string> dgds_using_job(const std::string& ns, const std::string& job_name);

 private:
  // Logs `problem` at warn the first time it is seen for `key`, at debug after.
  void report_problem(const std::string& key, const std::string& problem);
  void clear_problem(const std::string& key);
  // Requeue after an API error with this key's back-off (100 ms doubling to 5 min).
  runtime::ReconcileResult retry(const std::string& key);
  // How long a progress-only status write of `key` must still wait (0: write now).
  std::chrono::milliseconds progress_delay(const std::string& key);
  // Records a status write of `key` (a transition resets the progress interval).
  void note_status_write(const std::string& key, bool transition);

  Cluster& cluster_;
  const recipes::Catalog& catalog_;
  const DgdReconcilerOptions options_;
  EventRecorder events_;
  std::mutex mu_;
  std::map<std::string, std::string> last_problem_;  // key -> last logged problem
  std::map<std::string, int> failures_;              // key -> consecutive API failures
  std::map<std::string, std::string> uids_;          // key -> uid (to forget its events)
  std::set<std::string> created_;                    // "uid\nchild key" this process created
  // Progress coalescing per key: when this process last wrote the DGD's status, and how
  // long the next progress-only write waits after it.
  struct StatusWrite {
    std::chrono::steady_clock::time_point at;
    std::chrono::milliseconds progress_interval{0};
    // The fleet-wide slot this DGD's next progress write holds (epoch: none yet).
    std::chrono::steady_clock::time_point slot{};
  };
  std::map<std::string, StatusWrite> last_status_write_;
  std::chrono::steady_clock::time_point next_progress_slot_{};  // status_progress_qps
  // Download Jobs in use: "ns/job" -> DGD keys, and DGD key -> its "ns/job".
  std::map<std::string, std::set<std::string>> job_users_;
  std::map<std::string, std::string> job_of_;
  void note_job_use(const std::string& key, const std::string& job_key);

  // What the last full pass of a DGD found (dgd_reconciler.cpp), for status passes.
  struct SteadyState;
  std::shared_ptr<const SteadyState> take_steady(const std::string& key, const std::string& fingerprint);
  runtime::ReconcileResult status_pass(const runtime::ObjectKey& key, const nlohmann::json& dgd,
                                       const SteadyState& steady, StatusInput& status_in);
  // Step 4 and the result: computes and writes the status, logs problems.
  runtime::ReconcileResult finish_pass(const std::string& id, const nlohmann::json& dgd, int64_t generation,
                                       const StatusInput& status_in, std::vector<std::string> api_errors,
                                       const std::vector<std::string>& sync_problems, bool waiting_for_claim);
  std::map<std::string, std::shared_ptr<const SteadyState>> steady_;
  std::set<std::string> spec_changed_;  // keys whose next pass must be full
  // Children the last full pass of a DGD changed, whose watch event has not come yet:
  // DGD key -> child key -> the resourceVersions before ("" for a create) and after.
  struct Echo {
    std::string before, after;
  };
  std::map<std::string, std::map<std::string, Echo>> echoes_;
  // DGDs in the apply step of a full pass -> child events seen meanwhile (child key ->
  // resourceVersion) that its applies have not claimed as their echo yet.
  std::map<std::string, std::map<std::string, std::string>> applying_;
  // The resourceVersion before the last full pass's write of `child`, while its event is
  // pending.
  std::optional<std::string> pending_echo(const std::string& key, const std::string& child);
  void begin_applies(const std::string& key);
  void note_own_write(const std::string& key, const std::string& child, const std::string& before,
                      const std::string& after);
  void end_applies(const std::string& key);

  // Download Jobs ("ns/job") a pass of this process created or is creating, for the other
  // DGDs that share them while the cache does not have them yet.
  struct DownloadEntry {
    std::chrono::steady_clock::time_point at;
    std::shared_ptr<const nlohmann::json> job;  // as the create returned it; null while in flight
  };
  std::map<std::string, DownloadEntry> downloads_;
  struct DownloadClaim {
    bool mine = false;                            // the caller creates the Job
    std::shared_ptr<const nlohmann::json> created;  // else: the Job, or null while in flight
  };
  DownloadClaim claim_download(const std::string& download);
  // The claimer's create returned `created`, or (nullptr) did not happen.
  void finish_download_claim(const std::string& download, const nlohmann::json* created);
};

}  // namespace dgd::reconcile
