// kube-sim: versions of one kind that share a storage. autoscaling/v1 and autoscaling/v2
// HorizontalPodAutoscalers are the same objects, stored in v2 as on a 1.32 server; each
// version reads and writes its own shape, converted as k8s.io/kubernetes
// pkg/apis/autoscaling/v1/conversion.go does for what v1 can say: v1's
// targetCPUUtilizationPercentage is v2's cpu Utilization metric, v1's
// currentCPUUtilizationPercentage the matching current metric. What v1 cannot say (other
// metrics, behavior, conditions) upstream carries in autoscaling.alpha.kubernetes.io/*
// annotations; here a v1 write keeps it from the stored object and a v1 read omits it.
#pragma once

#include "kubesim/resource_registry.h"

#include <nlohmann/json.hpp>

namespace kubesim::conversion {

// True when objects written or read through `t` are stored in another version.
bool converts(const ResourceType& t);

// The stored form of `obj`, written through `t`; `current` is the stored object an update
// or patch replaces (nullptr on create). Identity when !converts(t).
nlohmann::json to_storage(const ResourceType& t, nlohmann::json obj, const nlohmann::json* current);

// The stored object as `t`'s version shows it. Identity when !converts(t).
nlohmann::json from_storage(const ResourceType& t, nlohmann::json obj);

}  // namespace kubesim::conversion
