// Decision logic of the DGD reconcile against an in-memory cluster: what is
// written, deleted, reported and announced for each situation a user meets.
#include "dgd/reconcile/dgd_reconciler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <map>
#include <thread>

#include "dgd/object/desired_state.h"
#include "dgd/object/field_schema.h"
#include "dgd/recipes/catalog.h"
#include "dgd/api/parse.h"
#include "dgd/recipes/expand.h"
#include "dgd/reconcile/child_plan.h"
#include "dgd/reconcile/model_cache.h"

namespace dgd::reconcile {
namespace {

using nlohmann::json;

constexpr const char* kUid = "dgd-uid-1";

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
  int writes() const { return applies + removes + status_writes + static_cast<int>(events.size()); }
  void reset_counts() {
    applies = removes = status_writes = 0;
    events.clear();
    applied_keys.clear();
    removed_keys.clear();
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
  kube::Result<std::vector<json>> list(const kube::ResourceRef& resource, const std::string& ns,
                                       const std::string& label_selector) override {
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
    for (const auto& r : live["metadata"].value("ownerReferences", json::array())) {
      if (r.value("kind", "") == "DynamoGraphDeployment" && r.value("controller", false)) {
        unseen.push_back({live["metadata"].value("namespace", "") + "/" + r.value("name", ""), key,
                          live["metadata"]["resourceVersion"].get<std::string>()});
      }
    }
    if (events_before_responses != nullptr) deliver_events(*events_before_responses);
    return live;
  }
  // Watch events of applied children not yet delivered: {DGD key, child key, resourceVersion}.
  struct Unseen {
    std::string dgd, child, resource_version;
  };
  std::vector<Unseen> unseen;
  // When set, the watch events of an apply reach this reconciler before the apply returns
  // (they travel on another connection and may overtake the response).
  DgdReconciler* events_before_responses = nullptr;
  // What the child informers do between two passes: hand the reconciler the event of every
  // child written since (the echo of its own applies).
  void deliver_events(DgdReconciler& r) {
    for (const auto& u : unseen) r.note_child_change(u.dgd, u.child, u.resource_version);
    unseen.clear();
  }
  kube::Status remove(const ChildKind&, const json& object) override {
    ++removes;
    removed_keys.push_back(object_key(object));
    objects.erase(object_key(object));
    return {};
  }
  kube::Result<json> update_status(const json& d) override {
    ++status_writes;
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

// A reconcile of ns/name after the informers delivered the events of what was written.
runtime::ReconcileResult pass_of(FakeCluster& c, DgdReconciler& r, const std::string& name) {
  c.deliver_events(r);
  return r.reconcile({"ns", name});
}

json user_dgd() {
  return json::parse(R"({
    "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
    "metadata": {"name": "g", "namespace": "ns", "uid": "dgd-uid-1", "generation": 1, "resourceVersion": "1"},
    "spec": {"recipe": "deepseek-v4.1-flash/vllm/disagg-h200-agentic"}
  })");
}

// The download Job the recipe's DGD asks for.
std::string download_job_name() {
  const auto expanded = recipes::expand(recipes::Catalog::builtin(), api::fromJson(user_dgd()).dgd);
  return model_cache_spec(expanded.graph)->job_name;
}
std::string job_key() { return "batch/Job/ns/" + download_job_name(); }

// The recipe's cache: the user made the PVC; when `filled`, an earlier DGD filled it (a
// completed download Job owned by the PVC), so a graph on it starts at once.
void add_model_cache(FakeCluster& c, bool filled) {
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

const json* condition(const json& dgd, const std::string& type) {
  for (const auto& c : dgd["status"]["conditions"]) {
    if (c["type"] == type) return &c;
  }
  return nullptr;
}

// Every status change written at once: the tests below read the status after each run.
DgdReconcilerOptions write_every_change() {
  DgdReconcilerOptions o;
  o.status_progress_interval = std::chrono::milliseconds(0);
  return o;
}

class DgdReconcilerTest : public ::testing::Test {
 protected:
  DgdReconcilerTest() : reconciler(cluster, recipes::Catalog::builtin(), write_every_change()) {
    cluster.objects[FakeCluster::dgd_key("ns", "g")] = user_dgd();
    add_model_cache(cluster, /*filled=*/true);
  }
  runtime::ReconcileResult run() { return pass(reconciler, "g"); }
  runtime::ReconcileResult pass(DgdReconciler& r, const std::string& name) { return pass_of(cluster, r, name); }
  // Edits the spec as `kubectl edit` would: generation moves.
  void edit(const std::function<void(json&)>& fn) {
    json& d = cluster.dgd();
    fn(d["spec"]);
    d["metadata"]["generation"] = d["metadata"]["generation"].get<int64_t>() + 1;
    d["metadata"]["resourceVersion"] = std::to_string(cluster.next_rv++);
  }
  // Brings the graph to Ready and clears the counters.
  void settle() {
    ASSERT_TRUE(run().ok());
    cluster.roll_out_all();
    ASSERT_TRUE(run().ok());
    const json* ready = condition(cluster.dgd(), "Ready");
    ASSERT_NE(ready, nullptr);
    ASSERT_EQ((*ready)["status"], "True") << cluster.dgd()["status"].dump(2);
    cluster.reset_counts();
  }

  FakeCluster cluster;
  DgdReconciler reconciler;
};

TEST_F(DgdReconcilerTest, FirstReconcileCreatesEveryChildOwnedByTheDgd) {
  ASSERT_TRUE(run().ok());
  EXPECT_GT(cluster.applies, 0);
  EXPECT_EQ(cluster.removes, 0);
  auto deployments = cluster.keys_of("Deployment");
  EXPECT_EQ(deployments, (std::vector<std::string>{"g-decodeworker", "g-frontend", "g-prefillworker"}));
  EXPECT_EQ(cluster.keys_of("Service").size(), 3u);
  for (const auto& [k, o] : cluster.objects) {
    if (o.value("kind", "") == "DynamoGraphDeployment") continue;
    const bool kept_cache = o.value("kind", "") == "PersistentVolumeClaim" || o.value("kind", "") == "Job";
    if (kept_cache) continue;
    EXPECT_TRUE(is_controlled_by(o, kUid)) << k;
  }
  // Not ready yet: nothing has rolled out.
  const json* ready = condition(cluster.dgd(), "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ((*ready)["status"], "False");
  EXPECT_EQ(cluster.dgd()["status"]["observedGeneration"], 1);
  // One ChildCreated event for the pass, about the DGD, from dgd-operator, naming every
  // child it created.
  std::vector<std::string> created;
  for (const auto& e : cluster.events) {
    if (e["reason"] == kReasonChildCreated) created.push_back(e["message"]);
    EXPECT_EQ(e["involvedObject"]["uid"], kUid);
    EXPECT_EQ(e["reportingComponent"], "dgd-operator");
    EXPECT_EQ(e["metadata"]["namespace"], "ns");
  }
  ASSERT_EQ(created.size(), 1u);
  EXPECT_EQ(created[0].rfind("Created " + std::to_string(cluster.applies) + " children: ", 0), 0u) << created[0];
  for (const auto& [k, o] : cluster.objects) {
    const std::string kind = o.value("kind", "");
    if (kind == "DynamoGraphDeployment" || kind == "PersistentVolumeClaim" || kind == "Job") continue;
    EXPECT_NE(created[0].find(kind + " " + o["metadata"].value("name", "")), std::string::npos) << k;
  }
}

TEST(SummarizeChildren, OneItemIsNamedManyAreCountedAndAListPastOneKilobyteIsCut) {
  EXPECT_EQ(summarize_children("Created", {"Deployment g-a"}), "Created Deployment g-a");
  EXPECT_EQ(summarize_children("Deleted", {"Deployment g-a", "Service g-a"}),
            "Deleted 2 children: Deployment g-a, Service g-a");
  std::vector<std::string> many(100, std::string(40, 'x'));
  const std::string msg = summarize_children("Created", many);
  EXPECT_LT(msg.size(), 1200u);
  EXPECT_NE(msg.find("Created 100 children: "), std::string::npos);
  EXPECT_NE(msg.find(" more"), std::string::npos) << msg;
}

TEST_F(DgdReconcilerTest, AtRestNothingIsWritten) {
  settle();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.writes(), 0) << "applies " << cluster.applies << " status " << cluster.status_writes;
}

TEST_F(DgdReconcilerTest, ReadyTurnsTrueOnlyAfterRolloutAndAnnouncesItOnce) {
  ASSERT_TRUE(run().ok());
  ASSERT_TRUE(run().ok());  // pods not ready yet
  EXPECT_EQ((*condition(cluster.dgd(), "Ready"))["status"], "False");
  cluster.roll_out_all();
  ASSERT_TRUE(run().ok());
  EXPECT_EQ((*condition(cluster.dgd(), "Ready"))["status"], "True");
  auto reasons = cluster.event_reasons();
  EXPECT_EQ(std::count(reasons.begin(), reasons.end(), kReasonRolloutComplete), 1);
  ASSERT_TRUE(run().ok());
  reasons = cluster.event_reasons();
  EXPECT_EQ(std::count(reasons.begin(), reasons.end(), kReasonRolloutComplete), 1);
}

TEST_F(DgdReconcilerTest, ReplicasEditTouchesOnlyThatDeployment) {
  settle();
  edit([](json& spec) { spec["components"] = json::array({{{"name", "DecodeWorker"}, {"replicas", 3}}}); });
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.applied_keys, (std::vector<std::string>{"apps/Deployment/ns/g-decodeworker"}));
  EXPECT_EQ(cluster.objects["apps/Deployment/ns/g-decodeworker"]["spec"]["replicas"], 3);
  // Honest: the new replicas are not there yet.
  const json* ready = condition(cluster.dgd(), "Ready");
  EXPECT_EQ((*ready)["status"], "False");
  EXPECT_NE((*ready)["message"].get<std::string>().find("DecodeWorker"), std::string::npos) << (*ready)["message"];
  EXPECT_EQ(cluster.dgd()["status"]["observedGeneration"], 2);
}

TEST_F(DgdReconcilerTest, EngineFlagEditRollsOnlyThatComponent) {
  settle();
  edit([](json& spec) {
    spec["components"] = json::array({{{"name", "PrefillWorker"}, {"engine", {{"maxNumSeqs", 7}}}}});
  });
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.applied_keys, (std::vector<std::string>{"apps/Deployment/ns/g-prefillworker"}));
  const auto args = cluster.objects["apps/Deployment/ns/g-prefillworker"]["spec"]["template"].dump();
  EXPECT_NE(args.find("--max-num-seqs"), std::string::npos);
}

TEST_F(DgdReconcilerTest, RemovedComponentIsPrunedWithItsServiceOnly) {
  settle();
  // A look-alike that another owner controls must survive the prune.
  json foreign = cluster.objects["apps/Deployment/ns/g-frontend"];
  foreign["metadata"]["name"] = "g-other";
  foreign["metadata"]["ownerReferences"] = json::array({{{"uid", "someone-else"}, {"controller", true}}});
  cluster.objects["apps/Deployment/ns/g-other"] = foreign;
  // The user adds a second frontend, then removes it again.
  edit([](json& spec) {
    spec["components"] = json::parse(R"([{"name": "Extra", "type": "frontend",
        "podTemplate": {"spec": {"containers": [{"name": "main", "image": "frontend:1"}]}}}])");
  });
  ASSERT_TRUE(run().ok());
  cluster.roll_out_all();
  ASSERT_TRUE(run().ok());
  ASSERT_EQ(cluster.objects.count("apps/Deployment/ns/g-extra"), 1u);
  cluster.reset_counts();
  edit([](json& spec) { spec.erase("components"); });
  ASSERT_TRUE(run().ok());
  std::sort(cluster.removed_keys.begin(), cluster.removed_keys.end());
  EXPECT_EQ(cluster.removed_keys, (std::vector<std::string>{"/Service/ns/g-extra", "apps/Deployment/ns/g-extra"}));
  EXPECT_EQ(cluster.applies, 0);
  EXPECT_EQ(cluster.objects.count("apps/Deployment/ns/g-other"), 1u);
  auto reasons = cluster.event_reasons();
  ASSERT_EQ(std::count(reasons.begin(), reasons.end(), kReasonChildDeleted), 1);
  for (const auto& e : cluster.events) {
    if (e["reason"] == kReasonChildDeleted) {
      EXPECT_EQ(e["message"], "Deleted 2 children: Service g-extra, Deployment g-extra (no longer in the spec)");
    }
  }
}

