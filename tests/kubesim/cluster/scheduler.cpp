#include "kubesim/cluster/scheduler.h"

#include "kubesim/cluster/quantity.h"

#include <algorithm>
#include <deque>
#include <set>
#include <stdexcept>

namespace kubesim::cluster {
namespace {

constexpr const char* kDefaultScheduler = "default-scheduler";

bool is_terminal(const Json& pod) {
  std::string phase = str_at(pod, {"status", "phase"});
  return phase == "Succeeded" || phase == "Failed";
}

void add_list(ResourceList& into, const Json& list) {
  if (!list.is_object()) return;
  for (auto it = list.begin(); it != list.end(); ++it) {
    if (!it.value().is_string() && !it.value().is_number()) continue;
    std::string text = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
    try {
      into[it.key()] += scheduler_units(it.key(), text);
    } catch (const std::invalid_argument&) {
      // The API server rejects malformed quantities; a stray one must not stop the scheduler.
    }
  }
}

// A container's requests, with limits standing in for missing requests (API defaulting).
ResourceList container_requests(const Json& c) {
  ResourceList r;
  const Json& req = at_path(c, {"resources", "requests"});
  const Json& lim = at_path(c, {"resources", "limits"});
  add_list(r, req);
  if (lim.is_object()) {
    for (auto it = lim.begin(); it != lim.end(); ++it) {
      if (req.is_object() && req.contains(it.key())) continue;
      ResourceList one;
      add_list(one, Json{{it.key(), it.value()}});
      for (auto& [k, v] : one) r[k] += v;
    }
  }
  return r;
}

std::vector<std::string> claim_templates_of(const Json& pod) {
  std::vector<std::string> out;
  const Json& claims = at_path(pod, {"spec", "resourceClaims"});
  if (!claims.is_array()) return out;
  for (const auto& c : claims) {
    std::string t = str_at(c, {"resourceClaimTemplateName"});
    if (t.empty()) t = str_at(c, {"source", "resourceClaimTemplateName"});
    if (!t.empty()) out.push_back(t);
  }
  return out;
}

struct Reason {
  std::string text;
  bool unresolvable;  // preemption cannot help
};

bool tolerates(const Json& tolerations, const Json& taint) {
  if (!tolerations.is_array()) return false;
  std::string key = taint.value("key", ""), value = taint.value("value", ""), effect = taint.value("effect", "");
  for (const auto& t : tolerations) {
    std::string te = t.value("effect", "");
    if (!te.empty() && te != effect) continue;
    std::string tk = t.value("key", ""), op = t.value("operator", "Equal");
    if (op == "Exists") {
      if (tk.empty() || tk == key) return true;
      continue;
    }
    if (tk == key && t.value("value", "") == value) return true;
  }
  return false;
}

// A node selector term: all expressions and fields must match.
bool term_matches(const Json& term, const Json& node) {
  const Json& labels = at_path(node, {"metadata", "labels"});
  const Json& exprs = at_path(term, {"matchExpressions"});
  const Json& fields = at_path(term, {"matchFields"});
  bool any = false;
  if (exprs.is_array()) {
    for (const auto& e : exprs) {
      any = true;
      if (!node_requirement_matches(e, labels)) return false;
    }
  }
  if (fields.is_array()) {
    for (const auto& f : fields) {
      any = true;
      if (f.value("key", "") != "metadata.name") return false;
      Json as_labels = {{"metadata.name", name_of(node)}};
      if (!node_requirement_matches(f, as_labels)) return false;
    }
  }
  return any;  // an empty term matches no objects
}

bool node_affinity_matches(const Json& pod, const Json& node) {
  const Json& labels = at_path(node, {"metadata", "labels"});
  const Json& sel = at_path(pod, {"spec", "nodeSelector"});
  if (sel.is_object()) {
    for (auto it = sel.begin(); it != sel.end(); ++it) {
      if (!labels.is_object() || !labels.contains(it.key()) || labels[it.key()] != it.value()) return false;
    }
  }
  const Json& terms =
      at_path(pod, {"spec", "affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms"});
  if (terms.is_array()) {
    for (const auto& t : terms)
      if (term_matches(t, node)) return true;
    return false;
  }
  return true;
}

struct NodeState {
  const Json* node;
  std::string name;
  ResourceList alloc;
  ResourceList used;
  int64_t pods = 0;
};

struct AffinityTerm {
  std::set<std::string> namespaces;
  bool all_namespaces = false;
  const Json* ns_selector = nullptr;  // non-empty namespaceSelector
  const Json* selector;
  std::string topology_key;
};

class State {
 public:
  explicit State(const Snapshot& snap) : snap_(snap) {
    for (const auto& ns : snap.namespaces) ns_labels_[name_of(ns)] = &at_path(ns, {"metadata", "labels"});
    for (const auto& t : snap.claim_templates) templates_.insert(namespace_of(t) + "/" + name_of(t));
    for (const auto& cd : snap.compute_domains) {
      std::string t = str_at(cd, {"spec", "channel", "resourceClaimTemplate", "name"});
      if (!t.empty()) cd_by_template_[namespace_of(cd) + "/" + t] = name_of(cd);
    }
    std::vector<const Json*> sorted;
    for (const auto& n : snap.nodes) sorted.push_back(&n);
    std::sort(sorted.begin(), sorted.end(), [](const Json* a, const Json* b) { return name_of(*a) < name_of(*b); });
    for (const Json* n : sorted) {
      NodeState s{n, name_of(*n), node_allocatable(*n), {}, 0};
      index_[s.name] = nodes_.size();
      nodes_.push_back(std::move(s));
    }
    for (const auto& p : snap.pods) {
      std::string node = str_at(p, {"spec", "nodeName"});
      if (node.empty() || is_terminal(p)) continue;
      auto it = index_.find(node);
      if (it == index_.end()) continue;
      add_bound(p, it->second);
    }
  }

