// How a component's Deployment rolls out a new template: upstream Dynamo's annotations.
//
//   nvidia.com/deployment-strategy                        RollingUpdate (default) | Recreate
//   nvidia.com/deployment-rolling-update-max-surge        "1" or "25%" (default 25%)
//   nvidia.com/deployment-rolling-update-max-unavailable  "0" or "25%" (default 25%)
//
// Read from the component's podTemplate.metadata.annotations, else from
// spec.annotations (every component). Without any of them the Deployment gets no
// strategy, i.e. Kubernetes' default (RollingUpdate, 25% / 25%: one extra pod for one
// replica). A GPU worker whose pods fill their nodes or NVLink clique needs maxSurge 0
// (or Recreate): the surge pod would wait for GPUs that never free up. As upstream does,
// when both bounds resolve to zero pods maxSurge becomes 1, so the rollout can progress.
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

// The Deployment `spec.strategy` for component `index` of `dgd`, or nullopt when no
// annotation asks for one (or a value is invalid: each such value is reported in
// `errors`, when given, with its field path). Pure.
std::optional<nlohmann::json> deploymentStrategy(const Dgd& dgd, size_t index, std::vector<FieldError>* errors);

}  // namespace dgd::api