TEST_F(DgdReconcilerTest, InvalidEditChangesNothingAndSaysWhereOnce) {
  settle();
  edit([](json& spec) { spec["components"] = json::array({{{"name", "DecodeWorker"}, {"replicas", -2}}}); });
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.applies, 0);
  EXPECT_EQ(cluster.removes, 0);
  const json* valid = condition(cluster.dgd(), "SpecValid");
  ASSERT_NE(valid, nullptr);
  EXPECT_EQ((*valid)["status"], "False");
  EXPECT_NE((*valid)["message"].get<std::string>().find("spec.components[0].replicas"), std::string::npos)
      << (*valid)["message"];
  EXPECT_EQ(cluster.dgd()["status"]["observedGeneration"], 2);
  ASSERT_EQ(cluster.events.size(), 1u);
  EXPECT_EQ(cluster.events[0]["type"], "Warning");
  EXPECT_EQ(cluster.events[0]["reason"], kReasonInvalidSpec);
  // Still serving: the Deployments remain and are reported.
  EXPECT_EQ(cluster.keys_of("Deployment").size(), 3u);
  EXPECT_TRUE(cluster.dgd()["status"]["components"].contains("DecodeWorker"));
  // Again: no second event, no second status write.
  cluster.reset_counts();
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.writes(), 0);
}

