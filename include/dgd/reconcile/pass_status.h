// What a reconcile pass reports and remembers once its plan is carried out: the status
// input (status.h) from the plan, the executor's results and the caches (placement,
// the Serving checks), and the memo the pass leaves (dgd_memo.h). Reads the caches only.
#pragma once

#include <memory>
#include <string>

#include "dgd/reconcile/cluster.h"
#include "dgd/reconcile/dgd_executor.h"
#include "dgd/reconcile/dgd_memo.h"
#include "dgd/reconcile/dgd_plan.h"
#include "dgd/reconcile/events.h"
#include "dgd/reconcile/status.h"

namespace dgd::reconcile {

class ServingChecks;

// The status input of the pass. It points into `plan` and `ex`, which must outlive it.
// `serving` null: no Serving condition.
StatusInput observe_status(const Plan& plan, const Execution& ex, ClusterCache& cache, ServingChecks* serving,
                           EventRecorder& events, const runtime::ObjectKey& key, const std::string& now);

// The memo a settled kSync pass leaves: the plan's, with what the executor wrote and
// whether the workers are held back (`in`, the pass's status input).
std::shared_ptr<const DgdMemo> memo_after(const Plan& plan, const Execution& ex, const StatusInput& in);

}  // namespace dgd::reconcile
