// How a component's Deployment rolls out a new template: upstream Dynamo's annotations.
//
//   nvidia.com/deployment-strategy                        RollingUpdate (default) | Recreate
//   nvidia.com/deployment-rolling-update-max-surge        "1" or "25%" (default 25%)
//   nvidia.com/deployment-rolling-update-max-unavailable  "0" or "25%" (default 25%)
//
// Read from the component's podTemplate.metadata.annotations, else from
// spec.annotations (every component). Every Deployment gets an explicit strategy, the
// default RollingUpdate 25% / 25% when nothing is asked: the operator then owns the whole
// block, so removing an annotation restores the default (an absent field would be left as
// it was). 25% of one replica is one extra pod; a GPU worker whose pods fill their nodes
// or NVLink clique needs maxSurge 0, since the surge pod would wait for GPUs that never
// free up. When both bounds resolve to zero pods, a maxSurge of 0 the user wrote alone
// keeps its meaning and maxUnavailable becomes 1; both written: maxSurge becomes 1
// (upstream's rule). Recreate is rendered as RollingUpdate with maxSurge 0 and
// maxUnavailable 100% (same effect; see rollout.cpp for why not type Recreate).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "dgd/api/dgd.h"
#include "dgd/api/field_error.h"

namespace dgd::api {

inline constexpr const char* kAnnotationDeploymentStrategy = "nvidia.com/deployment-strategy";
inline constexpr const char* kAnnotationMaxSurge = "nvidia.com/deployment-rolling-update-max-surge";
inline constexpr const char* kAnnotationMaxUnavailable = "nvidia.com/deployment-rolling-update-max-unavailable";

// The Deployment `spec.strategy` for component `index` of `dgd`; nullopt when a value is
// invalid (each is reported in `errors`, when given, with its field path). Pure.
std::optional<nlohmann::json> deployment_strategy(const Dgd& dgd, size_t index, std::vector<FieldError>* errors);

}  // namespace dgd::api
