// Test double for the simulated cluster's controllers: an in-memory object set
// that applies their Writes roughly as kube-sim's store does (uids,
// resourceVersion preconditions, status-only updates, binding, graceful pod
// deletion, cascading deletion of owned objects) and a manual clock.
#pragma once

#include "kubesim/cluster/controllers.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>

namespace kubesim::cluster::testing {

using namespace std::chrono_literals;

inline Json make_node(const std::string& name, Json alloc, Json labels = Json::object(), Json taints = nullptr) {
  labels["kubernetes.io/hostname"] = name;
  Json n = {{"apiVersion", "v1"},
            {"kind", "Node"},
            {"metadata", {{"name", name}, {"uid", "uid-" + name}, {"labels", labels}}},
            {"spec", Json::object()},
            {"status", {{"allocatable", alloc}, {"capacity", alloc}}}};
  if (!alloc.contains("pods")) n["status"]["allocatable"]["pods"] = "110";
  if (!taints.is_null()) n["spec"]["taints"] = taints;
  complete_node_status(n, 0, TimePoint{});
  return n;
}

inline Json gpu_node(const std::string& name, int gpus = 8, Json labels = Json::object(), Json taints = nullptr) {
  return make_node(name,
                   {{"cpu", "224"}, {"memory", "2000Gi"}, {"ephemeral-storage", "28Ti"}, {"nvidia.com/gpu", std::to_string(gpus)},
                    {"rdma/ib", "8"}},
                   std::move(labels), std::move(taints));
}

inline Json make_pod(const std::string& name, Json requests = Json::object(), const std::string& ns = "default") {
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata", {{"name", name}, {"namespace", ns}, {"uid", "uid-" + ns + "-" + name}, {"labels", Json::object()}}},
          {"spec", {{"containers", Json::array({{{"name", "main"}, {"image", "img:1"}, {"resources", {{"requests", requests}}}}})}}}};
}

class FakeCluster {
 public:
  explicit FakeCluster(KubeletOptions k = {0ms, 0ms, 1000ms, 0ms}, StorageClasses s = {})
      : controllers_(k, std::move(s)) {
    env_.now = Clock::from_time_t(1800000000);
    env_.random_suffix = [this](size_t n) {
      std::string s;
      uint32_t x = ++suffix_counter_ * 2654435761u;
      for (size_t i = 0; i < n; ++i) {
        s += kNameAlphabet[x % 27];
        x /= 27;
        if (x == 0) x = suffix_counter_ * 40503u + 7;
      }
      return s;
    };
  }

  Snapshot snap;
  std::vector<std::string> log;  // one line per applied write

  Env& env() { return env_; }
  TimePoint now() const { return env_.now; }
  void advance(std::chrono::milliseconds d) { env_.now += d; }

  std::vector<Json>& bucket(const std::string& resource) {
    if (resource == "nodes") return snap.nodes;
    if (resource == "pods") return snap.pods;
    if (resource == "namespaces") return snap.namespaces;
    if (resource == "deployments") return snap.deployments;
    if (resource == "replicasets") return snap.replicasets;
    if (resource == "jobs") return snap.jobs;
    if (resource == "persistentvolumeclaims") return snap.pvcs;
    if (resource == "computedomains") return snap.compute_domains;
    if (resource == "resourceclaimtemplates") return snap.claim_templates;
    ADD_FAILURE() << "unknown resource " << resource;
    return snap.pods;
  }

  Json* find(const std::string& resource, const std::string& ns, const std::string& name) {
    for (auto& o : bucket(resource))
      if (namespace_of(o) == ns && name_of(o) == name) return &o;
    return nullptr;
  }

  // Adds an object as a client would create it.
  Json& add(const std::string& resource, Json obj) {
    auto& meta = obj["metadata"];
    if (!meta.contains("uid")) meta["uid"] = "uid-" + std::to_string(++uid_counter_);
    meta["creationTimestamp"] = format_time(env_.now);
    meta["resourceVersion"] = std::to_string(++rv_);
    if (!meta.contains("generation")) meta["generation"] = 1;
    bucket(resource).push_back(std::move(obj));
    return bucket(resource).back();
  }

  // A spec change by a client (generation + 1).
  void edit(const std::string& resource, const std::string& ns, const std::string& name,
            const std::function<void(Json&)>& fn) {
    Json* o = find(resource, ns, name);
    ASSERT_NE(o, nullptr) << resource << " " << name;
    fn(*o);
    (*o)["metadata"]["generation"] = int_at(*o, {"metadata", "generation"}, 1) + 1;
    (*o)["metadata"]["resourceVersion"] = std::to_string(++rv_);
  }

