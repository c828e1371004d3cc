// RBAC kinds (pkg/apis/rbac/validation/validation.go: ValidatePolicyRule,
// ValidateRoleBinding, ValidateClusterRoleBinding, ValidateRoleBindingSubject), Leases
// (pkg/apis/coordination/validation/validation.go: ValidateLeaseSpec), Events
// (pkg/apis/core/validation/events.go: ValidateEventCreate, legacyValidateEvent) and
// PodDisruptionBudgets (pkg/apis/policy/validation/validation.go:
// ValidatePodDisruptionBudgetSpec).
#include "kubesim/validation/kinds.h"

namespace kubesim::validation {

namespace {

const char* const kRbacGroup = "rbac.authorization.k8s.io";

void validate_subject(const json& s, bool namespaced, const std::string& p, ErrorList& errs) {
  const std::string name = str_of(s, "name");
  const std::string kind = str_of(s, "kind");
  // v1 defaulting gives User and Group subjects the RBAC API group.
  std::string group = str_of(s, "apiGroup");
  if (group.empty() && (kind == "User" || kind == "Group")) group = kRbacGroup;
  if (name.empty()) errs.required(p + ".name");
  if (kind == "ServiceAccount") {
    if (!name.empty()) errs.invalid_each(p + ".name", go_quote(name), is_dns1123_subdomain(name));
    if (!group.empty()) errs.not_supported(p + ".apiGroup", go_quote(group), {""});
    if (!namespaced && str_of(s, "namespace").empty()) errs.required(p + ".namespace");
  } else if (kind == "User" || kind == "Group") {
    if (name.empty()) errs.invalid(p + ".name", "\"\"", kind == "User" ? "user name cannot be empty" : "group name cannot be empty");
    if (group != kRbacGroup) errs.not_supported(p + ".apiGroup", go_quote(group), {kRbacGroup});
  } else {
    errs.not_supported(p + ".kind", go_quote(kind), {"ServiceAccount", "User", "Group"});
  }
}

int64_t length_of(const json& obj, const char* key) { return static_cast<int64_t>(str_of(obj, key).size()); }

// legacyValidateEvent and, for events.k8s.io, the strict checks of ValidateEventCreate
// (ObjectMeta included). `e` is in core/v1 field names, as the validator sees both versions.
void validate_event(const ResourceType& t, const json& e, const std::string& ns, bool strict, ErrorList& errs) {
  const json& involved = object_of(e, "involvedObject");
  const std::string involved_ns = str_of(involved, "namespace");
  const bool has_event_time = !str_of(e, "eventTime").empty();
  if (!has_event_time) {
    if (involved_ns.empty() ? (!ns.empty() && ns != "default") : ns != involved_ns)
      errs.invalid("involvedObject.namespace", go_quote(involved_ns), "does not match event.namespace");
  } else {
    if (involved_ns.empty() && ns != "default" && ns != "kube-system")
      errs.invalid("involvedObject.namespace", go_quote(involved_ns), "does not match event.namespace");
    const std::string controller = str_of(e, "reportingComponent");
    if (controller.empty()) errs.required("reportingController");
    errs.invalid_each("reportingController", go_quote(controller), is_qualified_name(controller));
    if (str_of(e, "reportingInstance").empty()) errs.required("reportingInstance");
    if (length_of(e, "reportingInstance") > 128) errs.invalid("reportingInstance", "\"\"", "can have at most 128 characters");
    if (str_of(e, "action").empty()) errs.required("action");
    if (length_of(e, "action") > 128) errs.invalid("action", "\"\"", "can have at most 128 characters");
    if (str_of(e, "reason").empty()) errs.required("reason");
    if (length_of(e, "reason") > 128) errs.invalid("reason", "\"\"", "can have at most 128 characters");
    if (length_of(e, "message") > 1024) errs.invalid("message", "\"\"", "can have at most 1024 characters");
  }
  errs.invalid_each("namespace", go_quote(ns), is_dns1123_subdomain(ns));
  if (!strict) return;
  validate_object_meta(t, object_of(e, "metadata"), errs);
  if (const json* series = child(e, "series")) {
    const json* count = child(*series, "count");
    if (!count || !count->is_number_integer() || count->get<int64_t>() < 2)
      errs.invalid("series.count", "\"\"", "should be at least 2");
    if (str_of(*series, "lastObservedTime").empty()) errs.required("series.lastObservedTime");
  }
  if (!has_event_time) errs.required("eventTime");
  const std::string type = str_of(e, "type");
  if (type != "Normal" && type != "Warning") errs.invalid("type", "\"\"", "has invalid value: " + type);
  if (!str_of(e, "firstTimestamp").empty()) errs.invalid("firstTimestamp", "\"\"", "needs to be unset");
  if (!str_of(e, "lastTimestamp").empty()) errs.invalid("lastTimestamp", "\"\"", "needs to be unset");
  const json* count = child(e, "count");
  if (count && count->is_number_integer() && count->get<int64_t>() != 0) errs.invalid("count", "\"\"", "needs to be unset");
  const json& source = object_of(e, "source");
  if (!str_of(source, "component").empty() || !str_of(source, "host").empty())
    errs.invalid("source", "\"\"", "needs to be unset");
}

}  // namespace

void validate_role_rules(const json& obj, ErrorList& errs) {
  const bool namespaced = str_of(obj, "kind") == "Role";
  const json& rules = array_of(obj, "rules");
  for (size_t i = 0; i < rules.size(); ++i) {
    const json& r = rules[i];
    const std::string p = index_path("rules", i);
    if (array_of(r, "verbs").empty()) errs.required(p + ".verbs", "verbs must contain at least one value");
    const json& urls = array_of(r, "nonResourceURLs");
    if (!urls.empty()) {
      if (namespaced) errs.invalid(p + ".nonResourceURLs", go_string_slice(urls), "namespaced rules cannot apply to non-resource URLs");
      if (!array_of(r, "apiGroups").empty() || !array_of(r, "resources").empty() || !array_of(r, "resourceNames").empty())
        errs.invalid(p + ".nonResourceURLs", go_string_slice(urls),
                     "rules cannot apply to both regular resources and non-resource URLs");
      continue;
    }
    if (array_of(r, "apiGroups").empty())
      errs.required(p + ".apiGroups", "resource rules must supply at least one api group");
    if (array_of(r, "resources").empty()) errs.required(p + ".resources", "resource rules must supply at least one resource");
  }
}

void validate_binding(const ResourceType& t, const json& obj, ErrorList& errs) {
  const bool namespaced = t.kind == "RoleBinding";
  const json& ref = object_of(obj, "roleRef");
  std::string group = str_of(ref, "apiGroup");
  if (group.empty()) group = kRbacGroup;  // v1 defaulting
  if (group != kRbacGroup) errs.not_supported("roleRef.apiGroup", go_quote(group), {kRbacGroup});
  const std::string kind = str_of(ref, "kind");
  if (namespaced && kind != "Role" && kind != "ClusterRole")
    errs.not_supported("roleRef.kind", go_quote(kind), {"Role", "ClusterRole"});
  if (!namespaced && kind != "ClusterRole") errs.not_supported("roleRef.kind", go_quote(kind), {"ClusterRole"});
  const std::string name = str_of(ref, "name");
  if (name.empty()) errs.required("roleRef.name");
  else errs.invalid_each("roleRef.name", go_quote(name), is_path_segment_name(name));
  const json& subjects = array_of(obj, "subjects");
  for (size_t i = 0; i < subjects.size(); ++i) validate_subject(subjects[i], namespaced, index_path("subjects", i), errs);
}

void validate_lease(const json& obj, ErrorList& errs) {
  const json& spec = object_of(obj, "spec");
  const json* d = child(spec, "leaseDurationSeconds");
  if (d && d->is_number_integer() && d->get<int64_t>() <= 0)
    errs.invalid("spec.leaseDurationSeconds", go_int(d->get<int64_t>()), "must be greater than 0");
  const json* tr = child(spec, "leaseTransitions");
  if (tr && tr->is_number_integer() && tr->get<int64_t>() < 0)
    errs.invalid("spec.leaseTransitions", go_int(tr->get<int64_t>()), "must be greater than or equal to 0");
}

void validate_core_event(const ResourceType& t, const json& obj, ErrorList& errs) {
  validate_event(t, obj, str_of(object_of(obj, "metadata"), "namespace"), false, errs);
}

void validate_events_event(const ResourceType& t, const json& obj, ErrorList& errs) {
  // events.k8s.io/v1 fields under their core/v1 names, as the validator sees them.
  json core = obj;
  auto rename = [&](const char* from, const char* to) {
    if (const json* v = child(obj, from)) core[to] = *v;
  };
  rename("regarding", "involvedObject");
  rename("note", "message");
  rename("reportingController", "reportingComponent");
  rename("deprecatedFirstTimestamp", "firstTimestamp");
  rename("deprecatedLastTimestamp", "lastTimestamp");
  rename("deprecatedCount", "count");
  rename("deprecatedSource", "source");
  validate_event(t, core, str_of(object_of(obj, "metadata"), "namespace"), true, errs);
}

void validate_pdb(const json& obj, ErrorList& errs) {
  const json& spec = object_of(obj, "spec");
  const json* min_available = child(spec, "minAvailable");
  const json* max_unavailable = child(spec, "maxUnavailable");
  if (min_available && max_unavailable)
    errs.invalid("spec", "policy.PodDisruptionBudgetSpec{MinAvailable:(*intstr.IntOrString)(0xc000000000), "
                         "Selector:(*v1.LabelSelector)(0xc000000000), MaxUnavailable:(*intstr.IntOrString)(0xc000000000), "
                         "UnhealthyPodEvictionPolicy:(*policy.UnhealthyPodEvictionPolicyType)(nil)}",
                 "minAvailable and maxUnavailable cannot be both set");
  for (auto [v, f] : {std::make_pair(min_available, "spec.minAvailable"), std::make_pair(max_unavailable, "spec.maxUnavailable")}) {
    validate_int_or_percent(v, f, false, errs);
    validate_int_or_percent(v, f, true, errs);
  }
  if (const json* sel = child(spec, "selector")) validate_label_selector(*sel, "spec.selector", errs);
  if (has_str(spec, "unhealthyPodEvictionPolicy")) {
    const std::string p = str_of(spec, "unhealthyPodEvictionPolicy");
    if (p != "AlwaysAllow" && p != "IfHealthyBudget")
      errs.not_supported("spec.unhealthyPodEvictionPolicy", go_quote(p), {"AlwaysAllow", "IfHealthyBudget"});
  }
}

}  // namespace kubesim::validation
