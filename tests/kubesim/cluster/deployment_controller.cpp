#include "kubesim/cluster/deployment_controller.h"

#include "kubesim/cluster/replicaset_controller.h"

#include <algorithm>
#include <map>
#include <set>

namespace kubesim::cluster {

std::string pod_template_hash(const Json& template_spec, int64_t collision_count) {
  uint32_t h = fnv32a(template_spec.dump());
  if (collision_count > 0) {
    std::string bytes(8, '\0');
    for (int i = 0; i < 4; ++i) bytes[i] = static_cast<char>((collision_count >> (8 * i)) & 0xff);
    h = fnv32a(bytes, h);
  }
  return safe_encode(std::to_string(h));
}

int64_t resolve_int_or_percent(const Json& value, int64_t total, bool round_up, int64_t def_percent) {
  if (value.is_number_integer()) return value.get<int64_t>();
  int64_t pct = def_percent;
  if (value.is_string()) {
    std::string s = value.get<std::string>();
    if (!s.empty() && s.back() == '%') {
      try {
        pct = std::stoll(s.substr(0, s.size() - 1));
      } catch (...) {
        pct = def_percent;
      }
    } else {
      try {
        return std::stoll(s);
      } catch (...) {
      }
    }
  }
  return round_up ? (pct * total + 99) / 100 : (pct * total) / 100;
}

Fenceposts resolve_fenceposts(const Json& d) {
  int64_t replicas = int_at(d, {"spec", "replicas"}, 1);
  const Json& ru = at_path(d, {"spec", "strategy", "rollingUpdate"});
  int64_t surge = resolve_int_or_percent(at_path(ru, {"maxSurge"}), replicas, true, 25);
  int64_t unavailable = resolve_int_or_percent(at_path(ru, {"maxUnavailable"}), replicas, false, 25);
  if (surge == 0 && unavailable == 0) unavailable = 1;
  return {surge, unavailable};
}

namespace {

bool is_recreate(const Json& d) { return str_at(d, {"spec", "strategy", "type"}) == "Recreate"; }

// MaxUnavailable(d) as the status and the rollout use it.
int64_t max_unavailable(const Json& d) {
  int64_t replicas = int_at(d, {"spec", "replicas"}, 1);
  if (is_recreate(d) || replicas == 0) return 0;
  return std::min(resolve_fenceposts(d).max_unavailable, replicas);
}

Json template_without_hash(const Json& tmpl) {
  Json t = tmpl;
  if (t.contains("metadata") && t["metadata"].contains("labels")) {
    t["metadata"]["labels"].erase(kPodTemplateHashLabel);
    if (t["metadata"]["labels"].empty()) t["metadata"].erase("labels");
  }
  if (t.contains("metadata") && t["metadata"].empty()) t.erase("metadata");
  return t;
}

int64_t revision_of(const Json& obj) {
  std::string r = str_at(at_path(obj, {"metadata", "annotations"}), {kRevisionAnnotation});
  try {
    return r.empty() ? 0 : std::stoll(r);
  } catch (...) {
    return 0;
  }
}

int64_t spec_replicas(const Json& rs) { return int_at(rs, {"spec", "replicas"}, 1); }
int64_t status_int(const Json& rs, const char* field) { return int_at(rs, {"status", field}, 0); }

// Everything a sync step decides for one Deployment.
class DeploymentSync {
 public:
  DeploymentSync(const Json& d, std::vector<Json> rss, const Snapshot& snap, const Env& env, Writes& out)
      : d_(d), rss_(std::move(rss)), snap_(snap), env_(env), out_(out) {
    replicas_ = int_at(d, {"spec", "replicas"}, 1);
    std::sort(rss_.begin(), rss_.end(), [](const Json& a, const Json& b) {
      std::string ca = str_at(a, {"metadata", "creationTimestamp"}), cb = str_at(b, {"metadata", "creationTimestamp"});
      if (ca != cb) return ca < cb;
      return name_of(a) < name_of(b);
    });
    Json want = template_without_hash(at_path(d, {"spec", "template"}));
    for (size_t i = 0; i < rss_.size(); ++i) {
      if (new_rs_ < 0 && template_without_hash(at_path(rss_[i], {"spec", "template"})) == want)
        new_rs_ = static_cast<int>(i);
    }
    // The RS named after the current template's hash is the new one even if the
    // server normalized its template differently (else a new RS every pass).
    const std::string by_name =
        name_of(d) + "-" + pod_template_hash(at_path(d, {"spec", "template"}), int_at(d, {"status", "collisionCount"}, 0));
    for (size_t i = 0; i < rss_.size() && new_rs_ < 0; ++i)
      if (name_of(rss_[i]) == by_name) new_rs_ = static_cast<int>(i);
  }

