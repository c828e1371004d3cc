// An in-memory API server and informer caches for the reconciler's tests: one map of
// objects, every write counted. The caches are always up to date with the server unless
// a test sets an object back.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dgd/api/parse.h"
#include "dgd/recipes/catalog.h"
#include "dgd/recipes/expand.h"
#include "dgd/reconcile/cached_view.h"
#include "dgd/reconcile/child_plan.h"
#include "dgd/reconcile/cluster.h"
#include "dgd/reconcile/dgd_reconciler.h"
#include "dgd/reconcile/model_cache.h"

namespace dgd::reconcile::fake {

using nlohmann::json;

inline constexpr const char* kUid = "dgd-uid-1";

// An API server plus caches in one map; every write is counted.
class FakeCluster final : public Cluster {
 public:
  std::map<std::string, json> objects;  // object_key -> object (DGD included)
  std::set<std::string> not_served;     // resource.to_string() of kinds the server lacks
  int applies = 0, removes = 0, status_writes = 0;
  int owned_reads = 0;  // owned() calls: the full pass reads every child kind
  std::vector<json> events;
  std::vector<std::string> applied_keys, removed_keys;
  std::optional<kube::Error> apply_error;  // returned by every apply when set
  int next_uid = 100, next_rv = 1;

  static std::string dgd_key(const std::string& ns, const std::string& name) {
    return "nvidia.com/DynamoGraphDeployment/" + ns + "/" + name;
  }
  json& dgd(const std::string& ns = "ns", const std::string& name = "g") { return objects.at(dgd_key(ns, name)); }
  int writes() const {
    return applies + removes + status_writes + static_cast<int>(scaled.size()) + static_cast<int>(events.size());
  }
  void reset_counts() {
    applies = removes = status_writes = 0;
    events.clear();
    applied_keys.clear();
    removed_keys.clear();
    scaled.clear();
  }

