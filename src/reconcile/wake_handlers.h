// Event handlers that map a change of an object the DGDs do not own to the DGDs it
// concerns: a download Job (owned by its cache PVC, waited on by several DGDs) and a
// scaling adapter (it names its DGD in spec.dgdRef and may have no owner). Each only
// enqueues, after `window`.
#pragma once

#include <chrono>

#include "dgd/reconcile/dgd_reconciler.h"
#include "dgd/runtime/controller.h"
#include "dgd/runtime/informer.h"

namespace dgd::reconcile {

// Wakes the DGDs whose latest reconcile used the Job, when its download state changes.
runtime::EventHandler wake_dgds_on_download_change(runtime::Controller& controller, DgdReconciler& reconciler,
                                                   std::chrono::milliseconds window);

// Wakes the DGD an adapter's spec.dgdRef names; the echo of the operator's own status
// write does not.
runtime::EventHandler wake_dgd_of_adapter(runtime::Controller& controller, std::chrono::milliseconds window);

}  // namespace dgd::reconcile
