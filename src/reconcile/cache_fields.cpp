#include "dgd/reconcile/cache_fields.h"

namespace dgd::reconcile {

runtime::FieldProjection pod_cache_fields() {
  return runtime::FieldProjection({
      // placement_fit.cpp: pod_requests (containers, init containers and sidecars, overhead),
      // node selector and affinity, tolerations, ComputeDomain claims, the bound node.
      "spec.containers.resources",
      "spec.initContainers.resources",
      "spec.initContainers.restartPolicy",
      "spec.overhead",
      "spec.nodeSelector",
      "spec.affinity",
      "spec.tolerations",
      "spec.resourceClaims",
      "spec.nodeName",
      // placement.cpp / placement_status.cpp: gates, phase, the PodScheduled condition.
      "spec.schedulingGates",
      "status.phase",
      "status.conditions.type",
      "status.conditions.status",
      "status.conditions.reason",
      "status.conditions.message",
  });
}

runtime::FieldProjection node_cache_fields() {
  return runtime::FieldProjection({
      "spec.unschedulable",
      "spec.taints",
      "status.allocatable",
      "status.capacity",  // stands in for a missing allocatable
  });
}

}  // namespace dgd::reconcile