  std::optional<json> get_dgd(const std::string& ns, const std::string& name) override {
    auto it = objects.find(dgd_key(ns, name));
    if (it == objects.end()) return std::nullopt;
    return it->second;
  }
  std::optional<json> server_dgd_override;  // what a quorum read returns when set
  bool server_dgd_gone = false;
  kube::Result<std::optional<json>> read_dgd(const std::string& ns, const std::string& name) override {
    if (server_dgd_gone) return std::optional<json>();
    if (server_dgd_override) return server_dgd_override;
    return get_dgd(ns, name);
  }
  kube::Result<std::optional<json>> read(const kube::ResourceRef& resource, const std::string& ns,
                                         const std::string& name) override {
    auto it = objects.find(resource.group + "/" + resource.kind + "/" + ns + "/" + name);
    if (it == objects.end()) return std::optional<json>();
    return std::optional<json>(it->second);
  }
  std::vector<std::string> listed;  // resource.to_string() of every list() (a request to the server)
  kube::Result<std::vector<json>> list(const kube::ResourceRef& resource, const std::string& ns,
                                       const std::string& label_selector) override {
    listed.push_back(resource.to_string());
    // Equality selectors "k=v[,k=v]" only.
    std::vector<json> out;
    for (const auto& [k, o] : objects) {
      if (o.value("kind", "") != resource.kind || o["metadata"].value("namespace", "") != ns) continue;
      bool match = true;
      size_t start = 0;
      while (start < label_selector.size()) {
        size_t end = label_selector.find(',', start);
        if (end == std::string::npos) end = label_selector.size();
        const std::string term = label_selector.substr(start, end - start);
        const size_t eq = term.find('=');
        const json labels = o["metadata"].value("labels", json::object());
        match = match && labels.value(term.substr(0, eq), "") == term.substr(eq + 1);
        start = end + 1;
      }
      if (match) out.push_back(o);
    }
    return out;
  }
  // The cached Jobs labelled with the cache's claim, as the live Job informer holds them.
  std::vector<json> download_records(const std::string& ns, const std::string& claim) override {
    std::vector<json> out;
    for (const auto& [k, o] : objects) {
      if (o.value("kind", "") == "Job" && o["metadata"].value("namespace", "") == ns &&
          o["metadata"].value("labels", json::object()).value("nvidia.com/model-cache", "") == claim) {
        out.push_back(o);
      }
    }
    return out;
  }
  bool serves(const ChildKind& kind) override { return not_served.count(kind.resource.to_string()) == 0; }
  std::vector<json> owned(const ChildKind& kind, const std::string& ns, const std::string& uid) override {
    ++owned_reads;
    std::vector<json> out;
    for (const auto& [k, o] : objects) {
      if (o.value("kind", "") != kind.resource.kind || o["metadata"].value("namespace", "") != ns) continue;
      for (const auto& r : o["metadata"].value("ownerReferences", json::array())) {
        if (r.value("uid", "") == uid) out.push_back(o);
      }
    }
    return out;
  }
  // Identities and versions only: what every pass reads to compare with its memo (not
  // counted in owned_reads, which counts the full reads of a full pass).
  std::vector<CachedVersion> owned_versions(const ChildKind& kind, const std::string& ns,
                                            const std::string& uid) override {
    const int before = owned_reads;
    std::vector<CachedVersion> out = ClusterCache::owned_versions(kind, ns, uid);
    owned_reads = before;
    return out;
  }
  // What the live cluster gives: the cached object through the projection of a status.
  std::optional<json> cached_status(const ChildKind& kind, const std::string& ns, const std::string& name) override {
    auto o = cached(kind, ns, name);
    if (!o) return o;
    return read_projected(o->dump(), child_status_fields());
  }
  std::optional<json> get_dgd_head(const std::string& ns, const std::string& name) override {
    auto o = get_dgd(ns, name);
    if (!o) return o;
    return read_projected(o->dump(), dgd_head_fields());
  }
  std::optional<json> cached(const ChildKind& kind, const std::string& ns, const std::string& name) override {
    const std::string group = kind.resource.group;
    auto it = objects.find(group + "/" + kind.resource.kind + "/" + ns + "/" + name);
    if (it == objects.end()) return std::nullopt;
    return it->second;
  }
  std::function<void()> apply_hook;  // runs at the start of every apply
  kube::Result<json> apply(const ChildKind&, const json& object) override {
    if (apply_hook) apply_hook();
    ++applies;
    if (apply_error) return *apply_error;
    const std::string key = object_key(object);
    applied_keys.push_back(key);
    json& live = objects[key];
    const int64_t generation = live.is_null() ? 1 : live["metadata"].value("generation", int64_t{1}) + 1;
    const std::string uid = live.is_null() ? "child-" + std::to_string(next_uid++) : live["metadata"].value("uid", "");
    json status = live.is_null() ? json() : live.value("status", json());
    live = object;
    live["metadata"]["uid"] = uid;
    live["metadata"]["generation"] = generation;
    live["metadata"]["resourceVersion"] = std::to_string(next_rv++);
    if (!status.is_null()) live["status"] = status;
    return live;
  }
  std::vector<std::pair<std::string, int32_t>> scaled;  // (object key, replicas) of every scale
  kube::Result<json> scale(const ChildKind&, const json& deployment, int32_t replicas) override {
    const std::string key = object_key(deployment);
    scaled.emplace_back(key, replicas);
    json& live = objects[key];
    live["spec"]["replicas"] = replicas;
    live["metadata"]["generation"] = live["metadata"].value("generation", int64_t{1}) + 1;
    live["metadata"]["resourceVersion"] = std::to_string(next_rv++);
    return live;
  }
  kube::Status remove(const ChildKind&, const json& object) override {
    ++removes;
    removed_keys.push_back(object_key(object));
    objects.erase(object_key(object));
    return {};
  }
  bool status_conflict = false;  // every status write meets a newer DGD
  kube::Result<json> update_status(const json& d) override {
    ++status_writes;
    if (status_conflict) {
      kube::Error e;
      e.kind = kube::ErrorKind::kConflict;
      return e;
    }
    json& live = dgd(d["metadata"]["namespace"], d["metadata"]["name"]);
    if (live["metadata"]["resourceVersion"] != d["metadata"]["resourceVersion"]) {
      kube::Error e;
      e.kind = kube::ErrorKind::kConflict;
      return e;
    }
    live["status"] = d["status"];
    live["metadata"]["resourceVersion"] = std::to_string(next_rv++);
    return live;
  }
  kube::Status create_event(const json& event) override {
    events.push_back(event);
    return {};
  }