TEST_F(DgdReconcilerTest, UnparseableSpecIsReportedNotFatal) {
  edit([](json& spec) { spec["components"] = "not-a-list"; });
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.applies, 0);
  const json* valid = condition(cluster.dgd(), "SpecValid");
  ASSERT_NE(valid, nullptr);
  EXPECT_EQ((*valid)["status"], "False");
  EXPECT_NE((*valid)["message"].get<std::string>().find("spec.components"), std::string::npos);
}

TEST_F(DgdReconcilerTest, DgdBeingDeletedIsLeftToTheGarbageCollector) {
  settle();
  cluster.dgd()["metadata"]["deletionTimestamp"] = "2026-11-30T06:00:00Z";
  cluster.dgd()["metadata"]["finalizers"] = json::array({"foregroundDeletion"});
  cluster.objects.erase("apps/Deployment/ns/g-frontend");  // the GC at work
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.writes(), 0);
  EXPECT_EQ(cluster.objects.count("apps/Deployment/ns/g-frontend"), 0u);
}

TEST_F(DgdReconcilerTest, StaleCacheOfADeletedDgdNeverRecreatesChildren) {
  settle();
  // The GC removed a child; the cache still shows the DGD alive, the server does not.
  cluster.objects.erase("apps/Deployment/ns/g-frontend");
  json terminating = cluster.dgd();
  terminating["metadata"]["deletionTimestamp"] = "2026-11-30T06:00:00Z";
  cluster.server_dgd_override = terminating;
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.writes(), 0);
  cluster.server_dgd_override.reset();
  cluster.server_dgd_gone = true;
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.writes(), 0);
  EXPECT_EQ(cluster.objects.count("apps/Deployment/ns/g-frontend"), 0u);
}

TEST_F(DgdReconcilerTest, GoneDgdIsNothingToDo) {
  cluster.objects.clear();
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.writes(), 0);
}

TEST_F(DgdReconcilerTest, DriftIsRestoredAndDeletedChildRecreated) {
  settle();
  cluster.objects["apps/Deployment/ns/g-decodeworker"]["spec"]["template"]["spec"]["containers"][0]["args"] =
      json::array({"--hacked"});
  cluster.objects.erase("/Service/ns/g-frontend");
  reconciler.note_spec_change("ns/g");  // what the child informers' handlers do
  ASSERT_TRUE(run().ok());
  std::sort(cluster.applied_keys.begin(), cluster.applied_keys.end());
  EXPECT_EQ(cluster.applied_keys,
            (std::vector<std::string>{"/Service/ns/g-frontend", "apps/Deployment/ns/g-decodeworker"}));
  auto reasons = cluster.event_reasons();
  EXPECT_EQ(std::count(reasons.begin(), reasons.end(), kReasonChildUpdated), 1);
  ASSERT_EQ(std::count(reasons.begin(), reasons.end(), kReasonChildCreated), 1);
  for (const auto& e : cluster.events) {
    if (e["reason"] == kReasonChildCreated) {
      EXPECT_EQ(e["message"], "Re-created Service g-frontend (it was deleted outside the operator)");
    }
  }
}