  void run(TimePoint* next_wakeup) {
    const bool paused = at_path(d_, {"spec", "paused"}) == true;
    if (!is_terminating(d_) && !paused) {
      if (!sync_revision()) return;  // metadata written; the status follows next pass
      if (is_recreate(d_)) recreate();
      else rolling();
      if (new_rs_ >= 0 && complete_after_step()) cleanup();
    }
    write_status(next_wakeup);
  }

 private:
  Json* new_rs() { return new_rs_ >= 0 ? &rss_[new_rs_] : nullptr; }

  // Revision bookkeeping: the new RS carries max(old)+1, the Deployment mirrors it.
  // Returns false when the Deployment's metadata had to be written.
  bool sync_revision() {
    int64_t max_old = 0;
    for (size_t i = 0; i < rss_.size(); ++i)
      if (static_cast<int>(i) != new_rs_) max_old = std::max(max_old, revision_of(rss_[i]));
    int64_t revision = max_old + 1;
    if (Json* rs = new_rs()) {
      if (revision_of(*rs) < revision) {
        (*rs)["metadata"]["annotations"][kRevisionAnnotation] = std::to_string(revision);
        out_.push_back(Write::update("apps/v1", "replicasets", *rs, "revision " + std::to_string(revision)));
        touched_.insert(name_of(*rs));
      } else {
        revision = revision_of(*rs);
      }
    }
    if (new_rs_ >= 0 && revision_of(d_) != revision) {
      Json d = d_;
      d["metadata"]["annotations"][kRevisionAnnotation] = std::to_string(revision);
      out_.push_back(Write::update("apps/v1", "deployments", std::move(d), "revision " + std::to_string(revision)));
      return false;
    }
    return true;
  }

  void create_new_rs(int64_t replicas) {
    const Json& tmpl = at_path(d_, {"spec", "template"});
    int64_t collisions = int_at(d_, {"status", "collisionCount"}, 0);
    std::string hash = pod_template_hash(tmpl, collisions);
    std::string name = name_of(d_) + "-" + hash;
    for (const auto& rs : snap_.replicasets) {
      if (namespace_of(rs) == namespace_of(d_) && name_of(rs) == name) {
        // A foreign RS holds the name: bump collisionCount, as the real controller does.
        Json d = d_;
        d["status"]["collisionCount"] = collisions + 1;
        out_.push_back(Write::update_status("apps/v1", "deployments", std::move(d), "hash collision"));
        status_written_ = true;
        return;
      }
    }
    int64_t max_old = 0;
    for (const auto& rs : rss_) max_old = std::max(max_old, revision_of(rs));
    Json rs_tmpl = tmpl;
    rs_tmpl["metadata"]["labels"][kPodTemplateHashLabel] = hash;
    Json selector = at_path(d_, {"spec", "selector"});
    if (!selector.is_object()) selector = Json::object();
    selector["matchLabels"][kPodTemplateHashLabel] = hash;
    Json annotations = Json::object();
    const Json& dann = at_path(d_, {"metadata", "annotations"});
    if (dann.is_object())
      for (auto it = dann.begin(); it != dann.end(); ++it)
        if (it.key() != "kubectl.kubernetes.io/last-applied-configuration" && it.key() != kRevisionAnnotation &&
            it.key() != "deployment.kubernetes.io/revision-history")
          annotations[it.key()] = it.value();
    annotations[kRevisionAnnotation] = std::to_string(max_old + 1);
    annotations["deployment.kubernetes.io/desired-replicas"] = std::to_string(replicas_);
    annotations["deployment.kubernetes.io/max-replicas"] =
        std::to_string(replicas_ + (is_recreate(d_) ? 0 : resolve_fenceposts(d_).max_surge));
    Json labels = at_path(rs_tmpl, {"metadata", "labels"});
    Json rs = {{"apiVersion", "apps/v1"},
               {"kind", "ReplicaSet"},
               {"metadata",
                {{"name", name},
                 {"namespace", namespace_of(d_)},
                 {"labels", labels},
                 {"annotations", annotations},
                 {"ownerReferences", Json::array({owner_reference(d_)})}}},
               {"spec", {{"replicas", replicas}, {"selector", selector}, {"template", rs_tmpl}}}};
    int64_t mrs = int_at(d_, {"spec", "minReadySeconds"}, 0);
    if (mrs > 0) rs["spec"]["minReadySeconds"] = mrs;
    out_.push_back(Write::create("apps/v1", "replicasets", rs, "new replica set"));
    created_ = name;
    // Treat it as existing (with no pods yet) for the rest of this step.
    rs["status"] = {{"replicas", 0}};
    rss_.push_back(rs);
    new_rs_ = static_cast<int>(rss_.size()) - 1;
    touched_.insert(name);
  }

