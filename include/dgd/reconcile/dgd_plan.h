// plan: what one reconcile of a DGD is to do, decided from the key, the caches and the
// memo alone (DESIGN.md §3). Pure: no clock, no logger, no client, no writes; the same
// cache and the same memo give the same plan, and a plan without the memo gives the same
// children and status as one with it (dgd_memo.h).
//
//  - the DGD gone, or being deleted (deletionTimestamp): nothing. Children carry a
//    controller ownerReference and the garbage collector removes them; the operator has
//    no finalizer and never re-creates children of a DGD being deleted (upstream #8204);
//  - the memo current (check_memo): the status only, from what the memo recorded and
//    the cached Deployments and download Job; unless the Job is gone or failed, or
//    whether the workers wait for it changed;
//  - the memo's writes not yet in the cache: wait for their watch events;
//  - otherwise the full plan: run_spec_pipeline; any error: report it and change
//    nothing (an invalid edit never tears down what serves); else stamp the controller
//    owner, diff the desired children against the cached ones (child_plan.h), hold the
//    workers back while the model download has not completed (model_cache.h), and roll
//    worker generations (worker_generations.h). The components' scaling adapters set their
//    replica counts before the render and are created once, never applied over
//    (scaling_adapters.h).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dgd/reconcile/cluster.h"
#include "dgd/reconcile/dgd_memo.h"
#include "dgd/reconcile/model_cache.h"
#include "dgd/reconcile/scaling_adapters.h"
#include "dgd/render/render.h"
#include "dgd/reconcile/worker_generations.h"
#include "dgd/runtime/controller.h"

namespace dgd::recipes {
class Catalog;
}

namespace dgd::reconcile {

inline constexpr const char* kFieldManager = "dgd-operator";

// What a plan reads: the key and the caches, and the download records of the DGD's
// cache PVC when the caller read them (model_cache.h find_download_record: Jobs the
// operator did not make are not in its caches).
struct Snapshot {
  runtime::ObjectKey key;
  ClusterCache& cache;
  const std::vector<nlohmann::json>* download_records = nullptr;
  bool pod_monitors = false;  // each DGD gets a PodMonitor (pod_monitor.h)
};

enum class PlanKind {
  kGone,          // not in the cache: nothing to do
  kDeleting,      // being deleted: the garbage collector's
  kWaitForCache,  // the memo's writes are not in the cache yet
  kStatusOnly,    // children as the memo recorded them: the status only
  kInvalidSpec,   // report spec_errors, change nothing
  kSync,          // apply, prune, create the download Job, then the status
};

struct ChildWrite {
  const ChildKind* kind = nullptr;
  nlohmann::json object;  // desired (apply) or live (remove)
  bool exists = false;    // apply: the cache has it (an update, not a create)
  std::string change;     // apply of an existing child: where it first differs
  std::string live_version;  // apply: the resourceVersion the cache holds ("" for a create)
};

struct Plan {
  PlanKind kind = PlanKind::kGone;
  nlohmann::json dgd;  // the cached DGD (without spec for kStatusOnly)
  std::string uid;
  int64_t generation = 0;
  std::vector<std::string> spec_errors;  // kInvalidSpec
  std::string backend_framework;         // kSync: the expanded graph's engine ("vllm", ...)
  std::vector<ChildWrite> apply, remove;
  // kSync: Deployments of old worker generations to scale down (their removals are in
  // `remove`), and where the generation rollout stands (worker_generations.h).
  std::vector<ScaleWrite> scale;
  std::optional<RolloutProgress> rollout;
  std::map<std::string, std::vector<std::string>> old_deployments;  // by component: object keys
  // Children that cannot be written ("what: why"), and the subset about kinds the server
  // does not serve (each is a KindNotServed event).
  std::vector<std::string> sync_problems, kinds_not_served;
  // To create: the cache does not have it (and no download record stands in for it). The
  // caller may read the cache PVC's download records and plan again with them.
  std::optional<nlohmann::json> download_job;
  std::optional<nlohmann::json> job;           // the download Job as cached
  // kSync: the scaling adapters to create, whose status to write, and the refused ones.
  AdapterPlan adapters;
  // The status: every component, and the cached Deployments (object_key -> view).
  std::vector<DgdMemo::Component> components;
  std::map<std::string, nlohmann::json> deployments;
  // kSync: status.restart as this pass decided it (restart.h; null: none). Otherwise
  // nullopt: the live one stays.
  std::optional<nlohmann::json> restart;
  // kSync: the memo must not stand in for the next pass (a restart in progress, a
  // PodMonitor the server does not serve yet): it plans in full.
  bool plan_in_full = false;
  // kSync: what the pass remembers if it settles (children it leaves as they are are
  // recorded; the executor adds what it writes). kStatusOnly: the memo used.
  std::shared_ptr<DgdMemo> memo;
  bool creates() const;  // a child or the download Job is created
};

// `render_options`: the operator's settings of what it renders (planner ClusterRole, ...).
Plan plan(const Snapshot& snapshot, const recipes::Catalog& catalog, const DgdMemo* memo,
          const render::RenderOptions& render_options = {});

}  // namespace dgd::reconcile
