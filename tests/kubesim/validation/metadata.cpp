// ObjectMeta, labels, annotations and label selectors, as
// staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go and
// staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go check them.
#include "kubesim/validation/kinds.h"

#include <algorithm>
#include <cctype>

namespace kubesim::validation {

namespace {

constexpr int64_t kTotalAnnotationSizeLimit = 256 * 1024;

std::string as_text(const json& v) { return v.is_string() ? v.get<std::string>() : v.dump(); }

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// "apps/v1" -> "v1", "v1" -> "v1"; a malformed apiVersion has no version.
std::string version_of(const std::string& api_version) {
  if (api_version.empty()) return "";
  size_t slashes = std::count(api_version.begin(), api_version.end(), '/');
  if (slashes == 0) return api_version;
  if (slashes > 1) return "";
  return api_version.substr(api_version.find('/') + 1);
}

std::string go_owner_references(const json& refs) {
  std::string out = "[]v1.OwnerReference{";
  for (size_t i = 0; i < refs.size(); ++i) {
    const json& r = refs[i];
    auto ptr = [&](const char* key) {
      return child(r, key) ? std::string("(*bool)(0xc000000000)") : std::string("(*bool)(nil)");
    };
    out += std::string(i ? ", " : "") + "v1.OwnerReference{APIVersion:" + go_quote(str_of(r, "apiVersion")) +
           ", Kind:" + go_quote(str_of(r, "kind")) + ", Name:" + go_quote(str_of(r, "name")) +
           ", UID:" + go_quote(str_of(r, "uid")) + ", Controller:" + ptr("controller") +
           ", BlockOwnerDeletion:" + ptr("blockOwnerDeletion") + "}";
  }
  return out + "}";
}

}  // namespace

NameRule name_rule(const ResourceType& t) {
  if (t.group.empty() && t.kind == "Namespace") return NameRule::dns1123_label;
  if (t.group.empty() && t.kind == "Service") return NameRule::dns1035_label;
  if (t.group == "rbac.authorization.k8s.io") return NameRule::path_segment;
  return NameRule::dns1123_subdomain;
}

void validate_labels(const json& labels, const std::string& field, ErrorList& errs) {
  if (!labels.is_object()) return;
  for (const auto& [k, v] : labels.items()) {
    errs.invalid_each(field, go_quote(k), is_qualified_name(k));
    const std::string value = as_text(v);
    errs.invalid_each(field, go_quote(value), is_label_value(value));
  }
}

void validate_annotations(const json& annotations, const std::string& field, ErrorList& errs) {
  if (!annotations.is_object()) return;
  int64_t total = 0;
  for (const auto& [k, v] : annotations.items()) {
    // QualifiedName, except that case does not matter.
    errs.invalid_each(field, go_quote(k), is_qualified_name(lower(k)));
    total += static_cast<int64_t>(k.size() + as_text(v).size());
  }
  if (total > kTotalAnnotationSizeLimit) errs.too_long(field, kTotalAnnotationSizeLimit);
}

void validate_label_selector(const json& selector, const std::string& field, ErrorList& errs) {
  if (!selector.is_object()) return;
  validate_labels(object_of(selector, "matchLabels"), field + ".matchLabels", errs);
  const json& exprs = array_of(selector, "matchExpressions");
  for (size_t i = 0; i < exprs.size(); ++i) {
    const json& e = exprs[i];
    const std::string p = index_path(field + ".matchExpressions", i);
    const std::string op = str_of(e, "operator");
    const size_t values = array_of(e, "values").size();
    if (op == "In" || op == "NotIn") {
      if (values == 0) errs.required(p + ".values", "must be specified when `operator` is 'In' or 'NotIn'");
    } else if (op == "Exists" || op == "DoesNotExist") {
      if (values > 0) errs.forbidden(p + ".values", "may not be specified when `operator` is 'Exists' or 'DoesNotExist'");
    } else {
      errs.invalid(p + ".operator", go_quote(op), "not a valid selector operator");
    }
    const std::string key = str_of(e, "key");
    errs.invalid_each(p + ".key", go_quote(key), is_qualified_name(key));
  }
}

bool selector_is_empty(const json& selector) {
  return object_of(selector, "matchLabels").empty() && array_of(selector, "matchExpressions").empty();
}

bool selector_convertible(const json& selector) {
  if (!selector.is_object()) return true;
  for (const auto& [k, v] : object_of(selector, "matchLabels").items())
    if (!is_qualified_name(k).empty() || !is_label_value(as_text(v)).empty()) return false;
  for (const auto& e : array_of(selector, "matchExpressions")) {
    const std::string op = str_of(e, "operator");
    const json& values = array_of(e, "values");
    if (!is_qualified_name(str_of(e, "key")).empty()) return false;
    if (op == "In" || op == "NotIn") {
      if (values.empty()) return false;
    } else if (op == "Exists" || op == "DoesNotExist") {
      if (!values.empty()) return false;
    } else {
      return false;
    }
    for (const auto& v : values)
      if (!is_label_value(as_text(v)).empty()) return false;
  }
  return true;
}

bool selector_matches(const json* selector, const json& labels) {
  if (!selector || !selector->is_object()) return false;  // labels.Nothing()
  const json& l = labels.is_object() ? labels : json::object();
  auto value = [&](const std::string& key) -> const json* {
    auto it = l.find(key);
    return it == l.end() ? nullptr : &*it;
  };
  for (const auto& [k, v] : object_of(*selector, "matchLabels").items()) {
    const json* have = value(k);
    if (!have || as_text(*have) != as_text(v)) return false;
  }
  for (const auto& e : array_of(*selector, "matchExpressions")) {
    const std::string op = str_of(e, "operator");
    const json* have = value(str_of(e, "key"));
    bool in = false;
    if (have)
      for (const auto& v : array_of(e, "values"))
        if (as_text(v) == as_text(*have)) in = true;
    if (op == "In" && !in) return false;
    if (op == "NotIn" && in) return false;
    if (op == "Exists" && !have) return false;
    if (op == "DoesNotExist" && have) return false;
  }
  return true;
}

void validate_nonnegative(const json& obj, const char* key, const std::string& field, ErrorList& errs) {
  const json* v = child(obj, key);
  if (v && v->is_number_integer() && v->get<int64_t>() < 0)
    errs.invalid(field, go_int(v->get<int64_t>()), "must be greater than or equal to 0");
}

void validate_object_meta(const ResourceType& t, const json& meta, ErrorList& errs) {
  const NameRule rule = name_rule(t);
  const std::string generate_name = str_of(meta, "generateName");
  if (!generate_name.empty())
    errs.invalid_each("metadata.generateName", go_quote(generate_name), name_messages(rule, generate_name, true));
  const std::string name = str_of(meta, "name");
  if (name.empty()) errs.required("metadata.name", "name or generateName is required");
  else errs.invalid_each("metadata.name", go_quote(name), name_messages(rule, name, false));
  validate_nonnegative(meta, "generation", "metadata.generation", errs);
  if (const json* l = child(meta, "labels")) validate_labels(*l, "metadata.labels", errs);
  if (const json* a = child(meta, "annotations")) validate_annotations(*a, "metadata.annotations", errs);
  const json& refs = array_of(meta, "ownerReferences");
  std::string first_controller;
  for (const auto& r : refs) {
    const std::string p = "metadata.ownerReferences";
    if (version_of(str_of(r, "apiVersion")).empty())
      errs.invalid(p + ".apiVersion", go_quote(str_of(r, "apiVersion")), "version must not be empty");
    if (str_of(r, "kind").empty()) errs.invalid(p + ".kind", "\"\"", "must not be empty");
    if (str_of(r, "name").empty()) errs.invalid(p + ".name", "\"\"", "must not be empty");
    if (str_of(r, "uid").empty()) errs.invalid(p + ".uid", "\"\"", "must not be empty");
    const json* controller = child(r, "controller");
    if (controller && controller->is_boolean() && controller->get<bool>()) {
      const std::string current = str_of(r, "kind") + "/" + str_of(r, "name");
      if (first_controller.empty()) first_controller = current;
      else
        errs.invalid(p, go_owner_references(refs),
                     "Only one reference can have Controller set to true. Found \"true\" in references for " +
                         first_controller + " and " + current);
    }
  }
  for (const auto& f : array_of(meta, "finalizers")) {
    const std::string s = as_text(f);
    errs.invalid_each("metadata.finalizers", go_quote(s), is_qualified_name(s));
  }
}

}  // namespace kubesim::validation
