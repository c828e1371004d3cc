#include "kubesim/cluster/replicaset_controller.h"

#include <algorithm>
#include <map>

namespace kubesim::cluster {

Json pod_from_template(const Json& owner, const Json& template_spec, const std::string& base_name,
                       const std::string& suffix) {
  Json pod = {{"apiVersion", "v1"}, {"kind", "Pod"}};
  Json meta = Json::object();
  const Json& tmeta = at_path(template_spec, {"metadata"});
  if (tmeta.is_object()) {
    for (const char* k : {"labels", "annotations", "finalizers"})
      if (tmeta.contains(k)) meta[k] = tmeta[k];
  }
  meta["name"] = base_name + "-" + suffix;
  meta["generateName"] = base_name + "-";
  meta["namespace"] = namespace_of(owner);
  meta["ownerReferences"] = Json::array({owner_reference(owner)});
  pod["metadata"] = std::move(meta);
  const Json& spec = at_path(template_spec, {"spec"});
  pod["spec"] = spec.is_object() ? spec : Json::object();
  return pod;
}

bool pod_active(const Json& pod) {
  std::string phase = str_at(pod, {"status", "phase"});
  return !is_terminating(pod) && phase != "Succeeded" && phase != "Failed";
}

bool pod_available(const Json& pod, int64_t min_ready_seconds, TimePoint now, TimePoint* available_at) {
  const Json* c = find_condition(at_path(pod, {"status", "conditions"}), "Ready");
  if (!c || c->value("status", "") != "True") return false;
  if (min_ready_seconds <= 0) return true;
  auto since = parse_time(c->value("lastTransitionTime", ""));
  if (!since) return false;
  TimePoint at = *since + std::chrono::seconds(min_ready_seconds);
  if (available_at) *available_at = at;
  return now >= at;
}

namespace {

// Lower rank = deleted first (controller.ActivePodsWithRanks, simplified).
bool delete_before(const Json* a, const Json* b) {
  auto key = [](const Json& p) {
    bool assigned = !str_at(p, {"spec", "nodeName"}).empty();
    std::string phase = str_at(p, {"status", "phase"});
    int phase_rank = phase == "Pending" ? 0 : phase == "Unknown" ? 1 : 2;
    bool ready = condition_true(p, "Ready");
    int64_t cost = 0;
    std::string c = str_at(at_path(p, {"metadata", "annotations"}), {"controller.kubernetes.io/pod-deletion-cost"});
    try {
      if (!c.empty()) cost = std::stoll(c);
    } catch (...) {
    }
    return std::make_tuple(assigned, phase_rank, ready, cost);
  };
  auto ka = key(*a), kb = key(*b);
  if (ka != kb) return ka < kb;
  // Ready for a shorter time first, then newer first.
  std::string ra, rb;
  if (const Json* c = find_condition(at_path(*a, {"status", "conditions"}), "Ready")) ra = c->value("lastTransitionTime", "");
  if (const Json* c = find_condition(at_path(*b, {"status", "conditions"}), "Ready")) rb = c->value("lastTransitionTime", "");
  if (ra != rb) return ra > rb;
  std::string ca = str_at(*a, {"metadata", "creationTimestamp"}), cb = str_at(*b, {"metadata", "creationTimestamp"});
  if (ca != cb) return ca > cb;
  return name_of(*a) > name_of(*b);
}

void set_or_erase(Json& status, const char* key, int64_t v) {
  // The API omits zero counts (omitempty), except replicas which is always written.
  if (v == 0 && std::string(key) != "replicas") status.erase(key);
  else status[key] = v;
}

}  // namespace

Writes ReplicaSetController::sync(const Snapshot& snap, const Env& env, TimePoint* next_wakeup) const {
  Writes out;
  std::map<std::string, std::vector<const Json*>> pods_by_owner;
  for (const auto& p : snap.pods)
    if (const Json* r = controller_ref(p); r && r->value("kind", "") == "ReplicaSet")
      pods_by_owner[r->value("uid", "")].push_back(&p);

  for (const auto& rs : snap.replicasets) {
    const auto& owned = pods_by_owner[uid_of(rs)];
    std::vector<const Json*> active;
    for (const Json* p : owned)
      if (pod_active(*p)) active.push_back(p);
    const int64_t want = int_at(rs, {"spec", "replicas"}, 1);
    const int64_t min_ready = int_at(rs, {"spec", "minReadySeconds"}, 0);
    const Json& tmpl = at_path(rs, {"spec", "template"});

    if (!is_terminating(rs)) {
      int64_t diff = static_cast<int64_t>(active.size()) - want;
      for (int64_t i = diff; i < 0; ++i) {
        Json pod = pod_from_template(rs, tmpl, name_of(rs), env.random_suffix(5));
        out.push_back(Write::create("v1", "pods", std::move(pod), "replicaset " + name_of(rs) + " scaling up"));
      }
      if (diff > 0) {
        std::vector<const Json*> victims = active;
        std::sort(victims.begin(), victims.end(), delete_before);
        for (int64_t i = 0; i < diff; ++i)
          out.push_back(Write::remove("v1", "pods", *victims[i], "replicaset " + name_of(rs) + " scaling down"));
      }
    }

    int64_t ready = 0, available = 0, labeled = 0;
    for (const Json* p : active) {
      if (condition_true(*p, "Ready")) ++ready;
      TimePoint at;
      if (pod_available(*p, min_ready, env.now, &at)) ++available;
      else if (condition_true(*p, "Ready") && at < *next_wakeup && at > env.now) *next_wakeup = at;
      if (selector_matches(Json{{"matchLabels", at_path(tmpl, {"metadata", "labels"})}},
                           at_path(*p, {"metadata", "labels"})))
        ++labeled;
    }
    Json status = rs.contains("status") && rs["status"].is_object() ? rs["status"] : Json::object();
    set_or_erase(status, "replicas", static_cast<int64_t>(active.size()));
    set_or_erase(status, "fullyLabeledReplicas", labeled);
    set_or_erase(status, "readyReplicas", ready);
    set_or_erase(status, "availableReplicas", available);
    int64_t gen = int_at(rs, {"metadata", "generation"}, 0);
    if (gen > 0) status["observedGeneration"] = gen;
    if (rs.contains("status") && rs["status"] == status) continue;
    Json updated = rs;
    updated["status"] = std::move(status);
    out.push_back(Write::update_status("apps/v1", "replicasets", std::move(updated), "status"));
  }
  return out;
}

}  // namespace kubesim::cluster
