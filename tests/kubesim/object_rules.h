// kube-sim: the per-kind object rules the real API server applies on writes:
// server defaults (documented in docs/kube-sim.md), canonical quantities,
// validation (422 Invalid with causes), strict field validation (400), pruning of
// unknown fields of custom resources, the status reset on create, and what
// counts as a spec change for metadata.generation.
//
// Pure functions over nlohmann::json; no store access.
#pragma once

#include "kubesim/resource_registry.h"

#include <nlohmann/json.hpp>

#include <string>

namespace kubesim::rules {

std::string now_rfc3339();           // "2026-11-30T06:00:00Z"
std::string rfc3339_after(int64_t seconds);  // now + seconds
std::string now_rfc3339_micro();     // "2026-11-30T06:00:00.123456Z"
std::string new_uid();               // random UUID v4
std::string random_suffix(size_t n); // generateName alphabet

// Server defaults and canonical quantities, in place. `uid` is the new object's uid
// (Job selectors are derived from it).
void apply_defaults(const ResourceType& t, nlohmann::json& obj, bool create);
// Validation of a create (validation/validate.h): throws ApiError 422 with causes.
void validate(const ResourceType& t, const nlohmann::json& obj);
// Validation of an update: what may not change from `old_obj`, then `new_obj`'s own
// rules. Every update path (PUT, patches, server-side apply, /scale) calls it.
void validate_update(const ResourceType& t, const nlohmann::json& old_obj, const nlohmann::json& new_obj);
// What a create does to status: cleared for kinds with a status subresource (except
// Node), then the initial status (Pod Pending, Namespace Active, PVC Pending, CRD
// Established).
void reset_status_on_create(const ResourceType& t, nlohmann::json& obj);

// The pod's QoS class as the apiserver computes it (qos.GetPodQOS): Guaranteed, Burstable
// or BestEffort. Shared with the simulated kubelet so both write the same value.
std::string pod_qos_class(const nlohmann::json& pod);
// True when anything but metadata (and status, for kinds with a status subresource) differs.
bool spec_changed(const ResourceType& t, const nlohmann::json& before, const nlohmann::json& after);
// fieldValidation: every level, for built-ins from Kubernetes' OpenAPI document
// (openapi/field_validation.h), for custom resources with a schema from it. `strict`: unknown fields -> ApiError 400;
// otherwise unknown fields of custom resources are pruned (the real server prunes).
void check_unknown_fields(const ResourceType& t, nlohmann::json& obj, bool strict);
// The messages metadata.name gets under the kind's name rule, joined; empty when valid.
std::string name_problem(const ResourceType& t, const std::string& name);

}  // namespace kubesim::rules
