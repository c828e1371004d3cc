// kube-sim cluster: every simulated controller behind one call.
//
// sync() runs, on one snapshot: node status, PVC binding, ComputeDomain,
// Deployment, ReplicaSet, Job, scheduler, kubelets; and returns all their
// writes. It is level-triggered: called again on the state the writes produced,
// it converges and then returns nothing (no writes at rest).
#pragma once

#include "kubesim/cluster/compute_domain_controller.h"
#include "kubesim/cluster/deployment_controller.h"
#include "kubesim/cluster/job_controller.h"
#include "kubesim/cluster/kubelet.h"
#include "kubesim/cluster/node_controller.h"
#include "kubesim/cluster/replicaset_controller.h"
#include "kubesim/cluster/scheduler.h"
#include "kubesim/cluster/volume_controller.h"

namespace kubesim::cluster {

class ClusterControllers {
 public:
  ClusterControllers(KubeletOptions kubelet, StorageClasses storage) : volumes_(std::move(storage)), kubelets_(kubelet) {}
  // *next_wakeup: lowered to when a timed step (kubelet delays, minReadySeconds,
  // deadlines) is next due.
  Writes sync(const Snapshot& snap, const Env& env, TimePoint* next_wakeup);

 private:
  NodeController nodes_;
  VolumeController volumes_;
  ComputeDomainController compute_domains_;
  DeploymentController deployments_;
  ReplicaSetController replicasets_;
  JobController jobs_;
  Scheduler scheduler_;
  Kubelets kubelets_;
};

}  // namespace kubesim::cluster