// Once a full pass found every child as desired, a wake that only statuses explain (a
// Deployment's replica counts) is a status pass: it reads the Deployments, renders and
// plans nothing, and still reports what changed. A child changed outside its status is
// noted by the informers (note_spec_change) and gets the full pass, which restores it.
TEST_F(DgdReconcilerTest, StatusOnlyChangesAreAStatusPassAndNotedChangesAFullOne) {
  settle();
  ASSERT_TRUE(run().ok());  // the settled full pass
  cluster.reset_counts();
  cluster.owned_reads = 0;
  json& decode = cluster.objects["apps/Deployment/ns/g-decodeworker"];
  decode["status"]["readyReplicas"] = 0;
  decode["status"]["availableReplicas"] = 0;
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.owned_reads, 0);
  EXPECT_EQ(cluster.applies, 0);
  EXPECT_EQ((*condition(cluster.dgd(), "Ready"))["status"], "False") << cluster.dgd()["status"].dump(2);

  decode["spec"]["template"]["spec"]["containers"][0]["args"] = json::array({"--hacked"});
  cluster.roll_out_all();
  ASSERT_TRUE(run().ok());  // no note: the status pass trusts the last full pass
  EXPECT_EQ(cluster.applies, 0);
  reconciler.note_spec_change("ns/g");
  ASSERT_TRUE(run().ok());
  EXPECT_GT(cluster.owned_reads, 0);
  EXPECT_EQ(cluster.applied_keys, (std::vector<std::string>{"apps/Deployment/ns/g-decodeworker"}));
  EXPECT_NE(cluster.objects["apps/Deployment/ns/g-decodeworker"]["spec"]["template"]["spec"]["containers"][0]["args"],
            json::array({"--hacked"}));
}

// The pass that creates the children is the last full one: the watch events of what it
// wrote (at the resourceVersions its applies returned) are their echo, not changes, so the
// passes they bring are status passes. A change at any other version is a full pass.
TEST_F(DgdReconcilerTest, EchoesOfTheOperatorsOwnAppliesNeedNoFullPass) {
  ASSERT_TRUE(run().ok());  // creates every child
  ASSERT_FALSE(cluster.unseen.empty());
  cluster.owned_reads = 0;
  cluster.reset_counts();
  ASSERT_TRUE(run().ok());  // the children's add events came: a status pass
  EXPECT_EQ(cluster.owned_reads, 0);
  EXPECT_EQ(cluster.writes(), 0);
  cluster.roll_out_all();
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.owned_reads, 0);
  EXPECT_EQ(cluster.applies, 0);
  EXPECT_EQ((*condition(cluster.dgd(), "Ready"))["status"], "True") << cluster.dgd()["status"].dump(2);

  // Someone edits a child: its event carries a version no apply of ours returned.
  json& decode = cluster.objects["apps/Deployment/ns/g-decodeworker"];
  decode["spec"]["template"]["spec"]["containers"][0]["args"] = json::array({"--hacked"});
  decode["metadata"]["resourceVersion"] = std::to_string(cluster.next_rv++);
  reconciler.note_child_change("ns/g", "apps/Deployment/ns/g-decodeworker", decode["metadata"]["resourceVersion"]);
  cluster.reset_counts();
  ASSERT_TRUE(run().ok());
  EXPECT_GT(cluster.owned_reads, 0);
  EXPECT_EQ(cluster.applied_keys, (std::vector<std::string>{"apps/Deployment/ns/g-decodeworker"}));
}

// The same when the events overtake the responses of the applies that wrote them: the
// pass claims them once it has the responses. An event during the pass at a version no
// apply returned still makes the next pass full.
TEST_F(DgdReconcilerTest, EchoesThatOvertakeTheirApplyResponseAreRecognised) {
  cluster.events_before_responses = &reconciler;
  ASSERT_TRUE(run().ok());  // creates every child; every event came before its response
  EXPECT_TRUE(cluster.unseen.empty());
  cluster.owned_reads = 0;
  cluster.roll_out_all();
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.owned_reads, 0);
  EXPECT_EQ((*condition(cluster.dgd(), "Ready"))["status"], "True");

  edit([](json& spec) { spec["components"] = json::array({{{"name", "DecodeWorker"}, {"replicas", 3}}}); });
  cluster.events_before_responses = nullptr;
  cluster.apply_hook = [&] {  // someone edits the frontend while the pass applies
    json& fe = cluster.objects["apps/Deployment/ns/g-frontend"];
    fe["metadata"]["resourceVersion"] = std::to_string(cluster.next_rv++);
    reconciler.note_child_change("ns/g", "apps/Deployment/ns/g-frontend", fe["metadata"]["resourceVersion"]);
  };
  ASSERT_TRUE(run().ok());
  cluster.apply_hook = nullptr;
  cluster.owned_reads = 0;
  ASSERT_TRUE(run().ok());
  EXPECT_GT(cluster.owned_reads, 0) << "the edit during the pass brings the full pass back";
}

