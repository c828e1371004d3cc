// kube-sim validation of the built-in kinds, as a Kubernetes 1.32 API server validates
// them on create and update (pkg/apis/*/validation in kubernetes/kubernetes and
// apimachinery's validation helpers; docs/kube-sim.md lists each rule and its source).
//
// Both throw ApiError 422 Invalid with details.causes in field.ErrorList order and the
// message `<Kind>.<group> "<name>" is invalid: ...`; a resource quantity that does not
// parse is 400 BadRequest, as the real server's decoder answers it. Custom resources
// and kinds without rules of their own get the ObjectMeta rules only.
#pragma once

#include "kubesim/resource_registry.h"

#include <nlohmann/json.hpp>

#include <string>

namespace kubesim::validation {

void validate_create(const ResourceType& t, const nlohmann::json& obj);
// `old_obj` is the stored object, `new_obj` the one about to replace it (defaults applied).
void validate_update(const ResourceType& t, const nlohmann::json& old_obj, const nlohmann::json& new_obj);
// What the Service storage does to an update before validation: allocated clusterIP(s)
// and nodePorts the client left out are kept (patchAllocatedValues), and a type change
// wipes the cluster IPs, IP families, nodePorts and externalTrafficPolicy the new type
// does not use, when the client left them as they were (dropTypeDependentFields).
void prepare_service_update(const nlohmann::json& old_svc, nlohmann::json& new_svc);
// The autoscaling/v1 Scale a /scale write sends (ValidateScale): 422 on Scale.autoscaling.
void validate_scale(const std::string& name, const nlohmann::json& scale);

}  // namespace kubesim::validation