  // The Job controller finishing every Job.
  void complete_jobs() {
    for (auto& [k, o] : objects) {
      if (o.value("kind", "") != "Job") continue;
      o["status"] = {{"succeeded", 1},
                     {"conditions", json::array({{{"type", "Complete"}, {"status", "True"}}})}};
      o["metadata"]["resourceVersion"] = std::to_string(next_rv++);
    }
  }
  // Someone edits a child as the API server stores it: a spec change moves its generation.
  void edit_child(const std::string& key, const std::function<void(json&)>& fn, bool spec = true) {
    json& o = objects.at(key);
    fn(o);
    if (spec) o["metadata"]["generation"] = o["metadata"].value("generation", int64_t{1}) + 1;
    o["metadata"]["resourceVersion"] = std::to_string(next_rv++);
  }
  // The Deployment controller finishing every rollout.
  void roll_out_all() {
    for (auto& [k, o] : objects) {
      if (o.value("kind", "") != "Deployment") continue;
      const int64_t r = o["spec"].value("replicas", int64_t{1});
      o["status"] = {{"observedGeneration", o["metadata"]["generation"]},
                     {"replicas", r},
                     {"updatedReplicas", r},
                     {"readyReplicas", r},
                     {"availableReplicas", r}};
      o["metadata"]["resourceVersion"] = std::to_string(next_rv++);
    }
  }
  // The object key of the Deployment of component `component` of DGD ns/`dgd` ("" when
  // none); of several worker
  // generations, the one created last.
  std::string deployment_key(const std::string& component, const std::string& dgd = "g") const {
    std::string key;
    long newest = -1;
    for (const auto& [k, o] : objects) {
      const json labels = o.value("kind", "") == "Deployment" ? o["metadata"].value("labels", json::object()) : json();
      if (!labels.is_object() || labels.value("nvidia.com/dynamo-component", "") != component ||
          labels.value("nvidia.com/dynamo-graph-deployment-name", "") != dgd) {
        continue;
      }
      const std::string uid = o["metadata"].value("uid", "");
      const long n = uid.rfind("child-", 0) == 0 ? std::stol(uid.substr(6)) : 0;
      if (n > newest) {
        newest = n;
        key = k;
      }
    }
    return key;
  }
  std::vector<std::string> keys_of(const std::string& kind) const {
    std::vector<std::string> out;
    for (const auto& [k, o] : objects) {
      if (o.value("kind", "") == kind) out.push_back(o["metadata"].value("name", ""));
    }
    return out;
  }
  std::vector<std::string> event_reasons() const {
    std::vector<std::string> out;
    for (const auto& e : events) out.push_back(e.value("reason", ""));
    return out;
  }
};

inline json user_dgd() {
  return json::parse(R"({
    "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
    "metadata": {"name": "g", "namespace": "ns", "uid": "dgd-uid-1", "generation": 1, "resourceVersion": "1"},
    "spec": {"recipe": "deepseek-v4.1-flash/vllm/disagg-h200-agentic"}
  })");
}

// The download Job the recipe's DGD asks for.
inline std::string download_job_name() {
  const auto expanded = recipes::expand(recipes::Catalog::builtin(), api::from_json(user_dgd()).dgd);
  return model_cache_spec(expanded.graph)->job_name;
}
inline std::string job_key() { return "batch/Job/ns/" + download_job_name(); }

// The recipe's cache: the user made the PVC; when `filled`, an earlier DGD filled it (a
// completed download Job owned by the PVC), so a graph on it starts at once.
inline void add_model_cache(FakeCluster& c, bool filled) {
  c.objects["/PersistentVolumeClaim/ns/shared-model-cache"] = json::parse(R"({"apiVersion": "v1",
      "kind": "PersistentVolumeClaim", "metadata": {"name": "shared-model-cache", "namespace": "ns",
      "uid": "pvc-uid"}, "spec": {"accessModes": ["ReadWriteMany"]}})");
  if (!filled) return;
  json job = {{"apiVersion", "batch/v1"}, {"kind", "Job"},
              {"metadata", {{"name", download_job_name()}, {"namespace", "ns"}, {"uid", "job-uid"},
                            {"labels", {{"app.kubernetes.io/managed-by", "dgd-operator"}}}}},
              {"status", {{"succeeded", 1}, {"conditions", json::array({{{"type", "Complete"}, {"status", "True"}}})}}}};
  own_by_claim(job, c.objects["/PersistentVolumeClaim/ns/shared-model-cache"]);
  c.objects[job_key()] = job;
}

inline const json* condition(const json& dgd, const std::string& type) {
  for (const auto& c : dgd["status"]["conditions"]) {
    if (c["type"] == type) return &c;
  }
  return nullptr;
}

// Reconciler options that write every status change at once (no progress pacing), on
// `clock`: tests read the status after each pass.
inline DgdReconcilerOptions write_every_change(const kube::Clock& clock) {
  DgdReconcilerOptions o;
  o.status_progress_interval = std::chrono::milliseconds(0);
  o.clock = &clock;
  return o;
}

}  // namespace dgd::reconcile::fake