// Until the event of a Deployment the last full pass wrote arrives, the cache may still
// hold the version before it, whose status would describe the old template: the status
// pass waits for the event (bounded by a requeue) and writes nothing.
TEST_F(DgdReconcilerTest, StatusPassWaitsForTheEchoOfItsOwnWrite) {
  settle();
  ASSERT_TRUE(run().ok());
  const std::string decode = "apps/Deployment/ns/g-decodeworker";
  const json before_write = cluster.objects[decode];
  edit([](json& spec) { spec["components"] = json::array({{{"name", "DecodeWorker"}, {"replicas", 3}}}); });
  ASSERT_TRUE(run().ok());  // applies the decode worker; its event not delivered yet
  ASSERT_EQ(cluster.applied_keys, (std::vector<std::string>{decode}));
  const json written = cluster.objects[decode];
  cluster.objects[decode] = before_write;  // the cache still holds the version before
  cluster.reset_counts();
  auto r = reconciler.reconcile({"ns", "g"});  // woken by something else first
  EXPECT_EQ(cluster.writes(), 0);
  EXPECT_GT(r.requeue_after.count(), 0);
  cluster.objects[decode] = written;
  cluster.roll_out_all();
  ASSERT_TRUE(run().ok());  // the event came
  EXPECT_EQ(cluster.applies, 0);
  EXPECT_EQ((*condition(cluster.dgd(), "Ready"))["status"], "True");
}

TEST_F(DgdReconcilerTest, ProgressIsWrittenOncePerIntervalAndTransitionsAtOnce) {
  DgdReconcilerOptions o;
  o.status_progress_interval = std::chrono::hours(1);
  DgdReconciler coalescing(cluster, recipes::Catalog::builtin(), o);
  auto run_coalescing = [&] { return pass(coalescing, "g"); };
  ASSERT_TRUE(run_coalescing().ok());
  EXPECT_EQ(cluster.status_writes, 1);  // the first status is written at once
  const json first = cluster.dgd()["status"];

  // One Deployment makes progress: counts change, Ready stays False.
  json& fe = cluster.objects.at("apps/Deployment/ns/g-frontend");
  fe["status"] = {{"observedGeneration", fe["metadata"]["generation"]},
                  {"replicas", 1}, {"updatedReplicas", 1}, {"readyReplicas", 0}, {"availableReplicas", 0}};
  auto r = run_coalescing();
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(cluster.status_writes, 1) << "progress rewrote the status within the interval";
  EXPECT_EQ(cluster.dgd()["status"], first);
  // The reconciler comes back when the interval is over to write it then.
  EXPECT_GT(r.requeue_after.count(), 0);
  EXPECT_LE(r.requeue_after, std::chrono::milliseconds(std::chrono::hours(1)));

  // Every component rolled out: Ready turns True and is written at once.
  cluster.roll_out_all();
  ASSERT_TRUE(run_coalescing().ok());
  EXPECT_EQ(cluster.status_writes, 2);
  EXPECT_EQ((*condition(cluster.dgd(), "Ready"))["status"], "True") << cluster.dgd()["status"].dump(2);
}

TEST_F(DgdReconcilerTest, ProgressIsWrittenOnceTheIntervalIsOver) {
  DgdReconcilerOptions o;
  o.status_progress_interval = std::chrono::milliseconds(50);
  DgdReconciler coalescing(cluster, recipes::Catalog::builtin(), o);
  ASSERT_TRUE(pass(coalescing, "g").ok());
  json& fe = cluster.objects.at("apps/Deployment/ns/g-frontend");
  fe["status"] = {{"observedGeneration", fe["metadata"]["generation"]},
                  {"replicas", 1}, {"updatedReplicas", 1}, {"readyReplicas", 0}, {"availableReplicas", 0}};
  auto r = pass(coalescing, "g");
  ASSERT_GT(r.requeue_after.count(), 0);
  std::this_thread::sleep_for(r.requeue_after);  // the work queue's requeue
  ASSERT_TRUE(pass(coalescing, "g").ok());
  EXPECT_EQ(cluster.status_writes, 2);
  EXPECT_EQ(cluster.dgd()["status"]["components"]["Frontend"]["updatedReplicas"], 1);
}

