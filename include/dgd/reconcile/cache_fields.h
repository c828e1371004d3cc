// The fields the operator's pod and node caches keep beyond apiVersion, kind and metadata
// (runtime::FieldProjection): exactly what placement reads of them (placement.h,
// placement_fit.h, placement_status.h: requests, selectors, affinity, tolerations, claims,
// binding and scheduling state of pods; taints, cordon and allocatable of nodes). At 1000
// DGDs these two caches hold most of the operator's objects, and real nodes and pods carry
// far more (images, conditions, env, volumes, container statuses) than placement needs.
// Code that starts reading another field of a cached pod or node must add it here:
// cache_fields_test runs placement on whole and on projected objects and compares.
#pragma once

#include "dgd/runtime/store.h"

namespace dgd::reconcile {

runtime::FieldProjection pod_cache_fields();
runtime::FieldProjection node_cache_fields();

}  // namespace dgd::reconcile
