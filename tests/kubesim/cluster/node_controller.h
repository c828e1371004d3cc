// kube-sim cluster: node status as a kubelet reports it (pure).
//
// complete_node_status() fills what a node's status lacks: capacity and
// allocatable (each from the other; defaults for a bare node: 32 cpu, 256Gi
// memory, 1Ti ephemeral-storage, 110 pods), the conditions Ready=True
// (KubeletReady) and MemoryPressure / DiskPressure / PIDPressure=False,
// addresses (InternalIP 10.0.x.y from the node's index, Hostname), nodeInfo
// (architecture from the kubernetes.io/arch label) and daemonEndpoints. The
// NodeController writes that for nodes created without it (e.g. by kubectl);
// there are no heartbeats, so a cluster at rest sees no node writes.
#pragma once

#include "kubesim/cluster/snapshot.h"

namespace kubesim::cluster {

// Returns true when it changed `node`.
bool complete_node_status(Json& node, size_t index, TimePoint now);
std::string node_internal_ip(size_t index);

class NodeController {
 public:
  Writes sync(const Snapshot& snap, const Env& env) const;
};

}  // namespace kubesim::cluster