// Progress-only writes of all DGDs share --status-progress-qps: once one DGD took the
// current slot, another one's progress waits for the next; a transition does not.
TEST(DgdReconcilerFleet, ProgressWritesShareAFleetWideRate) {
  FakeCluster cluster;
  add_model_cache(cluster, /*filled=*/true);
  DgdReconcilerOptions o;
  o.status_progress_interval = std::chrono::milliseconds(1);
  o.status_progress_qps = 0.5;  // a slot every 2 s
  DgdReconciler reconciler(cluster, recipes::Catalog::builtin(), o);
  for (const char* name : {"g", "h"}) {
    json d = user_dgd();
    d["metadata"]["name"] = name;
    d["metadata"]["uid"] = std::string("uid-") + name;
    cluster.objects[FakeCluster::dgd_key("ns", name)] = d;
    ASSERT_TRUE(pass_of(cluster, reconciler, name).ok());  // children and the first status
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // both intervals are over
  cluster.reset_counts();
  // Pods start: progress for both (RolloutInProgress counts), not a transition.
  for (auto& [k, obj] : cluster.objects) {
    if (obj.value("kind", "") != "Deployment") continue;
    obj["status"] = {{"observedGeneration", 1}, {"replicas", 1}, {"updatedReplicas", 1}};
  }
  auto first = pass_of(cluster, reconciler, "g");
  EXPECT_EQ(cluster.status_writes, 1);
  EXPECT_EQ(first.requeue_after.count(), 0);
  auto second = pass_of(cluster, reconciler, "h");
  EXPECT_EQ(cluster.status_writes, 1) << "the second DGD's progress waits for the next slot";
  EXPECT_GT(second.requeue_after.count(), 1000);
  EXPECT_LE(second.requeue_after.count(), 2000);
  // A transition is not held: the DGD turns Ready at once.
  cluster.roll_out_all();
  ASSERT_TRUE(pass_of(cluster, reconciler, "h").ok());
  EXPECT_EQ(cluster.status_writes, 2);
  EXPECT_EQ((*condition(cluster.dgd("ns", "h"), "Ready"))["status"], "True");
}

TEST(ChangedOutsideStatus, TheEchoOfAStatusWriteIsNotAChangeAnythingElseIs) {
  json before = user_dgd();
  before["status"] = {{"observedGeneration", 1}};
  json echo = before;
  echo["status"]["observedGeneration"] = 2;
  echo["metadata"]["resourceVersion"] = "7";
  echo["metadata"]["managedFields"] = json::array({{{"manager", "dgd-operator"}}});
  EXPECT_FALSE(changed_outside_status(before.dump(), echo.dump()));
  auto changed = [&](const std::function<void(json&)>& fn) {
    json after = echo;
    fn(after);
    return changed_outside_status(before.dump(), after.dump());
  };
  EXPECT_FALSE(changed([](json& d) { d.erase("status"); }));
  EXPECT_TRUE(changed([](json& d) { d["spec"]["recipe"] = "other"; }));
  EXPECT_TRUE(changed([](json& d) { d["metadata"]["generation"] = 2; }));
  EXPECT_TRUE(changed([](json& d) { d["metadata"]["labels"] = {{"team", "a"}}; }));
  EXPECT_TRUE(changed([](json& d) { d["metadata"]["deletionTimestamp"] = "2026-11-30T00:00:00Z"; }));
  EXPECT_TRUE(changed([](json& d) { d["metadata"].erase("uid"); }));
  EXPECT_TRUE(changed([](json& d) { d.erase("spec"); }));
  EXPECT_TRUE(changed([](json& d) { d["metadata"]["annotations"] = {{"a", "b"}}; }));
  // The Deployment controller numbering a rollout is not a change; anything else beside it is.
  EXPECT_FALSE(changed([](json& d) { d["metadata"]["annotations"] = {{"deployment.kubernetes.io/revision", "1"}}; }));
  before["metadata"]["annotations"] = {{"deployment.kubernetes.io/revision", "1"}, {"a", "b"}};
  EXPECT_FALSE(changed([](json& d) {
    d["metadata"]["annotations"] = {{"deployment.kubernetes.io/revision", "2"}, {"a", "b"}};
  }));
  EXPECT_TRUE(changed([](json& d) {
    d["metadata"]["annotations"] = {{"deployment.kubernetes.io/revision", "2"}, {"a", "c"}};
  }));
  EXPECT_TRUE(changed_outside_status("not json", echo.dump()));
  EXPECT_TRUE(changed_outside_status(echo.dump(), "[1]"));
}

TEST_F(DgdReconcilerTest, ApiErrorsRetryWithBackoffAndKeepStatus) {
  kube::Error e;
  e.kind = kube::ErrorKind::kServiceUnavailable;
  e.code = 503;
  e.message = "try later";
  cluster.apply_error = e;
  auto r1 = run();
  EXPECT_TRUE(r1.ok());  // not an error for the controller: the reconciler backs off itself
  EXPECT_GT(r1.requeue_after.count(), 0);
  auto r2 = run();
  EXPECT_GT(r2.requeue_after, r1.requeue_after);
  const json* ready = condition(cluster.dgd(), "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ((*ready)["status"], "False");
  cluster.apply_error.reset();
  EXPECT_EQ(run().requeue_after.count(), 0);
}

TEST_F(DgdReconcilerTest, MissingChildKindIsReportedAndTheRestApplied) {
  cluster.objects.clear();
  json d = user_dgd();
  d["spec"]["recipe"] = "deepseek-v4.1-flash/vllm/disagg-gb200-agentic";
  cluster.objects[FakeCluster::dgd_key("ns", "g")] = d;
  cluster.not_served.insert("computedomains.v1beta1.resource.nvidia.com");
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.keys_of("ComputeDomain").size(), 0u);
  EXPECT_EQ(cluster.keys_of("Deployment").size(), 3u);
  const json* ready = condition(cluster.dgd(), "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ((*ready)["reason"], "ChildrenNotSynced");
  EXPECT_NE((*ready)["message"].get<std::string>().find("ComputeDomain"), std::string::npos) << (*ready)["message"];
  auto reasons = cluster.event_reasons();
  EXPECT_EQ(std::count(reasons.begin(), reasons.end(), kReasonKindNotServed), 1);
}

TEST_F(DgdReconcilerTest, SharedDownloadJobIsLeftToTheDgdThatCreatedIt) {
  settle();
  std::string job_key;
  for (auto& [k, o] : cluster.objects) {
    if (o.value("kind", "") == "Job") {
      job_key = k;
      o["metadata"]["ownerReferences"] = json::array({{{"uid", "other-dgd"}, {"controller", true}}});
    }
  }
  ASSERT_FALSE(job_key.empty());
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.applies, 0);
  EXPECT_EQ(cluster.removes, 0);
  EXPECT_EQ(cluster.objects[job_key]["metadata"]["ownerReferences"][0]["uid"], "other-dgd");
}

// DGDs that share a cache are reconciled together: the first creates the download Job;
// one reconciled before the Job reaches the cache waits for that Job instead of creating
// it again (one create, one PVC read, one DownloadStarted event).
TEST_F(DgdReconcilerTest, DgdsSharingACacheCreateItsDownloadJobOnce) {
  cluster.objects.erase(job_key());  // an empty cache
  json h = user_dgd();
  h["metadata"]["name"] = "h";
  h["metadata"]["uid"] = "uid-h";
  cluster.objects[FakeCluster::dgd_key("ns", "h")] = h;
  ASSERT_TRUE(run().ok());  // g creates the Job
  ASSERT_EQ(cluster.objects.count(job_key()), 1u);
  const json created = cluster.objects[job_key()];
  cluster.objects.erase(job_key());  // the cache has not seen it yet
  cluster.reset_counts();
  ASSERT_TRUE(pass(reconciler, "h").ok());
  for (const auto& k : cluster.applied_keys) EXPECT_EQ(k.find("batch/Job/"), std::string::npos) << k;
  EXPECT_EQ(cluster.objects.count(job_key()), 0u);
  for (const auto& e : cluster.events) EXPECT_NE(e.value("reason", ""), kReasonDownloadStarted);
  EXPECT_EQ(cluster.objects["apps/Deployment/ns/h-decodeworker"]["spec"]["replicas"], 0);  // held back
  const json* cache = condition(cluster.dgd("ns", "h"), kConditionModelCacheReady);
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ((*cache)["reason"], kReasonDownloading);
  EXPECT_NE((*cache)["message"].get<std::string>().find(download_job_name()), std::string::npos) << *cache;
  // The Job reaches the cache and completes: both start their workers.
  cluster.objects[job_key()] = created;
  cluster.complete_jobs();
  ASSERT_TRUE(pass(reconciler, "h").ok());
  EXPECT_EQ(cluster.objects["apps/Deployment/ns/h-decodeworker"]["spec"]["replicas"], 1);
}

TEST_F(DgdReconcilerTest, WorkersWaitForTheDownloadJobAndTheFrontendDoesNot) {
  cluster.objects.erase(job_key());  // an empty cache
  ASSERT_TRUE(run().ok());
  // One download Job, owned by the cache PVC (it outlives this DGD), token by reference.
  ASSERT_EQ(cluster.objects.count(job_key()), 1u);
  const json& job = cluster.objects[job_key()];
  ASSERT_EQ(job["metadata"]["ownerReferences"].size(), 1u);
  EXPECT_EQ(job["metadata"]["ownerReferences"][0]["uid"], "pvc-uid");
  EXPECT_EQ(job["metadata"]["ownerReferences"][0]["kind"], "PersistentVolumeClaim");
  // Workers exist with 0 replicas; the frontend runs.
  EXPECT_EQ(cluster.objects["apps/Deployment/ns/g-prefillworker"]["spec"]["replicas"], 0);
  EXPECT_EQ(cluster.objects["apps/Deployment/ns/g-decodeworker"]["spec"]["replicas"], 0);
  EXPECT_EQ(cluster.objects["apps/Deployment/ns/g-frontend"]["spec"]["replicas"], 1);
  cluster.roll_out_all();
  ASSERT_TRUE(run().ok());
  const json* ready = condition(cluster.dgd(), "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ((*ready)["status"], "False");
  EXPECT_EQ((*ready)["reason"], kReasonWaitingForModelCache);
  EXPECT_NE((*ready)["message"].get<std::string>().find("shared-model-cache"), std::string::npos) << (*ready);
  const json* cache = condition(cluster.dgd(), kConditionModelCacheReady);
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ((*cache)["status"], "False");
  EXPECT_EQ((*cache)["reason"], kReasonDownloading);
  // Waiting costs nothing.
  cluster.reset_counts();
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.writes(), 0);
  // The download completes: the workers get their replicas, then the graph turns Ready.
  cluster.complete_jobs();  // a status pass sees it and hands over to the full pass
  ASSERT_TRUE(run().ok());
  std::sort(cluster.applied_keys.begin(), cluster.applied_keys.end());
  EXPECT_EQ(cluster.applied_keys, (std::vector<std::string>{"apps/Deployment/ns/g-decodeworker",
                                                            "apps/Deployment/ns/g-prefillworker"}));
  EXPECT_EQ(cluster.objects["apps/Deployment/ns/g-decodeworker"]["spec"]["replicas"], 1);
  EXPECT_EQ((*condition(cluster.dgd(), kConditionModelCacheReady))["status"], "True");
  cluster.roll_out_all();
  ASSERT_TRUE(run().ok());
  EXPECT_EQ((*condition(cluster.dgd(), "Ready"))["status"], "True") << cluster.dgd()["status"].dump(2);
}

TEST_F(DgdReconcilerTest, MissingCachePvcCreatesNoJobAndIsLookedForAgain) {
  cluster.objects.erase(job_key());
  cluster.objects.erase("/PersistentVolumeClaim/ns/shared-model-cache");
  auto r = run();
  ASSERT_TRUE(r.ok());
  EXPECT_GT(r.requeue_after.count(), 0);  // the user's PVC is not watched
  EXPECT_EQ(cluster.keys_of("Job").size(), 0u);
  const json* cache = condition(cluster.dgd(), kConditionModelCacheReady);
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ((*cache)["reason"], kReasonClaimNotFound);
  EXPECT_EQ(cluster.objects["apps/Deployment/ns/g-decodeworker"]["spec"]["replicas"], 0);
  add_model_cache(cluster, /*filled=*/false);
  EXPECT_EQ(run().requeue_after.count(), 0);
  EXPECT_EQ(cluster.keys_of("Job").size(), 1u);
}

TEST_F(DgdReconcilerTest, FailedDownloadReportsTheJobReasonAndThePodMessage) {
  json& job = cluster.objects[job_key()];
  job["status"] = json::parse(R"({"failed": 4, "conditions": [{"type": "Failed", "status": "True",
      "reason": "BackoffLimitExceeded", "message": "Job has reached the specified backoff limit"}]})");
  cluster.objects["/Pod/ns/dl-1"] = json::parse(R"({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "dl-1",
      "namespace": "ns", "labels": {"job-name": ")" + download_job_name() + R"("}}, "status": {"phase": "Failed",
      "containerStatuses": [{"name": "download", "state": {"terminated": {"exitCode": 1, "reason": "Error",
      "message": "401 Client Error: Unauthorized", "finishedAt": "2026-11-30T06:00:00Z"}}}]}})");
  ASSERT_TRUE(run().ok());
  const json* cache = condition(cluster.dgd(), kConditionModelCacheReady);
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ((*cache)["status"], "False");
  EXPECT_EQ((*cache)["reason"], kReasonDownloadFailed);
  const std::string msg = (*cache)["message"];
  EXPECT_NE(msg.find("BackoffLimitExceeded"), std::string::npos) << msg;
  EXPECT_NE(msg.find("401 Client Error: Unauthorized"), std::string::npos) << msg;
  EXPECT_EQ(cluster.objects["apps/Deployment/ns/g-decodeworker"]["spec"]["replicas"], 0);
  EXPECT_EQ((*condition(cluster.dgd(), "Ready"))["reason"], kReasonWaitingForModelCache);
}

