// kube-sim cluster: the Job controller (pure decision logic), NonIndexed jobs.
//
// Runs up to spec.parallelism pods at a time until spec.completions pods have
// succeeded (no completions with parallelism set: done when one succeeded and
// none is active). Pods are "<job>-<5 chars>", labelled job-name /
// controller-uid (and the batch.kubernetes.io/ forms), owned by the Job. A failed
// pod is replaced until more than spec.backoffLimit (default 6) have failed;
// then the Job fails: conditions FailureTarget and Failed, reason
// BackoffLimitExceeded, message "Job has reached the specified backoff limit",
// and active pods are deleted. activeDeadlineSeconds fails it with
// DeadlineExceeded. Success: SuccessCriteriaMet and Complete, reason
// CompletionsReached, completionTime set. status.active / succeeded / failed /
// ready / startTime as the API reports them. ttlSecondsAfterFinished deletes a
// finished Job (foreground). spec.suspend stops its pods (condition Suspended).
// Not simulated: Indexed completion, pod failure policies, success policies,
// backoff delays between retries, restartPolicy OnFailure restarts in place.
#pragma once

#include "kubesim/cluster/snapshot.h"

namespace kubesim::cluster {

class JobController {
 public:
  Writes sync(const Snapshot& snap, const Env& env, TimePoint* next_wakeup) const;
};

}  // namespace kubesim::cluster