  void scale(Json& rs, int64_t to, const std::string& why) {
    if (spec_replicas(rs) == to) return;
    rs["spec"]["replicas"] = to;
    rs["metadata"]["annotations"]["deployment.kubernetes.io/desired-replicas"] = std::to_string(replicas_);
    rs["metadata"]["annotations"]["deployment.kubernetes.io/max-replicas"] =
        std::to_string(replicas_ + (is_recreate(d_) ? 0 : resolve_fenceposts(d_).max_surge));
    if (name_of(rs) == created_) return;  // still in the create write
    // A second write to the same RS in one pass would be stale: only the first goes.
    if (touched_.count(name_of(rs))) {
      for (auto& w : out_)
        if (w.resource == "replicasets" && w.name == name_of(rs) && w.op == Write::Op::kUpdate) w.object = rs;
      return;
    }
    touched_.insert(name_of(rs));
    out_.push_back(Write::update("apps/v1", "replicasets", rs, why + " to " + std::to_string(to)));
  }

  void rolling() {
    Fenceposts fp = resolve_fenceposts(d_);
    if (!new_rs()) {
      int64_t current = 0;
      for (const auto& rs : rss_) current += spec_replicas(rs);
      int64_t max_total = replicas_ + fp.max_surge;
      int64_t start = current >= max_total ? 0 : std::min(max_total - current, replicas_);
      create_new_rs(start);
      if (!new_rs()) return;
    } else {
      // reconcileNewReplicaSet
      Json& nrs = *new_rs();
      int64_t cur = spec_replicas(nrs);
      if (cur > replicas_) {
        scale(nrs, replicas_, "scaled down new replica set");
        return;
      }
      if (cur < replicas_) {
        int64_t current = 0;
        for (const auto& rs : rss_) current += spec_replicas(rs);
        int64_t max_total = replicas_ + fp.max_surge;
        if (current < max_total) {
          int64_t up = std::min(max_total - current, replicas_ - cur);
          scale(nrs, cur + up, "scaled up new replica set");
          return;
        }
      }
    }
    reconcile_old(fp);
  }

  void reconcile_old(const Fenceposts&) {
    Json& nrs = *new_rs();
    int64_t old_count = 0, all_count = 0;
    for (size_t i = 0; i < rss_.size(); ++i) {
      all_count += spec_replicas(rss_[i]);
      if (static_cast<int>(i) != new_rs_) old_count += spec_replicas(rss_[i]);
    }
    if (old_count == 0) return;
    const int64_t min_available = replicas_ - max_unavailable(d_);
    const int64_t new_unavailable = spec_replicas(nrs) - status_int(nrs, "availableReplicas");
    const int64_t max_scaled_down = all_count - min_available - new_unavailable;
    if (max_scaled_down <= 0) return;
    // Unhealthy old replicas first: they do not count toward availability.
    int64_t total = 0;
    for (size_t i = 0; i < rss_.size() && total < max_scaled_down; ++i) {
      if (static_cast<int>(i) == new_rs_) continue;
      Json& rs = rss_[i];
      int64_t spec = spec_replicas(rs), avail = status_int(rs, "availableReplicas");
      if (spec == 0 || spec <= avail) continue;
      int64_t down = std::min(max_scaled_down - total, spec - avail);
      scale(rs, spec - down, "scaled down unhealthy old replica set");
      total += down;
    }
    // Then healthy ones, keeping minAvailable.
    int64_t available = 0;
    for (const auto& rs : rss_) available += status_int(rs, "availableReplicas");
    if (available <= min_available) return;
    int64_t budget = available - min_available, done = 0;
    for (size_t i = 0; i < rss_.size() && done < budget; ++i) {
      if (static_cast<int>(i) == new_rs_) continue;
      Json& rs = rss_[i];
      int64_t spec = spec_replicas(rs);
      if (spec == 0) continue;
      int64_t down = std::min(spec, budget - done);
      scale(rs, spec - down, "scaled down old replica set");
      done += down;
    }
  }