TEST_F(DgdReconcilerTest, NewRevisionNeverScalesDownTheWorkersThatServe) {
  settle();
  const json before = cluster.objects["apps/Deployment/ns/g-decodeworker"];
  edit([](json& spec) { spec["model"] = {{"revision", "0123456789abcdef0123456789abcdef01234567"}}; });
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.keys_of("Job").size(), 2u);  // the old revision's record stays
  EXPECT_EQ(cluster.objects["apps/Deployment/ns/g-decodeworker"], before);
  EXPECT_EQ((*condition(cluster.dgd(), "Ready"))["reason"], kReasonWaitingForModelCache);
  cluster.complete_jobs();
  ASSERT_TRUE(run().ok());
  EXPECT_EQ((*condition(cluster.dgd(), kConditionModelCacheReady))["status"], "True");
  EXPECT_EQ((*condition(cluster.dgd(), "Ready"))["status"], "True");
}

// A download Job's change wakes the DGDs that use it (operator.cpp), not every DGD of the
// namespace: the reconciler knows which they are, follows a revision edit, forgets a DGD
// that is gone, and never knows a DGD that downloads nothing.
TEST_F(DgdReconcilerTest, DownloadJobUsersAreTheDgdsThatUseIt) {
  ASSERT_TRUE(run().ok());
  const std::string old_job = download_job_name();
  EXPECT_EQ(reconciler.dgds_using_job("ns", old_job), (std::vector<std::string>{"ns/g"}));
  EXPECT_TRUE(reconciler.dgds_using_job("other", old_job).empty());

  json second = user_dgd();
  second["metadata"]["name"] = "h";
  second["metadata"]["uid"] = "uid-h";
  cluster.objects[FakeCluster::dgd_key("ns", "h")] = second;
  ASSERT_TRUE(pass_of(cluster, reconciler, "h").ok());
  EXPECT_EQ(reconciler.dgds_using_job("ns", old_job), (std::vector<std::string>{"ns/g", "ns/h"}));

  edit([](json& spec) { spec["model"] = {{"revision", "0123456789abcdef0123456789abcdef01234567"}}; });
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(reconciler.dgds_using_job("ns", old_job), (std::vector<std::string>{"ns/h"}));
  std::vector<std::string> new_jobs;
  for (const auto& k : cluster.keys_of("Job")) {
    if (k != old_job) new_jobs.push_back(k);
  }
  ASSERT_EQ(new_jobs.size(), 1u);
  EXPECT_EQ(reconciler.dgds_using_job("ns", new_jobs[0]), (std::vector<std::string>{"ns/g"}));

  cluster.objects.erase(FakeCluster::dgd_key("ns", "h"));
  ASSERT_TRUE(pass_of(cluster, reconciler, "h").ok());
  EXPECT_TRUE(reconciler.dgds_using_job("ns", old_job).empty());
}

TEST(MakeEvent, NameIsStablePerGenerationReasonAndMessage) {
  json d = user_dgd();
  json a = make_event(d, "Normal", "ChildCreated", "Created Deployment g-frontend", "t1", "i");
  json b = make_event(d, "Normal", "ChildCreated", "Created Deployment g-frontend", "t2", "j");
  EXPECT_EQ(a["metadata"]["name"], b["metadata"]["name"]);
  d["metadata"]["generation"] = 2;
  json c = make_event(d, "Normal", "ChildCreated", "Created Deployment g-frontend", "t1", "i");
  EXPECT_NE(a["metadata"]["name"], c["metadata"]["name"]);
  EXPECT_EQ(a["involvedObject"]["kind"], "DynamoGraphDeployment");
  EXPECT_EQ(a["source"]["component"], "dgd-operator");
}

}  // namespace
}  // namespace dgd::reconcile
