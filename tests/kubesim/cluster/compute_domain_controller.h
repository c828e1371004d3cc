// kube-sim cluster: the NVIDIA DRA ComputeDomain controller (pure).
//
// For each ComputeDomain (resource.nvidia.com/v1beta1) it creates the
// ResourceClaimTemplate named in spec.channel.resourceClaimTemplate.name (same
// namespace, owned by the ComputeDomain, requesting one channel of device class
// compute-domain-default-channel.nvidia.com), and keeps its status: nodes[] =
// the nodes running a pod that claims from that template ({name, ipAddress,
// cliqueID, index, status: Ready}), status.status = Ready once at least
// max(spec.numNodes, 1) such nodes exist, NotReady before.
// The scheduler (scheduler.h) is what keeps those pods in one clique.
#pragma once

#include "kubesim/cluster/snapshot.h"

namespace kubesim::cluster {

class ComputeDomainController {
 public:
  Writes sync(const Snapshot& snap, const Env& env) const;
};

}  // namespace kubesim::cluster
