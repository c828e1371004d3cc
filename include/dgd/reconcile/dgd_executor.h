// execute: carries out a Plan (dgd_plan.h) against the API server: server-side applies
// (field manager dgd-operator, force) of the children that differ, deletes of the ones
// no longer wanted, the scaling adapters' creates and status (scaling_adapters.h), and the
// creation of a missing model-download Job, owned by its cache
// PVC and shared with the other DGDs that use it (shared_download.h). Before it creates
// anything it reads the DGD from the server, so a cache that lags a deletion never makes
// it re-create children. It records one Event per kind of change and returns what it
// wrote and what failed; it never retries (the work queue does).
// Stateless; safe to call from several workers at once.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dgd/kube/error.h"
#include "dgd/reconcile/cluster.h"
#include "dgd/reconcile/dgd_memo.h"
#include "dgd/reconcile/dgd_plan.h"
#include "dgd/reconcile/events.h"
#include "dgd/reconcile/shared_download.h"

namespace dgd::reconcile {

struct Execution {
  // End the pass without a status: leadership is lost, the server shows the DGD gone or
  // being deleted, or reading it failed (then api_errors says why).
  bool stop = false;
  std::map<std::string, nlohmann::json> applied;  // object_key -> as the apply returned it
  std::vector<std::string> api_errors;            // writes that failed
  std::vector<std::string> sync_problems;         // children the server refused ("what: why")
  std::optional<nlohmann::json> job;              // the download Job, if known now
  bool claim_missing = false;                     // its PVC does not exist
  bool download_in_flight = false;                // another pass is creating the Job
  bool job_created = false;
  bool adapters_created = false;                  // a scaling adapter was created
  std::vector<nlohmann::json> job_pods;           // pods of a failed Job

  // Every child as desired and nothing pending: the memo may be kept.
  bool settled(const Plan& plan) const;
};

struct ExecutorContext {
  Cluster& cluster;
  EventRecorder& events;
  SharedDownloads& downloads;
};

// `previous` is the memo of the DGD's last settled pass, or null: a child it recorded
// that is created again was deleted outside the operator (said so in the Event).
Execution execute(const Plan& plan, const DgdMemo* previous, ExecutorContext& ctx, const runtime::ObjectKey& key);

}  // namespace dgd::reconcile