  void recreate() {
    bool scaled = false;
    for (size_t i = 0; i < rss_.size(); ++i) {
      if (static_cast<int>(i) == new_rs_ || spec_replicas(rss_[i]) == 0) continue;
      scale(rss_[i], 0, "scaled down old replica set (Recreate)");
      scaled = true;
    }
    if (scaled) return;
    // Wait until no pod of an old RS is left running.
    std::set<std::string> old_uids;
    for (size_t i = 0; i < rss_.size(); ++i)
      if (static_cast<int>(i) != new_rs_) old_uids.insert(uid_of(rss_[i]));
    for (const auto& p : snap_.pods) {
      const Json* r = controller_ref(p);
      std::string phase = str_at(p, {"status", "phase"});
      if (r && old_uids.count(r->value("uid", "")) && phase != "Succeeded" && phase != "Failed") return;
    }
    if (!new_rs()) {
      create_new_rs(replicas_);
      return;
    }
    scale(*new_rs(), replicas_, "scaled up new replica set (Recreate)");
  }

  // DeploymentComplete with the statuses as they are now.
  bool complete_after_step() const {
    const Json& nrs = rss_[new_rs_];
    int64_t total = 0, available = 0;
    for (const auto& rs : rss_) {
      total += status_int(rs, "replicas");
      available += status_int(rs, "availableReplicas");
    }
    return status_int(nrs, "replicas") == replicas_ && total == replicas_ && available == replicas_ &&
           spec_replicas(nrs) == replicas_;
  }

  void cleanup() {
    int64_t limit = int_at(d_, {"spec", "revisionHistoryLimit"}, 10);
    std::vector<const Json*> dead;
    for (size_t i = 0; i < rss_.size(); ++i) {
      if (static_cast<int>(i) == new_rs_) continue;
      const Json& rs = rss_[i];
      if (spec_replicas(rs) == 0 && status_int(rs, "replicas") == 0 && !is_terminating(rs) &&
          !touched_.count(name_of(rs)))
        dead.push_back(&rs);
    }
    if (static_cast<int64_t>(dead.size()) <= limit) return;
    // Oldest revisions go first.
    std::sort(dead.begin(), dead.end(), [](const Json* a, const Json* b) { return revision_of(*a) < revision_of(*b); });
    for (size_t i = 0; i < dead.size() - static_cast<size_t>(limit); ++i)
      out_.push_back(Write::remove("apps/v1", "replicasets", *dead[i], "revision history limit"));
  }

