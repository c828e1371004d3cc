// Deployments, ReplicaSets and Jobs, as pkg/apis/apps/validation/validation.go
// (ValidateDeploymentSpec, ValidateDeploymentStrategy, ValidateRollingUpdateDeployment,
// ValidateReplicaSetSpec, ValidatePodTemplateSpecForReplicaSet) and
// pkg/apis/batch/validation/validation.go (ValidateJobSpec, validateJobSpec) check them.
#include "kubesim/validation/kinds.h"

namespace kubesim::validation {

namespace {

// The int or percent a maxSurge/maxUnavailable holds: {value, is_percent, valid}.
struct IntOrPercent {
  int64_t value = 0;
  bool percent = false;
};

IntOrPercent int_or_percent(const json& v) {
  IntOrPercent out;
  if (v.is_number_integer()) out.value = v.get<int64_t>();
  if (v.is_string()) {
    const std::string s = v.get<std::string>();
    if (is_valid_percent(s).empty()) {
      out.percent = true;
      out.value = std::stoll(s.substr(0, std::min<size_t>(s.size() - 1, 18)));
    }
  }
  return out;
}

}  // namespace

// ValidatePositiveIntOrPercent, or (`at_most_100`) IsNotMoreThan100Percent.
void validate_int_or_percent(const json* v, const std::string& field, bool at_most_100, ErrorList& errs) {
  if (!v) return;
  if (at_most_100) {
    IntOrPercent p = int_or_percent(*v);
    if (p.percent && p.value > 100) errs.invalid(field, go_int_or_string(*v), "must not be greater than 100%");
    return;
  }
  if (v->is_string()) errs.invalid_each(field, go_int_or_string(*v), is_valid_percent(v->get<std::string>()));
  else if (v->is_number_integer() && v->get<int64_t>() < 0)
    errs.invalid(field, go_int(v->get<int64_t>()), "must be greater than or equal to 0");
}

namespace {

void validate_strategy(const json& spec, ErrorList& errs) {
  const json& strategy = object_of(spec, "strategy");
  const std::string type = str_of(strategy, "type");
  const json* rolling = child(strategy, "rollingUpdate");
  if (type == "Recreate") {
    if (rolling) errs.forbidden("spec.strategy.rollingUpdate", "may not be specified when strategy `type` is 'Recreate'");
  } else if (type == "RollingUpdate") {
    if (!rolling) return errs.required("spec.strategy.rollingUpdate", "this should be defaulted and never be nil");
    const json* mu = child(*rolling, "maxUnavailable");
    const json* ms = child(*rolling, "maxSurge");
    validate_int_or_percent(mu, "spec.strategy.rollingUpdate.maxUnavailable", false, errs);
    validate_int_or_percent(ms, "spec.strategy.rollingUpdate.maxSurge", false, errs);
    const json zero = 0;
    if (int_or_percent(mu ? *mu : zero).value == 0 && int_or_percent(ms ? *ms : zero).value == 0)
      errs.invalid("spec.strategy.rollingUpdate.maxUnavailable", go_int_or_string(mu ? *mu : zero),
                   "may not be 0 when `maxSurge` is 0");
    validate_int_or_percent(mu, "spec.strategy.rollingUpdate.maxUnavailable", true, errs);
  } else {
    // NotSupported on the whole strategy struct, printed as Go prints it.
    const std::string value = "apps.DeploymentStrategy{Type:" + go_quote(type) + ", RollingUpdate:" +
                              (rolling ? "(*apps.RollingUpdateDeployment)(0xc000000000)" : "(*apps.RollingUpdateDeployment)(nil)") + "}";
    errs.not_supported("spec.strategy", value, {"Recreate", "RollingUpdate"});
  }
}

// The selector/template part ValidateDeploymentSpec and ValidateReplicaSetSpec share.
void validate_selector_and_template(const json& spec, ErrorList& errs) {
  const json* selector = child(spec, "selector");
  if (!selector) {
    errs.required("spec.selector");
  } else {
    validate_label_selector(*selector, "spec.selector", errs);
    if (selector_is_empty(*selector))
      errs.invalid("spec.selector", go_label_selector(*selector), "empty selector is invalid for deployment");
  }
  if (selector && !selector_convertible(*selector))
    return errs.invalid("spec.selector", go_label_selector(*selector), "invalid label selector");
  const json& tpl = object_of(spec, "template");
  const json* labels = child(object_of(tpl, "metadata"), "labels");
  // An empty selector (labels.Everything) skips the match; an absent one matches nothing.
  if (!(selector && selector_is_empty(*selector)) && !selector_matches(selector, labels ? *labels : json()))
    errs.invalid("spec.template.metadata.labels", go_map(labels ? *labels : json()),
                 "`selector` does not match template `labels`");
  validate_pod_template(tpl, "spec.template", errs);
  const std::string rp = str_of(object_of(tpl, "spec"), "restartPolicy");
  if (rp != "Always") errs.not_supported("spec.template.spec.restartPolicy", go_quote(rp), {"Always"});
  if (child(object_of(tpl, "spec"), "activeDeadlineSeconds"))
    errs.forbidden("spec.template.spec.activeDeadlineSeconds", "activeDeadlineSeconds in ReplicaSet is not Supported");
}

}  // namespace

void validate_deployment(const json& obj, ErrorList& errs) {
  const json& spec = object_of(obj, "spec");
  validate_nonnegative(spec, "replicas", "spec.replicas", errs);
  validate_selector_and_template(spec, errs);
  validate_strategy(spec, errs);
  validate_nonnegative(spec, "minReadySeconds", "spec.minReadySeconds", errs);
  validate_nonnegative(spec, "revisionHistoryLimit", "spec.revisionHistoryLimit", errs);
  const json* pds = child(spec, "progressDeadlineSeconds");
  if (pds && pds->is_number_integer()) {
    const int64_t v = pds->get<int64_t>();
    if (v < 0) errs.invalid("spec.progressDeadlineSeconds", go_int(v), "must be greater than or equal to 0");
    const json* mrs = child(spec, "minReadySeconds");
    const int64_t min_ready = mrs && mrs->is_number_integer() ? mrs->get<int64_t>() : 0;
    if (v <= min_ready) errs.invalid("spec.progressDeadlineSeconds", go_int(v), "must be greater than minReadySeconds");
  }
}

void validate_replica_set(const json& obj, ErrorList& errs) {
  const json& spec = object_of(obj, "spec");
  validate_nonnegative(spec, "replicas", "spec.replicas", errs);
  validate_nonnegative(spec, "minReadySeconds", "spec.minReadySeconds", errs);
  validate_selector_and_template(spec, errs);
}

void validate_job(const json& obj, ErrorList& errs) {
  const json& spec = object_of(obj, "spec");
  for (const char* f : {"parallelism", "completions", "activeDeadlineSeconds", "backoffLimit", "ttlSecondsAfterFinished"})
    validate_nonnegative(spec, f, std::string("spec.") + f, errs);
  if (has_str(spec, "completionMode")) {
    const std::string mode = str_of(spec, "completionMode");
    if (mode != "NonIndexed" && mode != "Indexed")
      errs.not_supported("spec.completionMode", go_quote(mode), {"NonIndexed", "Indexed"});
    if (mode == "Indexed" && !child(spec, "completions")) errs.required("spec.completions", "when completion mode is Indexed");
  }
  if (has_str(spec, "podReplacementPolicy")) {
    const std::string p = str_of(spec, "podReplacementPolicy");
    if (child(spec, "podFailurePolicy")) {
      if (p != "Failed") errs.not_supported("spec.podReplacementPolicy", go_quote(p), {"Failed"});
    } else if (p != "TerminatingOrFailed" && p != "Failed") {
      errs.not_supported("spec.podReplacementPolicy", go_quote(p), {"Failed", "TerminatingOrFailed"});
    }
  }
  const json& tpl = object_of(spec, "template");
  validate_pod_template(tpl, "spec.template", errs);
  const std::string rp = str_of(object_of(tpl, "spec"), "restartPolicy");
  if (rp != "OnFailure" && rp != "Never")
    errs.not_supported("spec.template.spec.restartPolicy", go_quote(rp), {"OnFailure", "Never"});
  const json* selector = child(spec, "selector");
  if (!selector) errs.required("spec.selector");
  else validate_label_selector(*selector, "spec.selector", errs);
  // Whether generated or manual, the selector must match the pods the Job makes.
  if (!selector || selector_convertible(*selector)) {
    const json* labels = child(object_of(tpl, "metadata"), "labels");
    if (!(selector && selector_is_empty(*selector)) && !selector_matches(selector, labels ? *labels : json()))
      errs.invalid("spec.template.metadata.labels", go_map(labels ? *labels : json()),
                   "`selector` does not match template `labels`");
  }
}

}  // namespace kubesim::validation
