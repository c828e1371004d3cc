// kube-sim cluster: the simulated kube-scheduler (pure decision logic).
//
// For each unbound pod (no spec.nodeName, not terminating, schedulerName unset or
// "default-scheduler"), in queue order (priority, then creation time, then name),
// it filters the nodes as the default plugins do and binds to the best one:
//   NodeUnschedulable, TaintToleration (NoSchedule/NoExecute), NodeAffinity
//   (nodeSelector + required node affinity, matchExpressions and matchFields
//   metadata.name), NodeResourcesFit (containers' requests summed, max with init
//   containers, limits standing in for missing requests; allocatable minus the
//   non-terminal pods bound to the node; extended resources such as
//   nvidia.com/gpu and rdma/*), InterPodAffinity (required affinity and
//   anti-affinity with topologyKey, namespaces, namespaceSelector, and existing
//   pods' anti-affinity), volumes (the PVC must exist and be Bound), and the
//   ComputeDomain clique rule: all pods whose resourceClaims come from one
//   ComputeDomain's ResourceClaimTemplate land in one nvidia.com/gpu.clique (the
//   first bound pod fixes it).
// Choice among feasible nodes: pods requesting extended resources (GPUs, RDMA)
// are packed (most allocated on those resources), other pods spread (least
// allocated cpu and memory); ties go to the node name, so placement is
// deterministic.
// An unschedulable pod gets PodScheduled=False, reason Unschedulable, and the
// message the real scheduler writes ("0/4 nodes are available: ... preemption: ...").
#pragma once

#include "kubesim/cluster/snapshot.h"

#include <map>
#include <optional>
#include <string>

namespace kubesim::cluster {

using ResourceList = std::map<std::string, int64_t>;  // scheduler units (see quantity.h)

// The pod's effective request (what NodeResourcesFit compares).
ResourceList pod_requests(const Json& pod);
// Node allocatable in scheduler units.
ResourceList node_allocatable(const Json& node);

struct Placement {
  std::optional<std::string> node;  // chosen node, or nullopt
  std::string message;              // FitError message when no node fits
};

class Scheduler {
 public:
  // Decides for every pending pod of the snapshot; writes binds and
  // Unschedulable conditions (only when the condition would change).
  Writes schedule(const Snapshot& snap, const Env& env) const;
  // Where `pod` would go given the snapshot (the pod need not be in it).
  Placement place(const Snapshot& snap, const Json& pod) const;

  static constexpr const char* kCliqueLabel = "nvidia.com/gpu.clique";
};

}  // namespace kubesim::cluster