  const std::vector<NodeState>& nodes() const { return nodes_; }

  void bind(const Json& pod, const std::string& node) {
    placed_.push_back(pod);
    placed_.back()["spec"]["nodeName"] = node;
    add_bound(placed_.back(), index_.at(node));
  }

  Placement place(const Json& pod) const;

 private:
  void add_bound(const Json& pod, size_t node_idx) {
    NodeState& n = nodes_[node_idx];
    for (auto& [k, v] : pod_requests(pod)) n.used[k] += v;
    n.pods += 1;
    // Indexed once per pass, so place() visits only the bound pods a term can match.
    Bound b{&pod, node_idx, terms(pod, "podAntiAffinity")};
    if (!b.anti.empty()) with_anti_.push_back(bound_.size());
    bound_by_ns_[namespace_of(pod)].push_back(bound_.size());
    bound_.push_back(std::move(b));
    for (const auto& cd : compute_domains_of(pod)) {
      std::string clique = label(*n.node, Scheduler::kCliqueLabel);
      if (!clique.empty()) cd_clique_.emplace(cd, clique);
    }
  }

  std::vector<std::string> compute_domains_of(const Json& pod) const {
    std::vector<std::string> out;
    std::string ns = namespace_of(pod);
    for (const auto& t : claim_templates_of(pod)) {
      auto it = cd_by_template_.find(ns + "/" + t);
      if (it != cd_by_template_.end()) out.push_back(ns + "/" + it->second);
    }
    return out;
  }

  static std::string label(const Json& obj, const std::string& key) {
    return str_at(at_path(obj, {"metadata", "labels"}), {key.c_str()});
  }

  std::vector<AffinityTerm> terms(const Json& pod, const char* kind) const {
    std::vector<AffinityTerm> out;
    const Json& list = at_path(pod, {"spec", "affinity", kind, "requiredDuringSchedulingIgnoredDuringExecution"});
    if (!list.is_array()) return out;
    for (const auto& t : list) {
      AffinityTerm a;
      a.selector = &at_path(t, {"labelSelector"});
      a.topology_key = t.value("topologyKey", "");
      const Json& nss = at_path(t, {"namespaces"});
      const Json& nsel = at_path(t, {"namespaceSelector"});
      if (nss.is_array())
        for (const auto& n : nss)
          if (n.is_string()) a.namespaces.insert(n.get<std::string>());
      if (nsel.is_object()) {
        if (nsel.empty() || (at_path(nsel, {"matchLabels"}).empty() && at_path(nsel, {"matchExpressions"}).empty()))
          a.all_namespaces = true;
        else
          a.ns_selector = &nsel;
      }
      if (a.namespaces.empty() && !a.all_namespaces && !a.ns_selector) a.namespaces.insert(namespace_of(pod));
      out.push_back(std::move(a));
    }
    return out;
  }

