// kube-sim validation: the per-concern validators behind validate.h, one file each:
// metadata.cpp (ObjectMeta, labels, annotations, label selectors), pod_spec.cpp
// (pods and pod templates), workloads.cpp (Deployment, ReplicaSet, Job),
// services.cpp, storage_config.cpp (PVC, ConfigMap, Secret),
// rbac_coordination_events_policy.cpp (RBAC kinds, Lease, Events, PDB, Namespace,
// ServiceAccount) and update_immutability.cpp. Each appends to an ErrorList in the
// order the Kubernetes 1.32 validator appends.
#pragma once

#include "kubesim/resource_registry.h"
#include "kubesim/validation/field_errors.h"
#include "kubesim/validation/formats.h"

#include <nlohmann/json.hpp>

#include <string>

namespace kubesim::validation {

using nlohmann::json;

// metadata.cpp
NameRule name_rule(const ResourceType& t);
void validate_object_meta(const ResourceType& t, const json& meta, ErrorList& errs);
void validate_labels(const json& labels, const std::string& field, ErrorList& errs);
void validate_annotations(const json& annotations, const std::string& field, ErrorList& errs);
void validate_label_selector(const json& selector, const std::string& field, ErrorList& errs);
// metav1.LabelSelectorAsSelector succeeds (keys, values, operators, value counts).
bool selector_convertible(const json& selector);
bool selector_is_empty(const json& selector);  // no matchLabels and no matchExpressions
// The selector (absent: matches nothing; empty: matches everything) selects `labels`.
bool selector_matches(const json* selector, const json& labels);
// ValidateNonnegativeField.
void validate_nonnegative(const json& obj, const char* key, const std::string& field, ErrorList& errs);

// pod_spec.cpp
void validate_pod_spec(const json& spec, const std::string& path, ErrorList& errs);
void validate_pod_template(const json& tpl, const std::string& path, ErrorList& errs);
// validateContainersOnlyForPod: what a Pod (not a template) adds.
void validate_pod_only(const json& spec, ErrorList& errs);

// workloads.cpp
// ValidatePositiveIntOrPercent, or (`at_most_100`) IsNotMoreThan100Percent.
void validate_int_or_percent(const json* v, const std::string& field, bool at_most_100, ErrorList& errs);
void validate_deployment(const json& obj, ErrorList& errs);
void validate_replica_set(const json& obj, ErrorList& errs);
void validate_job(const json& obj, ErrorList& errs);

// services.cpp
void validate_service(const json& obj, ErrorList& errs);

// storage_config.cpp
void validate_pvc(const json& obj, ErrorList& errs);
void validate_config_map(const json& obj, ErrorList& errs);
void validate_secret(const json& obj, ErrorList& errs);

// rbac_coordination_events_policy.cpp
void validate_role_rules(const json& obj, ErrorList& errs);
void validate_binding(const ResourceType& t, const json& obj, ErrorList& errs);
void validate_lease(const json& obj, ErrorList& errs);
void validate_core_event(const ResourceType& t, const json& obj, ErrorList& errs);
void validate_events_event(const ResourceType& t, const json& obj, ErrorList& errs);
void validate_pdb(const json& obj, ErrorList& errs);

// update_immutability.cpp: what an update may not change. `before` holds the errors
// the real validator reports ahead of the new object's own validation, `after` those
// it reports behind it.
void validate_update_rules(const ResourceType& t, const json& old_obj, const json& new_obj, ErrorList& before,
                           ErrorList& after);

}  // namespace kubesim::validation
