#include "dgd/reconcile/placement_fit.h"

#include <algorithm>
#include <set>

#include "dgd/object/quantity.h"
#include "reconcile/json_path.h"

namespace dgd::reconcile {
namespace {

using nlohmann::json;

void add_list(ResourceAmounts& into, const json& list) {
  if (!list.is_object()) return;
  for (auto it = list.begin(); it != list.end(); ++it) {
    auto q = it.value().is_string() ? object::Quantity::parse(it.value().get<std::string>())
             : it.value().is_number() ? object::Quantity::parse(it.value().dump())
                                      : std::nullopt;
    if (q) into[it.key()] += q->milli_value();
  }
}

ResourceAmounts container_requests(const json& c) {
  ResourceAmounts r;
  const json& req = at(c, {"resources", "requests"});
  const json& lim = at(c, {"resources", "limits"});
  add_list(r, req);
  if (lim.is_object()) {
    for (auto it = lim.begin(); it != lim.end(); ++it) {
      if (req.is_object() && req.contains(it.key())) continue;
      add_list(r, json{{it.key(), it.value()}});
    }
  }
  return r;
}

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
struct Term {
  const json* selector;
  std::string topology_key;
  std::set<std::string> namespaces;  // empty with all_namespaces
  bool all_namespaces = false;
};

std::vector<Term> terms_of(const json& pod, const char* kind) {
  std::vector<Term> out;
  const json& list = at(pod, {"spec", "affinity", kind, "requiredDuringSchedulingIgnoredDuringExecution"});
  if (!list.is_array()) return out;
  for (const auto& t : list) {
    Term term;
    term.selector = &at(t, {"labelSelector"});
    term.topology_key = t.value("topologyKey", "");
    const json& nss = at(t, {"namespaces"});
    if (nss.is_array()) {
      for (const auto& n : nss) {
        if (n.is_string()) term.namespaces.insert(n.get<std::string>());
      }
    }
    // A namespaceSelector needs the namespaces' labels, which this view does not hold:
    // it is read as "all namespaces" (strict for anti-affinity, lenient for affinity).
    if (at(t, {"namespaceSelector"}).is_object()) term.all_namespaces = true;
    if (term.namespaces.empty() && !term.all_namespaces) term.namespaces.insert(str(pod, {"metadata", "namespace"}));
    out.push_back(std::move(term));
  }
  return out;
}

bool term_matches_pod(const Term& t, const json& other) {
  if (!t.all_namespaces && t.namespaces.count(str(other, {"metadata", "namespace"})) == 0) return false;
  if (t.selector->is_null()) return false;  // a term without labelSelector matches no pod
  return label_selector_matches(*t.selector, at(other, {"metadata", "labels"}));
}

bool uses_capacity(const json& pod) {
  if (str(pod, {"spec", "nodeName"}).empty()) return false;
  const std::string phase = str(pod, {"status", "phase"});
  return phase != "Succeeded" && phase != "Failed";
}

}  // namespace

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

ResourceAmounts pod_requests(const json& pod) {
  ResourceAmounts total;
  const json& containers = at(pod, {"spec", "containers"});
  if (containers.is_array()) {
    for (const auto& c : containers) {
      for (const auto& [k, v] : container_requests(c)) total[k] += v;
    }
  }
  // Init containers run one at a time before the app containers; sidecars
  // (restartPolicy: Always) keep running next to everything started after them.
  const json& inits = at(pod, {"spec", "initContainers"});
  if (inits.is_array()) {
    ResourceAmounts sidecars, init_max;
    for (const auto& c : inits) {
      const ResourceAmounts r = container_requests(c);
      if (c.value("restartPolicy", "") == "Always") {
        for (const auto& [k, v] : r) sidecars[k] += v;
        for (const auto& [k, v] : sidecars) init_max[k] = std::max(init_max[k], v);
        continue;
      }
      for (const auto& [k, v] : r) init_max[k] = std::max(init_max[k], v + sidecars[k]);
    }
    for (const auto& [k, v] : sidecars) total[k] += v;
    for (const auto& [k, v] : init_max) total[k] = std::max(total[k], v);
  }
  add_list(total, at(pod, {"spec", "overhead"}));
  return total;
}

ResourceAmounts node_allocatable(const json& node) {
  ResourceAmounts r;
  const json& a = at(node, {"status", "allocatable"});
  add_list(r, a.is_object() ? a : at(node, {"status", "capacity"}));
  return r;
}

std::string format_amount(const std::string& resource, int64_t milli) {
  constexpr int64_t kGi = int64_t{1} << 30;
  if (resource == "memory" || resource == "ephemeral-storage") {
    const int64_t bytes = milli / 1000;
    if (bytes % kGi == 0 || bytes >= 10 * kGi) return std::to_string(bytes / kGi) + "Gi";
    return std::to_string(bytes / (1 << 20)) + "Mi";
  }
  if (milli % 1000 == 0) return std::to_string(milli / 1000);
  return std::to_string(milli) + "m";
}

ClusterFit::ClusterFit(std::vector<json> nodes, const std::vector<json>& pods) : nodes_(std::move(nodes)) {
  std::sort(nodes_.begin(), nodes_.end(), [](const json& a, const json& b) {
    return str(a, {"metadata", "name"}) < str(b, {"metadata", "name"});
  });
  for (size_t i = 0; i < nodes_.size(); ++i) {
    index_[str(nodes_[i], {"metadata", "name"})] = i;
    alloc_.push_back(node_allocatable(nodes_[i]));
  }
  used_.resize(nodes_.size());
  pod_count_.resize(nodes_.size());
  for (const auto& p : pods) {
    if (!uses_capacity(p)) continue;
    auto it = index_.find(str(p, {"spec", "nodeName"}));
    if (it != index_.end()) add_bound(p, it->second);
  }
}

const json* ClusterFit::node(const std::string& name) const {
  auto it = index_.find(name);
  return it == index_.end() ? nullptr : &nodes_[it->second];
}

std::string ClusterFit::clique_of(const std::string& name) const {
  const json* n = node(name);
  return n ? str(*n, {"metadata", "labels", kCliqueLabel}) : std::string();
}

std::string ClusterFit::fixed_clique(const json& pod) const {
  for (const auto& t : claim_templates_of(pod)) {
    auto it = claim_clique_.find(t);
    if (it != claim_clique_.end()) return it->second;
  }
  return "";
}

std::vector<std::string> ClusterFit::pods_on(const std::string& node, const json& selector,
                                             const std::string& ns) const {
  std::vector<std::string> out;
  auto it = index_.find(node);
  if (it == index_.end()) return out;
  for (const auto& b : bound_) {
    if (b.node != it->second || str(b.pod, {"metadata", "namespace"}) != ns) continue;
    if (label_selector_matches(selector, at(b.pod, {"metadata", "labels"}))) {
      out.push_back(str(b.pod, {"metadata", "name"}));
    }
  }
  return out;
}

void ClusterFit::bind(const json& pod, const std::string& node) {
  auto it = index_.find(node);
  if (it == index_.end()) return;
  json p = pod;
  p["spec"]["nodeName"] = node;
  add_bound(std::move(p), it->second);
}

void ClusterFit::add_bound(json pod, size_t node) {
  for (const auto& [k, v] : pod_requests(pod)) used_[node][k] += v;
  pod_count_[node] += 1;
  const std::string clique = str(nodes_[node], {"metadata", "labels", kCliqueLabel});
  if (!clique.empty()) {
    for (const auto& t : claim_templates_of(pod)) claim_clique_.emplace(t, clique);
  }
  bound_.push_back({std::move(pod), node});
}

FitResult ClusterFit::fit(const json& pod, const FitOptions& options) const {
  FitResult result;
  const ResourceAmounts req = pod_requests(pod);
  const json& tolerations = at(pod, {"spec", "tolerations"});
  const auto affinity = options.ignore_clique ? std::vector<Term>() : terms_of(pod, "podAffinity");
  const auto anti = terms_of(pod, "podAntiAffinity");
  const bool claims = !claim_templates_of(pod).empty();
  const std::string fixed = options.ignore_clique ? std::string() : fixed_clique(pod);

  // InterPodAffinity over the bound pods: topology pairs (key, value) that hold a pod
  // matching every affinity term, a pod the anti-affinity refuses, or a pod whose own
  // anti-affinity refuses this one.
  std::set<std::pair<std::string, std::string>> affinity_pairs, anti_pairs, existing_anti_pairs;
  for (const auto& b : bound_) {
    const json& nlabels = at(nodes_[b.node], {"metadata", "labels"});
    if (!affinity.empty() &&
        std::all_of(affinity.begin(), affinity.end(), [&](const Term& t) { return term_matches_pod(t, b.pod); })) {
      for (const auto& t : affinity) {
        if (auto v = label_of(nlabels, t.topology_key)) affinity_pairs.insert({t.topology_key, *v});
      }
    }
    for (const auto& t : anti) {
      if (term_matches_pod(t, b.pod)) {
        if (auto v = label_of(nlabels, t.topology_key)) anti_pairs.insert({t.topology_key, *v});
      }
    }
    for (const auto& t : terms_of(b.pod, "podAntiAffinity")) {
      if (term_matches_pod(t, pod)) {
        if (auto v = label_of(nlabels, t.topology_key)) existing_anti_pairs.insert({t.topology_key, *v});
      }
    }
  }
  // The first pod of a group that is affine to itself may go anywhere.
  const bool self_affine = !affinity.empty() && std::all_of(affinity.begin(), affinity.end(),
                                                            [&](const Term& t) { return term_matches_pod(t, pod); });
  const bool pack = std::any_of(req.begin(), req.end(), [](const auto& kv) { return kv.second > 0 && is_extended(kv.first); });

  double best_score = -1;
  for (size_t i = 0; i < nodes_.size(); ++i) {
    const json& node = nodes_[i];
    const json& nlabels = at(node, {"metadata", "labels"});
    if (!options.only_clique.empty() && label_of(nlabels, kCliqueLabel) != options.only_clique) continue;
    NodeRefusal r;
    r.node = str(node, {"metadata", "name"});
    if (at(node, {"spec", "unschedulable"}) == true &&
        !tolerates(tolerations, json{{"key", "node.kubernetes.io/unschedulable"}, {"effect", "NoSchedule"}})) {
      r.filters.push_back(FitFilter::kUnschedulable);
    }
    const json& taints = at(node, {"spec", "taints"});
    if (taints.is_array()) {
      for (const auto& t : taints) {
        const std::string effect = t.value("effect", "");
        if ((effect != "NoSchedule" && effect != "NoExecute") || tolerates(tolerations, t)) continue;
        r.filters.push_back(FitFilter::kTaint);
        r.taint = t.value("key", "") + (t.value("value", "").empty() ? "" : "=" + t.value("value", "")) + ":" + effect;
        break;
      }
    }
    if (!node_selector_matches(pod, node)) r.filters.push_back(FitFilter::kNodeSelector);
    auto get = [](const ResourceAmounts& m, const std::string& k) {
      auto it = m.find(k);
      return it == m.end() ? int64_t{0} : it->second;
    };
    if (pod_count_[i] + 1 > get(alloc_[i], "pods") / 1000) {
      r.shortfalls.push_back({"pods", 1000, get(alloc_[i], "pods"), get(alloc_[i], "pods") - pod_count_[i] * 1000});
    }
    for (const auto& [res, want] : req) {
      if (want <= 0 || res == "pods") continue;
      const int64_t a = get(alloc_[i], res), f = a - get(used_[i], res);
      if (want > f) r.shortfalls.push_back({res, want, a, f});
    }
    if (!r.shortfalls.empty()) r.filters.push_back(FitFilter::kResources);
    for (const auto& [k, v] : existing_anti_pairs) {
      if (label_of(nlabels, k) == v) {
        r.filters.push_back(FitFilter::kExistingAntiAffinity);
        break;
      }
    }
    if (!affinity.empty()) {
      bool has_all_keys = true, pods_exist = true;
      for (const auto& t : affinity) {
        auto v = label_of(nlabels, t.topology_key);
        if (!v) has_all_keys = false;
        else if (affinity_pairs.count({t.topology_key, *v}) == 0) pods_exist = false;
      }
      if (!(has_all_keys && (pods_exist || (affinity_pairs.empty() && self_affine)))) {
        r.filters.push_back(FitFilter::kPodAffinity);
      }
    }
    for (const auto& t : anti) {
      auto v = label_of(nlabels, t.topology_key);
      if (v && anti_pairs.count({t.topology_key, *v}) > 0) {
        r.filters.push_back(FitFilter::kPodAntiAffinity);
        break;
      }
    }
    if (claims && !options.ignore_clique) {
      r.clique = label_of(nlabels, kCliqueLabel).value_or("");
      if (r.clique.empty() || (!fixed.empty() && r.clique != fixed)) r.filters.push_back(FitFilter::kClique);
    }
    if (!r.filters.empty()) {
      result.refused.push_back(std::move(r));
      continue;
    }
    // Score: pack GPU/RDMA pods (most allocated on their extended resources), spread others.
    double score = 0;
    int n = 0;
    for (const auto& [res, want] : req) {
      if (want <= 0 || is_extended(res) != pack || res == "pods") continue;
      const int64_t a = get(alloc_[i], res);
      if (a <= 0) continue;
      const double frac = double(get(used_[i], res) + want) / double(a);
      score += pack ? frac : 1.0 - frac;
      ++n;
    }
    if (!pack) {
      for (const char* res : {"cpu", "memory"}) {
        const int64_t a = get(alloc_[i], res);
        if (a <= 0 || req.count(res) > 0) continue;
        score += 1.0 - double(get(used_[i], res)) / double(a);
        ++n;
      }
    }
    if (n > 0) score /= n;
    if (!result.node || score > best_score + 1e-12) {
      result.node = r.node;
      best_score = score;
    }
  }
  return result;
}

}  // namespace dgd::reconcile