  bool term_matches_pod(const AffinityTerm& t, const Json& other) const {
    std::string ns = namespace_of(other);
    bool ns_ok = t.all_namespaces || t.namespaces.count(ns);
    if (!ns_ok && t.ns_selector) {
      auto it = ns_labels_.find(ns);
      ns_ok = selector_matches(*t.ns_selector, it == ns_labels_.end() ? Json() : *it->second);
    }
    return ns_ok && selector_matches(*t.selector, at_path(other, {"metadata", "labels"}));
  }

  const Snapshot& snap_;
  std::vector<NodeState> nodes_;
  std::map<std::string, size_t> index_;
  std::deque<Json> placed_;
  struct Bound {
    const Json* pod;
    size_t node;
    std::vector<AffinityTerm> anti;  // its required anti-affinity (checked against incoming pods)
  };
  std::vector<Bound> bound_;
  std::vector<size_t> with_anti_;                            // bound_ indices with anti-affinity terms
  std::map<std::string, std::vector<size_t>> bound_by_ns_;  // namespace -> bound_ indices
  std::map<std::string, const Json*> ns_labels_;
  std::set<std::string> templates_;
  std::map<std::string, std::string> cd_by_template_;  // "ns/template" -> ComputeDomain name
  std::map<std::string, std::string> cd_clique_;       // "ns/cd" -> clique of its first bound pod
};

std::string histogram(const std::map<std::string, int>& counts) {
  std::vector<std::string> parts;
  for (const auto& [reason, n] : counts) parts.push_back(std::to_string(n) + " " + reason);
  std::sort(parts.begin(), parts.end());
  std::string out;
  for (const auto& p : parts) out += (out.empty() ? "" : ", ") + p;
  return out;
}

Placement State::place(const Json& pod) const {
  const size_t total = nodes_.size();
  if (total == 0) return {std::nullopt, "no nodes available to schedule pods"};
  const std::string ns = namespace_of(pod);
  const std::string all = "0/" + std::to_string(total) + " nodes are available";
  const bool never_preempt = str_at(pod, {"spec", "preemptionPolicy"}) == "Never";
  auto preemption = [&](const std::map<std::string, int>& counts) {
    if (never_preempt) return std::string(" preemption: not eligible due to preemptionPolicy=Never.");
    return " preemption: " + all + ": " + histogram(counts) + ".";
  };
  static const std::string kNotHelpful = "Preemption is not helpful for scheduling";
  static const std::string kNoVictims = "No preemption victims found for incoming pod";

  // PreFilter: volumes and resource claims (the same verdict for every node).
  auto prefilter_fail = [&](const std::string& msg, bool unresolvable) {
    return Placement{std::nullopt,
                     all + ": " + msg + "." + preemption({{unresolvable ? kNotHelpful : kNoVictims, int(total)}})};
  };
  const Json& volumes = at_path(pod, {"spec", "volumes"});
  if (volumes.is_array()) {
    bool unbound = false;
    for (const auto& v : volumes) {
      std::string claim = str_at(v, {"persistentVolumeClaim", "claimName"});
      if (claim.empty()) continue;
      const Json* pvc = nullptr;
      for (const auto& c : snap_.pvcs)
        if (namespace_of(c) == ns && name_of(c) == claim) pvc = &c;
      if (!pvc) return prefilter_fail("persistentvolumeclaim \"" + claim + "\" not found", false);
      if (str_at(*pvc, {"status", "phase"}) != "Bound") unbound = true;
    }
    if (unbound) return prefilter_fail("pod has unbound immediate PersistentVolumeClaims", true);
  }
  std::vector<std::string> cds;  // "ns/cd" of the pod's claims
  for (const auto& t : claim_templates_of(pod)) {
    auto cd = cd_by_template_.find(ns + "/" + t);
    bool template_exists = templates_.count(ns + "/" + t) > 0;
    if (snap_.claim_templates_served ? !template_exists : cd == cd_by_template_.end())
      return prefilter_fail("resourceclaimtemplate.resource.k8s.io \"" + t + "\" not found", true);
    if (cd != cd_by_template_.end()) cds.push_back(ns + "/" + cd->second);
  }

  const ResourceList req = pod_requests(pod);
  const Json& tolerations = at_path(pod, {"spec", "tolerations"});
  const auto affinity = terms(pod, "podAffinity");
  const auto anti = terms(pod, "podAntiAffinity");

  // InterPodAffinity pre-computation over the bound pods.
  // Affinity: topology pairs holding a pod that matches every term.
  std::set<std::pair<std::string, std::string>> affinity_pairs;
  // Anti-affinity of the incoming pod, and existing pods' anti-affinity against it.
  std::set<std::pair<std::string, std::string>> anti_pairs, existing_anti_pairs;
  auto node_value_of = [&](const Bound& b, const std::string& key) -> std::optional<std::string> {
    const Json& nlabels = at_path(*nodes_[b.node].node, {"metadata", "labels"});
    if (!nlabels.is_object() || !nlabels.contains(key) || !nlabels[key].is_string()) return std::nullopt;
    return nlabels[key].get<std::string>();
  };
  // The incoming pod's terms can only match bound pods in the terms' namespaces.
  std::vector<size_t> candidates;
  bool all_bound = false;
  for (const auto* ts : {&affinity, &anti})
    for (const auto& t : *ts) {
      if (t.all_namespaces || t.ns_selector) all_bound = true;
      for (const auto& n : t.namespaces) {
        auto it = bound_by_ns_.find(n);
        if (it != bound_by_ns_.end()) candidates.insert(candidates.end(), it->second.begin(), it->second.end());
      }
    }
  if (all_bound) {
    candidates.resize(bound_.size());
    for (size_t i = 0; i < bound_.size(); ++i) candidates[i] = i;
  } else {
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
  }
  for (size_t i : candidates) {
    const Bound& b = bound_[i];
    const Json& other = *b.pod;
    if (!affinity.empty()) {
      bool all_match = std::all_of(affinity.begin(), affinity.end(),
                                   [&](const AffinityTerm& t) { return term_matches_pod(t, other); });
      if (all_match)
        for (const auto& t : affinity)
          if (auto v = node_value_of(b, t.topology_key)) affinity_pairs.insert({t.topology_key, *v});
    }
    for (const auto& t : anti)
      if (term_matches_pod(t, other))
        if (auto v = node_value_of(b, t.topology_key)) anti_pairs.insert({t.topology_key, *v});
  }
  for (size_t i : with_anti_) {
    const Bound& b = bound_[i];
    for (const auto& t : b.anti)
      if (term_matches_pod(t, pod))
        if (auto v = node_value_of(b, t.topology_key)) existing_anti_pairs.insert({t.topology_key, *v});
  }
  bool self_affine = !affinity.empty() && std::all_of(affinity.begin(), affinity.end(), [&](const AffinityTerm& t) {
    return term_matches_pod(t, pod);
  });

  std::string fixed_clique;  // the clique the pod's ComputeDomains already use
  for (const auto& cd : cds) {
    auto it = cd_clique_.find(cd);
    if (it != cd_clique_.end() && fixed_clique.empty()) fixed_clique = it->second;
  }

  std::map<std::string, int> reasons, preempt;
  const NodeState* best = nullptr;
  double best_score = -1;
  bool pack = std::any_of(req.begin(), req.end(), [](const auto& kv) {
    return kv.second > 0 && kv.first != "cpu" && kv.first != "memory" && kv.first != "ephemeral-storage";
  });

  for (const auto& n : nodes_) {
    const Json& node = *n.node;
    const Json& nlabels = at_path(node, {"metadata", "labels"});
    std::vector<Reason> fail;
    // NodeUnschedulable
    if (at_path(node, {"spec", "unschedulable"}) == true &&
        !tolerates(tolerations, Json{{"key", "node.kubernetes.io/unschedulable"}, {"effect", "NoSchedule"}}))
      fail.push_back({"node(s) were unschedulable", true});
    // TaintToleration
    if (fail.empty()) {
      const Json& taints = at_path(node, {"spec", "taints"});
      if (taints.is_array()) {
        for (const auto& t : taints) {
          std::string effect = t.value("effect", "");
          if (effect != "NoSchedule" && effect != "NoExecute") continue;
          if (!tolerates(tolerations, t)) {
            fail.push_back({"node(s) had untolerated taint {" + t.value("key", "") + ": " + t.value("value", "") + "}",
                            true});
            break;
          }
        }
      }
    }
    // NodeAffinity
    if (fail.empty() && !node_affinity_matches(pod, node))
      fail.push_back({"node(s) didn't match Pod's node affinity/selector", true});
    // NodeResourcesFit
    if (fail.empty()) {
      auto alloc = [&](const std::string& r) {
        auto it = n.alloc.find(r);
        return it == n.alloc.end() ? int64_t(0) : it->second;
      };
      auto used = [&](const std::string& r) {
        auto it = n.used.find(r);
        return it == n.used.end() ? int64_t(0) : it->second;
      };
      if (n.pods + 1 > alloc("pods")) fail.push_back({"Too many pods", false});
      for (const auto& [r, v] : req) {
        if (v <= 0 || r == "pods") continue;
        if (v > alloc(r) - used(r)) fail.push_back({"Insufficient " + r, false});
      }
    }
    // InterPodAffinity
    if (fail.empty()) {
      auto node_value = [&](const std::string& key) -> std::optional<std::string> {
        if (!nlabels.is_object() || !nlabels.contains(key) || !nlabels[key].is_string()) return std::nullopt;
        return nlabels[key].get<std::string>();
      };
      bool existing_anti = false;
      for (const auto& [k, v] : existing_anti_pairs)
        if (node_value(k) == v) existing_anti = true;
      if (existing_anti) fail.push_back({"node(s) didn't satisfy existing pods anti-affinity rules", false});
      if (fail.empty() && !affinity.empty()) {
        bool has_all_keys = true, pods_exist = true;
        for (const auto& t : affinity) {
          auto v = node_value(t.topology_key);
          if (!v) has_all_keys = false;
          else if (!affinity_pairs.count({t.topology_key, *v})) pods_exist = false;
        }
        bool ok = has_all_keys && (pods_exist || (affinity_pairs.empty() && self_affine));
        if (!ok) fail.push_back({"node(s) didn't match pod affinity rules", true});
      }
      if (fail.empty()) {
        for (const auto& t : anti) {
          auto v = node_value(t.topology_key);
          if (v && anti_pairs.count({t.topology_key, *v})) {
            fail.push_back({"node(s) didn't match pod anti-affinity rules", false});
            break;
          }
        }
      }
    }
    // ComputeDomain clique
    if (fail.empty() && !cds.empty()) {
      std::string clique = str_at(nlabels, {Scheduler::kCliqueLabel});
      if (clique.empty())
        fail.push_back({std::string("node(s) had no ") + Scheduler::kCliqueLabel + " label", true});
      else if (!fixed_clique.empty() && clique != fixed_clique)
        fail.push_back({"node(s) were not in the " + std::string(Scheduler::kCliqueLabel) + " " + fixed_clique +
                            " of ComputeDomain " + cds.front().substr(ns.size() + 1),
                        true});
    }

    if (!fail.empty()) {
      bool unresolvable = true;
      for (const auto& r : fail) {
        reasons[r.text]++;
        unresolvable = unresolvable && r.unresolvable;
      }
      preempt[unresolvable ? kNotHelpful : kNoVictims]++;
      continue;
    }
    // Score.
    double score = 0;
    int terms_n = 0;
    for (const auto& [r, v] : req) {
      bool extended = r != "cpu" && r != "memory" && r != "ephemeral-storage" && r != "pods";
      if (pack != extended || v <= 0) continue;
      auto it = n.alloc.find(r);
      if (it == n.alloc.end() || it->second <= 0) continue;
      int64_t u = (n.used.count(r) ? n.used.at(r) : 0) + v;
      double frac = double(u) / double(it->second);
      score += pack ? frac : 1.0 - frac;
      ++terms_n;
    }
    if (!pack) {
      for (const char* r : {"cpu", "memory"}) {
        auto it = n.alloc.find(r);
        if (it == n.alloc.end() || it->second <= 0 || req.count(r)) continue;  // counted above when requested
        int64_t u = n.used.count(r) ? n.used.at(r) : 0;
        score += 1.0 - double(u) / double(it->second);
        ++terms_n;
      }
    }
    if (terms_n) score /= terms_n;
    if (!best || score > best_score + 1e-12) {
      best = &n;
      best_score = score;
    }
  }
  if (best) return {best->name, ""};
  return {std::nullopt, all + ": " + histogram(reasons) + "." + preemption(preempt)};
}

Json pod_scheduled_failed(const Json& pod, const std::string& message, TimePoint now) {
  Json p = pod;
  Json& conds = p["status"]["conditions"];
  set_condition(conds, "PodScheduled", "False", "Unschedulable", message, now);
  for (auto& c : conds)
    if (c.value("type", "") == "PodScheduled" && !c.contains("lastProbeTime")) c["lastProbeTime"] = nullptr;
  if (!p["status"].contains("phase")) p["status"]["phase"] = "Pending";
  return p;
}

}  // namespace

// What the scheduler counts for a pod: component-helpers' resource.PodRequests (1.32,
// pod-level resources off). App containers add up. Each init container needs, while it
// runs, its own requests plus those of the restartable init containers (sidecars) started
// before it; the pod needs at least the largest of those moments. Sidecars also keep
// running next to the app containers, so they add to the sum. Then the pod's overhead.
ResourceList pod_requests(const Json& pod) {
  auto add_into = [](ResourceList& to, const ResourceList& from) {
    for (const auto& [name, amount] : from) to[name] += amount;
  };
  auto raise_to = [](ResourceList& to, const ResourceList& from) {
    for (const auto& [name, amount] : from) {
      auto [it, inserted] = to.try_emplace(name, amount);
      if (!inserted && it->second < amount) it->second = amount;
    }
  };
  static const Json kNone = Json::array();
  ResourceList need;
  const Json& app = at_path(pod, {"spec", "containers"});
  for (const Json& c : app.is_array() ? app : kNone) add_into(need, container_requests(c));
  ResourceList started_sidecars, initializing_peak;
  const Json& init = at_path(pod, {"spec", "initContainers"});
  for (const Json& c : init.is_array() ? init : kNone) {
    const ResourceList own = container_requests(c);
    ResourceList while_it_runs;
    if (c.value("restartPolicy", "") == "Always") {
      add_into(need, own);
      add_into(started_sidecars, own);
      while_it_runs = started_sidecars;
    } else {
      while_it_runs = own;
      add_into(while_it_runs, started_sidecars);
    }
    raise_to(initializing_peak, while_it_runs);
  }
  raise_to(need, initializing_peak);
  add_list(need, at_path(pod, {"spec", "overhead"}));
  return need;
}

ResourceList node_allocatable(const Json& node) {
  ResourceList r;
  const Json& a = at_path(node, {"status", "allocatable"});
  add_list(r, a.is_object() ? a : at_path(node, {"status", "capacity"}));
  return r;
}

Placement Scheduler::place(const Snapshot& snap, const Json& pod) const { return State(snap).place(pod); }

Writes Scheduler::schedule(const Snapshot& snap, const Env& env) const {
  std::vector<const Json*> pending;
  for (const auto& p : snap.pods) {
    if (!str_at(p, {"spec", "nodeName"}).empty() || is_terminating(p) || is_terminal(p)) continue;
    std::string sched = str_at(p, {"spec", "schedulerName"}, kDefaultScheduler);
    if (sched != kDefaultScheduler) continue;
    if (at_path(p, {"spec", "schedulingGates"}).is_array() && !at_path(p, {"spec", "schedulingGates"}).empty()) continue;
    pending.push_back(&p);
  }
  std::sort(pending.begin(), pending.end(), [](const Json* a, const Json* b) {
    int64_t pa = int_at(*a, {"spec", "priority"}, 0), pb = int_at(*b, {"spec", "priority"}, 0);
    if (pa != pb) return pa > pb;
    std::string ca = str_at(*a, {"metadata", "creationTimestamp"}), cb = str_at(*b, {"metadata", "creationTimestamp"});
    if (ca != cb) return ca < cb;
    return namespace_of(*a) + "/" + name_of(*a) < namespace_of(*b) + "/" + name_of(*b);
  });
  Writes out;
  if (pending.empty()) return out;
  State state(snap);
  for (const Json* p : pending) {
    Placement pl = state.place(*p);
    if (pl.node) {
      state.bind(*p, *pl.node);
      Write w;
      w.op = Write::Op::kBind;
      w.api_version = "v1";
      w.resource = "pods";
      w.ns = namespace_of(*p);
      w.name = name_of(*p);
      w.object = *p;
      w.node = *pl.node;
      w.why = "scheduled to " + *pl.node;
      w.manager = "kube-scheduler";
      out.push_back(std::move(w));
      continue;
    }
    const Json* cond = find_condition(at_path(*p, {"status", "conditions"}), "PodScheduled");
    if (cond && cond->value("status", "") == "False" && cond->value("reason", "") == "Unschedulable" &&
        cond->value("message", "") == pl.message)
      continue;
    out.push_back(Write::update_status("v1", "pods", pod_scheduled_failed(*p, pl.message, env.now), pl.message));
    out.back().manager = "kube-scheduler";
  }
  return out;
}

}  // namespace kubesim::cluster
