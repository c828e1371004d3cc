// kube-sim cluster: the Deployment controller (pure decision logic), following
// pkg/controller/deployment of kube-controller-manager:
//  - the "new" ReplicaSet is the one whose pod template equals the Deployment's
//    (ignoring the pod-template-hash label); it is created as
//    "<deployment>-<pod-template-hash>" with that label in its selector and
//    template, owned by the Deployment, revision = max old revision + 1
//    (annotation deployment.kubernetes.io/revision, also set on the Deployment);
//  - RollingUpdate: new RS scaled up to at most replicas + maxSurge pods in
//    total, old RSs scaled down keeping replicas - maxUnavailable available
//    (percentages: surge rounds up, unavailable rounds down; both 0 -> 1
//    unavailable); unhealthy old pods go first;
//  - Recreate: old RSs to 0, wait for their pods to be gone, then the new RS;
//  - old RSs beyond revisionHistoryLimit (default 10) are deleted once complete;
//  - status: observedGeneration, replicas, updatedReplicas, readyReplicas,
//    availableReplicas, unavailableReplicas (zeros omitted, as the API does),
//    conditions Available (MinimumReplicasAvailable/Unavailable) and Progressing
//    (NewReplicaSetCreated, FoundNewReplicaSet, ReplicaSetUpdated,
//    NewReplicaSetAvailable, ProgressDeadlineExceeded).
// Not simulated: proportional scaling of several active RSs during a rollout
// (the rolling logic converges instead), pausing beyond "no rollout step".
#pragma once

#include "kubesim/cluster/snapshot.h"

namespace kubesim::cluster {

inline constexpr const char* kRevisionAnnotation = "deployment.kubernetes.io/revision";
inline constexpr const char* kPodTemplateHashLabel = "pod-template-hash";

// The pod-template-hash of a template (fnv-1a 32 of its canonical JSON, then
// collisionCount, encoded with the generated-name alphabet).
std::string pod_template_hash(const Json& template_spec, int64_t collision_count = 0);

// intstr resolution as the controller does it: "25%" of `total`, rounded up or down.
int64_t resolve_int_or_percent(const Json& value, int64_t total, bool round_up, int64_t def_percent);
struct Fenceposts {
  int64_t max_surge;
  int64_t max_unavailable;
};
// maxSurge / maxUnavailable of a RollingUpdate Deployment with `replicas` desired.
Fenceposts resolve_fenceposts(const Json& deployment);

class DeploymentController {
 public:
  Writes sync(const Snapshot& snap, const Env& env, TimePoint* next_wakeup) const;
};

}  // namespace kubesim::cluster
