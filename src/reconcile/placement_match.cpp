#include "reconcile/placement_match.h"

#include "dgd/reconcile/placement_fit.h"
#include "reconcile/json_path.h"

namespace dgd::reconcile {

using nlohmann::json;

bool tolerates(const json& tolerations, const json& taint) {
  if (!tolerations.is_array()) return false;
  const std::string key = taint.value("key", ""), value = taint.value("value", ""), effect = taint.value("effect", "");
  for (const auto& t : tolerations) {
    if (!t.is_object()) continue;
    const std::string te = t.value("effect", "");
    if (!te.empty() && te != effect) continue;
    const std::string tk = t.value("key", ""), op = t.value("operator", "Equal");
    if (op == "Exists") {
      if (tk.empty() || tk == key) return true;
      continue;
    }
    if (tk == key && t.value("value", "") == value) return true;
  }
  return false;
}

std::optional<std::string> label_of(const json& labels, const std::string& key) {
  if (!labels.is_object()) return std::nullopt;
  auto it = labels.find(key);
  if (it == labels.end() || !it->is_string()) return std::nullopt;
  return it->get<std::string>();
}

// One requirement (key, operator, values) against labels: node selector and label
// selector operators (In, NotIn, Exists, DoesNotExist, Gt, Lt).
namespace {

bool requirement_matches(const json& req, const json& labels) {
  const std::string key = req.value("key", ""), op = req.value("operator", "");
  const auto value = label_of(labels, key);
  std::vector<std::string> values;
  if (req.contains("values") && req["values"].is_array()) {
    for (const auto& v : req["values"]) {
      if (v.is_string()) values.push_back(v.get<std::string>());
    }
  }
  auto in = [&] { return value && std::find(values.begin(), values.end(), *value) != values.end(); };
  if (op == "In") return in();
  if (op == "NotIn") return !in();
  if (op == "Exists") return value.has_value();
  if (op == "DoesNotExist") return !value.has_value();
  if (op == "Gt" || op == "Lt") {
    if (!value || values.size() != 1) return false;
    try {
      const long long a = std::stoll(*value), b = std::stoll(values[0]);
      return op == "Gt" ? a > b : a < b;
    } catch (const std::exception&) {
      return false;
    }
  }
  return false;
}

bool node_term_matches(const json& term, const json& node) {
  const json& labels = at(node, {"metadata", "labels"});
  bool any = false;
  const json& exprs = at(term, {"matchExpressions"});
  if (exprs.is_array()) {
    for (const auto& e : exprs) {
      any = true;
      if (!requirement_matches(e, labels)) return false;
    }
  }
  const json& fields = at(term, {"matchFields"});
  if (fields.is_array()) {
    for (const auto& f : fields) {
      any = true;
      if (f.value("key", "") != "metadata.name") return false;
      if (!requirement_matches(f, json{{"metadata.name", str(node, {"metadata", "name"})}})) return false;
    }
  }
  return any;  // an empty term matches nothing
}

}  // namespace

bool node_selector_matches(const json& pod, const json& node) {
  const json& labels = at(node, {"metadata", "labels"});
  const json& sel = at(pod, {"spec", "nodeSelector"});
  if (sel.is_object()) {
    for (auto it = sel.begin(); it != sel.end(); ++it) {
      if (!it.value().is_string() || label_of(labels, it.key()) != it.value().get<std::string>()) return false;
    }
  }
  const json& terms =
      at(pod, {"spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"});
  if (!terms.is_array()) return true;
  return std::any_of(terms.begin(), terms.end(), [&](const json& t) { return node_term_matches(t, node); });
}

// A required pod (anti-)affinity term.
bool NodeRefusal::fails(FitFilter f) const { return std::find(filters.begin(), filters.end(), f) != filters.end(); }

bool label_selector_matches(const json& selector, const json& labels) {
  if (!selector.is_object()) return true;
  const json& ml = at(selector, {"matchLabels"});
  if (ml.is_object()) {
    for (auto it = ml.begin(); it != ml.end(); ++it) {
      if (!it.value().is_string() || label_of(labels, it.key()) != it.value().get<std::string>()) return false;
    }
  }
  const json& me = at(selector, {"matchExpressions"});
  if (me.is_array()) {
    for (const auto& e : me) {
      if (!requirement_matches(e, labels)) return false;
    }
  }
  return true;
}

std::vector<std::string> claim_templates_of(const json& pod) {
  std::vector<std::string> out;
  const json& claims = at(pod, {"spec", "resourceClaims"});
  if (!claims.is_array()) return out;
  const std::string ns = str(pod, {"metadata", "namespace"});
  for (const auto& c : claims) {
    std::string t = str(c, {"resourceClaimTemplateName"});
    if (t.empty()) t = str(c, {"source", "resourceClaimTemplateName"});
    if (!t.empty()) out.push_back(ns + "/" + t);
  }
  return out;
}

}  // namespace dgd::reconcile
