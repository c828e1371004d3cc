#include "kubesim/validation/validate.h"

#include "kubesim/api_error.h"
#include "kubesim/cluster/quantity.h"
#include "kubesim/validation/kinds.h"

namespace kubesim::validation {

namespace {

bool is_core(const ResourceType& t, const char* kind) { return t.group.empty() && t.kind == kind; }

// The decoder refuses a malformed quantity before validation runs: 400, not 422.
void check_quantities(const ResourceType& t, const json& obj) {
  auto check_list = [&](const json& list) {
    for (const auto& [name, q] : list.items()) {
      (void)name;
      if (!q.is_string()) continue;
      const std::string problem = cluster::quantity_problem(q.get<std::string>());
      if (!problem.empty())
        throw ApiError::bad_request(t.kind + " in version \"" + t.version + "\" cannot be handled as a " + t.kind +
                                    ": " + problem);
    }
  };
  auto check_pod_spec = [&](const json& spec) {
    for (const char* list : {"containers", "initContainers"})
      for (const auto& c : array_of(spec, list)) {
        const json& res = object_of(c, "resources");
        check_list(object_of(res, "limits"));
        check_list(object_of(res, "requests"));
      }
    check_list(object_of(spec, "overhead"));
  };
  const json& spec = object_of(obj, "spec");
  if (is_core(t, "Pod")) check_pod_spec(spec);
  check_pod_spec(object_of(object_of(spec, "template"), "spec"));
  if (is_core(t, "PersistentVolumeClaim")) {
    check_list(object_of(object_of(spec, "resources"), "requests"));
    check_list(object_of(object_of(spec, "resources"), "limits"));
  }
}

// The errors ValidateX(obj) reports for a create, in its order.
void object_errors(const ResourceType& t, const json& obj, ErrorList& errs) {
  const std::string& k = t.kind;
  const json& meta = object_of(obj, "metadata");
  // Custom resources get the ObjectMeta rules only (their schema is checked elsewhere).
  // Events validate ObjectMeta only under events.k8s.io, after the legacy rules.
  if (k != "Event") validate_object_meta(t, meta, errs);
  if (t.custom) return;
  if (t.group.empty()) {
    if (k == "Pod") {
      validate_pod_spec(object_of(obj, "spec"), "spec", errs);
      validate_pod_only(object_of(obj, "spec"), errs);
    }
    else if (k == "Service") validate_service(obj, errs);
    else if (k == "PersistentVolumeClaim") validate_pvc(obj, errs);
    else if (k == "ConfigMap") validate_config_map(obj, errs);
    else if (k == "Secret") validate_secret(obj, errs);
    else if (k == "Event") validate_core_event(t, obj, errs);
    else if (k == "Namespace")
      for (const auto& f : array_of(object_of(obj, "spec"), "finalizers")) {
        const std::string s = f.is_string() ? f.get<std::string>() : f.dump();
        errs.invalid_each("spec.finalizers", go_quote(s), is_qualified_name(s));
      }
  } else if (t.group == "apps") {
    if (k == "Deployment") validate_deployment(obj, errs);
    else if (k == "ReplicaSet") validate_replica_set(obj, errs);
  } else if (t.group == "batch" && k == "Job") {
    validate_job(obj, errs);
  } else if (t.group == "rbac.authorization.k8s.io") {
    if (k == "Role" || k == "ClusterRole") validate_role_rules(obj, errs);
    else validate_binding(t, obj, errs);
  } else if (t.group == "coordination.k8s.io" && k == "Lease") {
    validate_lease(obj, errs);
  } else if (t.group == "events.k8s.io" && k == "Event") {
    validate_events_event(t, obj, errs);
  } else if (t.group == "policy" && k == "PodDisruptionBudget") {
    validate_pdb(obj, errs);
  }
}

[[noreturn]] void refuse(const ResourceType& t, const json& obj, const ErrorList& errs) {
  throw ApiError::invalid(t.group, t.kind, str_of(object_of(obj, "metadata"), "name"), errs.causes());
}

}  // namespace

void validate_create(const ResourceType& t, const json& obj) {
  check_quantities(t, obj);
  ErrorList errs;
  object_errors(t, obj, errs);
  if (!errs.empty()) refuse(t, obj, errs);
}

void validate_update(const ResourceType& t, const json& old_obj, const json& new_obj) {
  check_quantities(t, new_obj);
  ErrorList before, own, after;
  validate_update_rules(t, old_obj, new_obj, before, after);
  object_errors(t, new_obj, own);
  before.append(own);
  before.append(after);
  if (!before.empty()) refuse(t, new_obj, before);
}

void validate_scale(const std::string& name, const json& scale) {
  // pkg/apis/autoscaling/validation/validation.go: ValidateScale.
  ErrorList errs;
  validate_nonnegative(object_of(scale, "spec"), "replicas", "spec.replicas", errs);
  if (!errs.empty()) throw ApiError::invalid("autoscaling", "Scale", name, errs.causes());
}

}  // namespace kubesim::validation
