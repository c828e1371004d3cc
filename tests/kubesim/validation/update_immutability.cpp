// What an update may not change, as the 1.32 update validators check it:
// apps ValidateDeploymentUpdate / deploymentStrategy.ValidateUpdate and the ReplicaSet
// strategy (spec.selector), batch ValidateJobSpecUpdate and validatePodTemplateUpdate,
// core ValidateServiceUpdate (validateUpgradeDowngradeClusterIPs),
// ValidatePersistentVolumeClaimUpdate, ValidateConfigMapUpdate, ValidateSecretUpdate,
// ValidatePodUpdate, and rbac ValidateRoleBindingUpdate / ValidateClusterRoleBindingUpdate.
#include "kubesim/cluster/quantity.h"
#include "kubesim/validation/kinds.h"

#include <stdexcept>

namespace kubesim::validation {

namespace {

const char* const kImmutable = "field is immutable";
const char* const kImmutableWhenSet = "field is immutable when `immutable` is set";

// apiequality.Semantic.DeepEqual treats a nil and an empty map or list alike.
json semantic(const json& v) {
  if (v.is_object()) {
    json out = json::object();
    for (const auto& [k, x] : v.items()) {
      json s = semantic(x);
      if (s.is_null() || ((s.is_object() || s.is_array()) && s.empty())) continue;
      out[k] = std::move(s);
    }
    return out;
  }
  if (v.is_array()) {
    json out = json::array();
    for (const auto& x : v) out.push_back(semantic(x));
    return out;
  }
  return v;
}

bool same(const json* a, const json* b) {
  json x = a ? semantic(*a) : json(), y = b ? semantic(*b) : json();
  auto blank = [](const json& j) { return j.is_null() || ((j.is_object() || j.is_array()) && j.empty()); };
  if (blank(x) && blank(y)) return true;
  return x == y;
}

std::string go_int_ptr(const json* v) {
  return v && v->is_number_integer() ? go_int(v->get<int64_t>()) : "null";
}

std::string go_str_ptr(const json* v) { return v && v->is_string() ? go_quote(v->get<std::string>()) : "null"; }

// A short account of what changed, in place of the cmp.Diff the real message carries.
std::string json_diff(const json& before, const json& after) {
  std::string out;
  json patch = json::diff(before, after);
  for (const auto& op : patch) {
    out += "\n  " + op.value("op", "") + " " + op.value("path", "");
    if (op.contains("value")) out += ": " + op["value"].dump();
  }
  return out;
}

bool is_true(const json& obj, const char* key) {
  const json* v = child(obj, key);
  return v && v->is_boolean() && v->get<bool>();
}

void selector_immutable(const json& old_obj, const json& new_obj, ErrorList& errs) {
  const json* a = child(object_of(old_obj, "spec"), "selector");
  const json* b = child(object_of(new_obj, "spec"), "selector");
  if (!same(a, b)) errs.invalid("spec.selector", b ? go_label_selector(*b) : "null", kImmutable);
}

void job_update(const json& old_obj, const json& new_obj, ErrorList& errs) {
  const json& os = object_of(old_obj, "spec");
  const json& ns = object_of(new_obj, "spec");
  const bool indexed = str_of(ns, "completionMode") == "Indexed";
  const json* oc = child(os, "completions");
  const json* nc = child(ns, "completions");
  if (!same(oc, nc)) {
    if (!indexed) errs.invalid("spec.completions", go_int_ptr(nc), kImmutable);
    else if (nc && !same(nc, child(ns, "parallelism")))
      errs.invalid("spec.completions", go_int_ptr(nc), "can only be modified in tandem with spec.parallelism");
  }
  selector_immutable(old_obj, new_obj, errs);
  // A suspended Job that never started may change its scheduling directives.
  json old_tpl = object_of(os, "template");
  const json& new_tpl = object_of(ns, "template");
  const bool mutable_scheduling = is_true(os, "suspend") && !child(object_of(old_obj, "status"), "startTime");
  if (mutable_scheduling) {
    json& ot = old_tpl;
    if (!ot.contains("metadata") || !ot["metadata"].is_object()) ot["metadata"] = json::object();
    if (!ot.contains("spec") || !ot["spec"].is_object()) ot["spec"] = json::object();
    const json& nm = object_of(new_tpl, "metadata");
    const json& nsp = object_of(new_tpl, "spec");
    for (const char* f : {"labels", "annotations"}) {
      if (const json* v = child(nm, f)) ot["metadata"][f] = *v;
      else ot["metadata"].erase(f);
    }
    for (const char* f : {"nodeSelector", "tolerations", "schedulingGates"}) {
      if (const json* v = child(nsp, f)) ot["spec"][f] = *v;
      else ot["spec"].erase(f);
    }
    const json* na = child(nsp, "affinity");
    json oa = ot["spec"].value("affinity", json());
    if (!na && oa.is_object()) {
      oa.erase("nodeAffinity");
      if (oa.empty()) ot["spec"].erase("affinity");
      else ot["spec"]["affinity"] = oa;
    } else if (na) {
      if (!oa.is_object()) oa = json::object();
      if (const json* n = child(*na, "nodeAffinity")) oa["nodeAffinity"] = *n;
      else oa.erase("nodeAffinity");
      ot["spec"]["affinity"] = oa;
    }
  }
  if (!same(&old_tpl, &new_tpl)) errs.invalid("spec.template", "core.PodTemplateSpec{...}", kImmutable);
  const json* om = child(os, "completionMode");
  const json* nm = child(ns, "completionMode");
  if (!same(om, nm)) errs.invalid("spec.completionMode", go_str_ptr(nm), kImmutable);
  // Pointers print as Go prints them: the value they point at, or the struct abbreviated.
  auto struct_ptr = [](const json* v, const char* type) { return v ? std::string("&batch.") + type + "{...}" : "null"; };
  const std::pair<const char*, std::string> rest[] = {
      {"podFailurePolicy", struct_ptr(child(ns, "podFailurePolicy"), "PodFailurePolicy")},
      {"backoffLimitPerIndex", go_int_ptr(child(ns, "backoffLimitPerIndex"))},
      {"managedBy", go_str_ptr(child(ns, "managedBy"))},
      {"successPolicy", struct_ptr(child(ns, "successPolicy"), "SuccessPolicy")}};
  for (const auto& [f, value] : rest)
    if (!same(child(os, f), child(ns, f))) errs.invalid(std::string("spec.") + f, value, kImmutable);
}

void service_update(const json& old_obj, const json& new_obj, ErrorList& errs) {
  const json& os = object_of(old_obj, "spec");
  const json& ns = object_of(new_obj, "spec");
  if (str_of(os, "type") == "ExternalName" || str_of(ns, "type") == "ExternalName") return;
  json old_ips = array_of(os, "clusterIPs");
  json new_ips = array_of(ns, "clusterIPs");
  // normalizeClusterIPs: a changed clusterIP beside unchanged clusterIPs is the user's
  // meaning for clusterIPs[0].
  const std::string old_ip = str_of(os, "clusterIP"), new_ip = str_of(ns, "clusterIP");
  if (old_ip != new_ip && old_ips == new_ips) {
    if (new_ip.empty()) new_ips = json::array();
    else if (new_ips.empty()) new_ips = json::array({new_ip});
    else new_ips[0] = new_ip;
  }
  for (size_t i = 0; i < 2; ++i)
    if (new_ips.size() > i && old_ips.size() > i && new_ips[i] != old_ips[i])
      errs.invalid(index_path("spec.clusterIPs", i), go_string_slice(new_ips), "may not change once set");
}

int64_t storage_milli(const json& obj, std::initializer_list<const char*> path) {
  const json* cur = &obj;
  for (const char* k : path) {
    cur = child(*cur, k);
    if (!cur) return 0;
  }
  try {
    return cluster::parse_milli(cur->is_string() ? cur->get<std::string>() : cur->dump());
  } catch (const std::exception&) {
    return 0;
  }
}

void pvc_update(const json& old_obj, const json& new_obj, ErrorList& errs) {
  json old_spec = object_of(old_obj, "spec");
  json new_spec = object_of(new_obj, "spec");
  // The volume binder sets volumeName once.
  if (str_of(old_spec, "volumeName").empty()) {
    if (const json* v = child(new_spec, "volumeName")) old_spec["volumeName"] = *v;
    else old_spec.erase("volumeName");
  }
  // storageClassName may be set once from nil (validateStorageClassUpgradeFromNil).
  const std::string beta_class =
      str_of(object_of(object_of(old_obj, "metadata"), "annotations"), "volume.beta.kubernetes.io/storage-class");
  if (!has_str(old_spec, "storageClassName") && has_str(new_spec, "storageClassName") &&
      (beta_class.empty() || beta_class == str_of(new_spec, "storageClassName")))
    old_spec["storageClassName"] = new_spec["storageClassName"];
  // A bound claim may change its storage request and volumeAttributesClassName.
  if (str_of(object_of(new_obj, "status"), "phase") == "Bound") {
    const json* old_storage = child(object_of(object_of(old_spec, "resources"), "requests"), "storage");
    const json* new_requests = child(object_of(new_spec, "resources"), "requests");
    if (new_requests && new_requests->is_object()) {
      if (old_storage) new_spec["resources"]["requests"]["storage"] = *old_storage;
      else new_spec["resources"]["requests"].erase("storage");
    }
    if (child(new_spec, "volumeAttributesClassName")) {
      if (const json* v = child(old_spec, "volumeAttributesClassName")) new_spec["volumeAttributesClassName"] = *v;
      else new_spec.erase("volumeAttributesClassName");
    }
  }
  if (!same(&old_spec, &new_spec))
    errs.forbidden("spec", "spec is immutable after creation except resources.requests and volumeAttributesClassName "
                           "for bound claims\n" + json_diff(semantic(old_spec), semantic(new_spec)));
  const int64_t old_size = storage_milli(old_obj, {"spec", "resources", "requests", "storage"});
  const int64_t new_size = storage_milli(new_obj, {"spec", "resources", "requests", "storage"});
  const int64_t status_size = storage_milli(old_obj, {"status", "capacity", "storage"});
  // RecoverVolumeExpansionFailure (beta, on in 1.32): a claim may shrink back, not below
  // the capacity it has.
  if (new_size < old_size && new_size <= status_size)
    errs.forbidden("spec.resources.requests.storage", "field can not be less than status.capacity");
  const json* old_mode = child(object_of(old_obj, "spec"), "volumeMode");
  const json* new_mode = child(object_of(new_obj, "spec"), "volumeMode");
  if (!same(old_mode, new_mode)) errs.invalid("volumeMode", go_str_ptr(new_mode), kImmutable);
}

void immutable_data(const json& old_obj, const json& new_obj, bool secret, ErrorList& errs) {
  if (!is_true(old_obj, "immutable")) return;
  if (!is_true(new_obj, "immutable")) errs.forbidden("immutable", kImmutableWhenSet);
  if (!same(child(old_obj, "data"), child(new_obj, "data"))) errs.forbidden("data", kImmutableWhenSet);
  if (!secret && !same(child(old_obj, "binaryData"), child(new_obj, "binaryData")))
    errs.forbidden("binaryData", kImmutableWhenSet);
}

// validateOnlyAddedTolerations: every old toleration is still there (tolerationSeconds aside).
bool tolerations_kept(const json& old_list, const json& new_list) {
  for (const auto& o : old_list) {
    bool found = false;
    for (const auto& n : new_list) {
      json a = o, b = n;
      if (a.is_object()) a.erase("tolerationSeconds");
      if (b.is_object()) b.erase("tolerationSeconds");
      if (a == b) found = true;
    }
    if (!found) return false;
  }
  return true;
}

void pod_update(const json& old_obj, const json& new_obj, ErrorList& errs) {
  const json& os = object_of(old_obj, "spec");
  const json& ns = object_of(new_obj, "spec");
  for (const char* list : {"containers", "initContainers"}) {
    const json& a = array_of(os, list);
    const json& b = array_of(ns, list);
    if (a.size() != b.size()) return errs.forbidden(std::string("spec.") + list, "pod updates may not add or remove containers");
    for (size_t i = 0; i < b.size(); ++i)
      if (str_of(b[i], "image").empty()) errs.required(index_path(std::string("spec.") + list, i) + ".image");
  }
  const json* nads = child(ns, "activeDeadlineSeconds");
  const json* oads = child(os, "activeDeadlineSeconds");
  if (nads && nads->is_number_integer()) {
    const int64_t v = nads->get<int64_t>();
    if (v < 0 || v > 2147483647)
      return errs.invalid("spec.activeDeadlineSeconds", go_int(v), "must be between 0 and 2147483647, inclusive");
    if (oads && oads->is_number_integer() && oads->get<int64_t>() < v)
      return errs.invalid("spec.activeDeadlineSeconds", go_int(v), "must be less than or equal to previous value");
  } else if (oads) {
    errs.invalid("spec.activeDeadlineSeconds", "null", "must not update from a positive integer to nil value");
  }
  if (!tolerations_kept(array_of(os, "tolerations"), array_of(ns, "tolerations")))
    errs.forbidden("spec.tolerations", "existing toleration can not be modified except its tolerationSeconds");
  json munged = ns;
  for (const char* list : {"containers", "initContainers"})
    if (munged.contains(list) && munged[list].is_array())
      for (size_t i = 0; i < munged[list].size() && i < array_of(os, list).size(); ++i)
        if (munged[list][i].is_object()) {
          if (const json* img = child(array_of(os, list)[i], "image")) munged[list][i]["image"] = *img;
          else munged[list][i].erase("image");
        }
  for (const char* f : {"activeDeadlineSeconds", "schedulingGates", "tolerations"}) {
    if (const json* v = child(os, f)) munged[f] = *v;
    else munged.erase(f);
  }
  const json* otg = child(os, "terminationGracePeriodSeconds");
  const json* ntg = child(munged, "terminationGracePeriodSeconds");
  if (otg && ntg && otg->is_number_integer() && otg->get<int64_t>() < 0 && *ntg == 1) munged["terminationGracePeriodSeconds"] = *otg;
  if (!same(&munged, &os))
    errs.forbidden("spec",
                   "pod updates may not change fields other than `spec.containers[*].image`,"
                   "`spec.initContainers[*].image`,`spec.activeDeadlineSeconds`,`spec.tolerations` (only additions "
                   "to existing tolerations),`spec.terminationGracePeriodSeconds` (allow it to be set to 1 if it was "
                   "previously negative)\n" + json_diff(semantic(os), semantic(munged)));
}

}  // namespace

void validate_update_rules(const ResourceType& t, const json& old_obj, const json& new_obj, ErrorList& before,
                           ErrorList& after) {
  const std::string& k = t.kind;
  if (t.group == "apps" && (k == "Deployment" || k == "ReplicaSet")) selector_immutable(old_obj, new_obj, after);
  if (t.group == "batch" && k == "Job") job_update(old_obj, new_obj, after);
  if (t.group == "rbac.authorization.k8s.io" && (k == "RoleBinding" || k == "ClusterRoleBinding")) {
    const json& a = object_of(old_obj, "roleRef");
    const json& b = object_of(new_obj, "roleRef");
    if (a != b)
      after.invalid("roleRef",
                    "rbac.RoleRef{APIGroup:" + go_quote(str_of(b, "apiGroup")) + ", Kind:" + go_quote(str_of(b, "kind")) +
                        ", Name:" + go_quote(str_of(b, "name")) + "}",
                    "cannot change roleRef");
  }
  if (!t.group.empty()) return;
  if (k == "Service") service_update(old_obj, new_obj, before);
  if (k == "PersistentVolumeClaim") pvc_update(old_obj, new_obj, after);
  if (k == "ConfigMap") immutable_data(old_obj, new_obj, false, before);
  if (k == "Secret") {
    immutable_data(old_obj, new_obj, true, before);
    if (str_of(old_obj, "type") != str_of(new_obj, "type"))
      before.invalid("type", go_quote(str_of(new_obj, "type")), kImmutable);
  }
  if (k == "Pod") pod_update(old_obj, new_obj, after);
}

}  // namespace kubesim::validation