  // One controller pass; returns the number of writes applied.
  size_t step() {
    TimePoint wake = TimePoint::max();
    Writes w = controllers_.sync(snap, env_, &wake);
    next_wakeup = wake;
    size_t applied = 0;
    for (auto& x : w) applied += apply(x) ? 1 : 0;
    return applied;
  }

  // Runs passes until nothing changes, advancing the clock to the next due time
  // when idle, until `until` (relative).
  void settle(std::chrono::milliseconds until = 0ms) {
    TimePoint end = env_.now + until;
    for (int guard = 0; guard < 10000; ++guard) {
      if (step() > 0) continue;
      if (next_wakeup == TimePoint::max() || next_wakeup > end) return;
      env_.now = std::max(env_.now, next_wakeup);
    }
    ADD_FAILURE() << "controllers did not converge";
  }

  TimePoint next_wakeup = TimePoint::max();

  std::vector<const Json*> pods_owned_by(const std::string& owner_uid) {
    std::vector<const Json*> out;
    for (const auto& p : snap.pods)
      if (controlled_by(p, owner_uid)) out.push_back(&p);
    return out;
  }

 private:
  bool apply(const Write& w) {
    auto& b = bucket(w.resource);
    auto it = std::find_if(b.begin(), b.end(), [&](const Json& o) { return namespace_of(o) == w.ns && name_of(o) == w.name; });
    std::string rv = str_at(w.object, {"metadata", "resourceVersion"});
    switch (w.op) {
      case Write::Op::kCreate: {
        if (it != b.end()) return false;
        add(w.resource, w.object);
        log.push_back("create " + w.resource + " " + w.name);
        return true;
      }
      case Write::Op::kUpdate:
      case Write::Op::kUpdateStatus:
      case Write::Op::kBind: {
        if (it == b.end()) return false;
        if (!rv.empty() && rv != str_at(*it, {"metadata", "resourceVersion"})) return false;
        Json next = *it;
        if (w.op == Write::Op::kUpdate) {
          Json status = next.contains("status") ? next["status"] : Json();
          bool spec_changed = next["spec"] != w.object["spec"];
          next = w.object;
          if (!status.is_null()) next["status"] = status;
          else next.erase("status");
          if (spec_changed) next["metadata"]["generation"] = int_at(next, {"metadata", "generation"}, 1) + 1;
        } else if (w.op == Write::Op::kUpdateStatus) {
          next["status"] = w.object["status"];
        } else {
          next["spec"]["nodeName"] = w.node;
          set_condition(next["status"]["conditions"], "PodScheduled", "True", "", "", env_.now);
        }
        next["metadata"]["resourceVersion"] = std::to_string(++rv_);
        if (next == *it) return false;
        *it = next;
        log.push_back((w.op == Write::Op::kBind ? "bind " : "update ") + w.resource + " " + w.name + ": " + w.why);
        return true;
      }
      case Write::Op::kDelete: {
        if (it == b.end()) return false;
        std::string uid = uid_of(*it);
        bool graceful = w.resource == "pods" && !w.force && !str_at(*it, {"spec", "nodeName"}).empty();
        if (graceful) {
          if (is_terminating(*it)) return false;
          (*it)["metadata"]["deletionTimestamp"] = format_time(env_.now);
          (*it)["metadata"]["resourceVersion"] = std::to_string(++rv_);
          log.push_back("terminate pod " + w.name);
          return true;
        }
        b.erase(it);
        log.push_back("delete " + w.resource + " " + w.name);
        cascade(uid);
        return true;
      }
    }
    return false;
  }

  void cascade(const std::string& owner_uid) {
    for (const char* r : {"replicasets", "pods", "resourceclaimtemplates"}) {
      auto& b = bucket(r);
      std::vector<std::string> gone;
      for (auto it = b.begin(); it != b.end();) {
        if (controlled_by(*it, owner_uid)) {
          gone.push_back(uid_of(*it));
          it = b.erase(it);
        } else {
          ++it;
        }
      }
      for (const auto& u : gone) cascade(u);
    }
  }

  ClusterControllers controllers_;
  Env env_;
  uint32_t suffix_counter_ = 0;
  int uid_counter_ = 0;
  int64_t rv_ = 100;
};

}  // namespace kubesim::cluster::testing
