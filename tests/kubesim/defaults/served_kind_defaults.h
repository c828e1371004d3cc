// kube-sim: server defaults of the built-in kinds served beyond the core workload set
// (StatefulSet, DaemonSet, CronJob, HorizontalPodAutoscaler, NetworkPolicy,
// EndpointSlice, Endpoints, PriorityClass, StorageClass, PersistentVolume), as the
// SetDefaults_* functions of k8s.io/kubernetes pkg/apis/<group>/<version>/defaults.go
// (release-1.32) set them. Pod templates inside them are defaulted by object_rules.
#pragma once

#include "kubesim/resource_registry.h"

#include <nlohmann/json.hpp>

namespace kubesim::defaults {

// In place; does nothing for other kinds.
void apply_served_kind_defaults(const ResourceType& t, nlohmann::json& obj);

// The status a create leaves on kinds whose strategy sets one (a PersistentVolume
// starts Pending with lastPhaseTransitionTime, an HPA shows desiredReplicas 0, a field
// that is not omitempty); `now` is an RFC 3339 time.
void initial_status(const ResourceType& t, nlohmann::json& obj, const std::string& now);

}  // namespace kubesim::defaults
