// write_status: the last step of a DGD's reconcile. Computes the status (status.h) and
// writes it to /status only when it changed: at once when it is a transition, while
// progress alone waits for the StatusPacer (status_pacing.h). Records RolloutComplete
// when a generation turns Ready, and StatusWriteFailed when the server refuses the write
// (RBAC), which the status itself cannot say. Stateless beyond the pacer.
#pragma once

#include <chrono>
#include <optional>
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "dgd/kube/error.h"
#include "dgd/reconcile/cluster.h"
#include "dgd/reconcile/events.h"
#include "dgd/reconcile/status.h"
#include "dgd/reconcile/status_pacing.h"

namespace dgd::reconcile {

struct StatusWrite {
  // A progress-only change held back: write it after this long (0: nothing held).
  std::chrono::milliseconds progress_wait{0};
  bool gone = false;                // the DGD is gone, or leadership is lost
  std::optional<kube::Error> error;  // the write failed otherwise
};

// `dgd` is the cached DGD (its metadata carries the resourceVersion the write is
// conditional on); `pacer` null: every change at once.
StatusWrite write_status(Cluster& cluster, StatusPacer* pacer, EventRecorder& events, const std::string& id,
                         const nlohmann::json& dgd, int64_t generation, const StatusInput& in);

}  // namespace dgd::reconcile