  void write_status(TimePoint* next_wakeup) {
    if (status_written_) return;
    const Json* nrs = new_rs_ >= 0 ? &rss_[new_rs_] : nullptr;
    int64_t total = 0, updated = 0, ready = 0, available = 0, spec_total = 0;
    for (const auto& rs : rss_) {
      total += status_int(rs, "replicas");
      ready += status_int(rs, "readyReplicas");
      available += status_int(rs, "availableReplicas");
      spec_total += spec_replicas(rs);
    }
    if (nrs) updated = status_int(*nrs, "replicas");
    int64_t unavailable = std::max<int64_t>(0, spec_total - available);

    const Json old_status = d_.contains("status") && d_["status"].is_object() ? d_["status"] : Json::object();
    Json status = old_status;
    auto put = [&](const char* k, int64_t v) {
      if (v == 0) status.erase(k);
      else status[k] = v;
    };
    int64_t gen = int_at(d_, {"metadata", "generation"}, 0);
    if (gen > 0) status["observedGeneration"] = gen;
    put("replicas", total);
    put("updatedReplicas", updated);
    put("readyReplicas", ready);
    put("availableReplicas", available);
    put("unavailableReplicas", unavailable);
    Json& conds = status["conditions"];
    if (!conds.is_array()) conds = Json::array();

    if (available >= replicas_ - max_unavailable(d_))
      set_condition(conds, "Available", "True", "MinimumReplicasAvailable", "Deployment has minimum availability.",
                    env_.now, true);
    else
      set_condition(conds, "Available", "False", "MinimumReplicasUnavailable",
                    "Deployment does not have minimum availability.", env_.now, true);

    const bool paused = at_path(d_, {"spec", "paused"}) == true;
    const Json& deadline = at_path(d_, {"spec", "progressDeadlineSeconds"});
    const int64_t deadline_s = deadline.is_number_integer() ? deadline.get<int64_t>() : 600;
    const std::string rs_name = nrs ? name_of(*nrs) : "";
    const bool complete = nrs && updated == replicas_ && total == replicas_ && available == replicas_ &&
                          spec_replicas(*nrs) == replicas_;
    const Json* prog = find_condition(conds, "Progressing");
    if (paused) {
      set_condition(conds, "Progressing", "Unknown", "DeploymentPaused", "Deployment is paused", env_.now, true);
    } else if (!created_.empty()) {
      set_condition(conds, "Progressing", "True", "NewReplicaSetCreated",
                    "Created new replica set \"" + created_ + "\"", env_.now, true);
    } else if (complete) {
      set_condition(conds, "Progressing", "True", "NewReplicaSetAvailable",
                    "ReplicaSet \"" + rs_name + "\" has successfully progressed.", env_.now, true);
    } else if (nrs) {
      auto old = [&](const char* k) { return int_at(old_status, {k}, 0); };
      bool progressing = updated > old("updatedReplicas") || total < old("replicas") ||
                         ready > old("readyReplicas") || available > old("availableReplicas");
      if (!prog) {
        set_condition(conds, "Progressing", "True", "FoundNewReplicaSet",
                      "Found new replica set \"" + rs_name + "\"", env_.now, true);
      } else if (progressing) {
        set_condition(conds, "Progressing", "True", "ReplicaSetUpdated", "ReplicaSet \"" + rs_name + "\" is progressing.",
                      env_.now, true);
      } else if (prog->value("reason", "") != "ProgressDeadlineExceeded") {
        auto since = parse_time(prog->value("lastUpdateTime", prog->value("lastTransitionTime", "")));
        if (since) {
          TimePoint due = *since + std::chrono::seconds(deadline_s);
          if (env_.now >= due)
            set_condition(conds, "Progressing", "False", "ProgressDeadlineExceeded",
                          "ReplicaSet \"" + rs_name + "\" has timed out progressing.", env_.now, true);
          else if (due < *next_wakeup)
            *next_wakeup = due;
        }
      }
    }
    // The API server's order: Available first, then Progressing.
    std::stable_sort(conds.begin(), conds.end(), [](const Json& a, const Json& b) {
      auto rank = [](const Json& c) { return c.value("type", "") == "Available" ? 0 : c.value("type", "") == "Progressing" ? 1 : 2; };
      return rank(a) < rank(b);
    });
    if (status == old_status) return;
    Json d = d_;
    d["status"] = std::move(status);
    out_.push_back(Write::update_status("apps/v1", "deployments", std::move(d), "status"));
  }

  const Json& d_;
  std::vector<Json> rss_;
  const Snapshot& snap_;
  const Env& env_;
  Writes& out_;
  int64_t replicas_ = 1;
  int new_rs_ = -1;
  bool status_written_ = false;
  std::string created_;
  std::set<std::string> touched_;
};

}  // namespace

Writes DeploymentController::sync(const Snapshot& snap, const Env& env, TimePoint* next_wakeup) const {
  Writes out;
  std::map<std::string, std::vector<Json>> by_owner;
  for (const auto& rs : snap.replicasets)
    if (const Json* r = controller_ref(rs); r && r->value("kind", "") == "Deployment")
      by_owner[r->value("uid", "")].push_back(rs);
  for (const auto& d : snap.deployments) {
    DeploymentSync s(d, by_owner[uid_of(d)], snap, env, out);
    s.run(next_wakeup);
  }
  return out;
}

}  // namespace kubesim::cluster
