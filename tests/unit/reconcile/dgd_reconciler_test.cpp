// Decision logic of the DGD reconcile against an in-memory cluster: what is
// written, deleted, reported and announced for each situation a user meets.
#include "dgd/reconcile/dgd_reconciler.h"

#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <map>

#include "dgd/kube/clock.h"
#include "dgd/recipes/catalog.h"
#include "dgd/reconcile/child_plan.h"
#include "dgd/reconcile/model_cache.h"
#include "dgd/render/render.h"
#include "fake_cluster.h"
#include "reconciler_fixture.h"

namespace dgd::reconcile {
namespace {

using nlohmann::json;
using namespace fake;

runtime::ReconcileResult pass_of(FakeCluster& c, DgdReconciler& r, const std::string& name) {
  (void)c;
  return r.reconcile({"ns", name});
}

class DgdReconcilerTest : public ReconcilerFixture {
 protected:
  runtime::ReconcileResult pass(DgdReconciler& r, const std::string& name) { return pass_of(cluster, r, name); }
};

TEST_F(DgdReconcilerTest, FirstReconcileCreatesEveryChildOwnedByTheDgd) {
  ASSERT_TRUE(run().ok());
  EXPECT_GT(cluster.applies, 0);
  EXPECT_EQ(cluster.removes, 0);
  auto deployments = cluster.keys_of("Deployment");
  ASSERT_EQ(deployments.size(), 3u);
  const std::string hash = deployments[0].substr(deployments[0].size() - 8);  // the worker generation
  EXPECT_EQ(deployments,
            (std::vector<std::string>{"g-decodeworker-" + hash, "g-frontend", "g-prefillworker-" + hash}));
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
  EXPECT_EQ(cluster.applied_keys, (std::vector<std::string>{cluster.deployment_key("DecodeWorker")}));
  EXPECT_EQ(cluster.objects[cluster.deployment_key("DecodeWorker")]["spec"]["replicas"], 3);
  // Honest: the new replicas are not there yet.
  const json* ready = condition(cluster.dgd(), "Ready");
  EXPECT_EQ((*ready)["status"], "False");
  EXPECT_NE((*ready)["message"].get<std::string>().find("DecodeWorker"), std::string::npos) << (*ready)["message"];
  EXPECT_EQ(cluster.dgd()["status"]["observedGeneration"], 2);
}

// One worker's flag starts a new worker generation: every worker gets a new Deployment
// (worker_rollout_reconcile_test.cpp follows the rollout), the frontend is not touched.
TEST_F(DgdReconcilerTest, EngineFlagEditStartsANewWorkerGeneration) {
  settle();
  const std::string old_prefill = cluster.deployment_key("PrefillWorker");
  edit([](json& spec) {
    spec["components"] = json::array({{{"name", "PrefillWorker"}, {"engine", {{"maxNumSeqs", 7}}}}});
  });
  ASSERT_TRUE(run().ok());
  std::sort(cluster.applied_keys.begin(), cluster.applied_keys.end());
  EXPECT_EQ(cluster.applied_keys, (std::vector<std::string>{cluster.deployment_key("DecodeWorker"),
                                                            cluster.deployment_key("PrefillWorker")}));
  EXPECT_NE(cluster.deployment_key("PrefillWorker"), old_prefill);
  const auto args = cluster.objects[cluster.deployment_key("PrefillWorker")]["spec"]["template"].dump();
  EXPECT_NE(args.find("--max-num-seqs"), std::string::npos);
  EXPECT_EQ(cluster.removes, 0);
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
  const auto r = run();
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.retry, runtime::RetryClass::kTerminal) << "an edit brings it back; retrying cannot help";
  EXPECT_NE(r.error.find("spec.components[0].replicas"), std::string::npos) << r.error;
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
  EXPECT_EQ(run().retry, runtime::RetryClass::kTerminal);
  EXPECT_EQ(cluster.writes(), 0);
}

TEST_F(DgdReconcilerTest, UnparseableSpecIsReportedNotFatal) {
  edit([](json& spec) { spec["components"] = "not-a-list"; });
  EXPECT_EQ(run().retry, runtime::RetryClass::kTerminal);
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
  cluster.edit_child(cluster.deployment_key("DecodeWorker"), [](json& d) {
    d["spec"]["template"]["spec"]["containers"][0]["args"] = json::array({"--hacked"});
  });
  cluster.objects.erase("/Service/ns/g-frontend");
  ASSERT_TRUE(run().ok());
  std::sort(cluster.applied_keys.begin(), cluster.applied_keys.end());
  EXPECT_EQ(cluster.applied_keys,
            (std::vector<std::string>{"/Service/ns/g-frontend", cluster.deployment_key("DecodeWorker")}));
  auto reasons = cluster.event_reasons();
  EXPECT_EQ(std::count(reasons.begin(), reasons.end(), kReasonChildUpdated), 1);
  ASSERT_EQ(std::count(reasons.begin(), reasons.end(), kReasonChildCreated), 1);
  for (const auto& e : cluster.events) {
    if (e["reason"] == kReasonChildCreated) {
      EXPECT_EQ(e["message"], "Re-created Service g-frontend (it was deleted outside the operator)");
    }
  }
}

// Once a full pass found every child as desired, a pass that finds only their statuses
// moved (same generation, same metadata: a Deployment's replica counts) is a status
// pass: it renders and plans nothing, and still reports what changed. A child whose
// generation or metadata moved gets the full pass, which restores it.
TEST_F(DgdReconcilerTest, StatusOnlyChangesAreAStatusPassAndSpecChangesAFullOne) {
  settle();
  ASSERT_TRUE(run().ok());  // the settled full pass
  cluster.reset_counts();
  cluster.owned_reads = 0;
  cluster.edit_child(cluster.deployment_key("DecodeWorker"), [](json& d) {
    d["status"]["readyReplicas"] = 0;
    d["status"]["availableReplicas"] = 0;
  }, /*spec=*/false);
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.owned_reads, 0);
  EXPECT_EQ(cluster.applies, 0);
  EXPECT_EQ((*condition(cluster.dgd(), "Ready"))["status"], "False") << cluster.dgd()["status"].dump(2);

  cluster.roll_out_all();
  cluster.edit_child(cluster.deployment_key("DecodeWorker"), [](json& d) {
    d["spec"]["template"]["spec"]["containers"][0]["args"] = json::array({"--hacked"});
  });
  ASSERT_TRUE(run().ok());
  EXPECT_GT(cluster.owned_reads, 0);
  EXPECT_EQ(cluster.applied_keys, (std::vector<std::string>{cluster.deployment_key("DecodeWorker")}));
  EXPECT_NE(cluster.objects[cluster.deployment_key("DecodeWorker")]["spec"]["template"]["spec"]["containers"][0]["args"],
            json::array({"--hacked"}));
}

// Metadata changes do not move a Deployment's generation: a label removed from a child
// is seen by the version and metadata the memo recorded, and restored.
TEST_F(DgdReconcilerTest, ALabelEditOfAChildIsRestored) {
  settle();
  ASSERT_TRUE(run().ok());
  cluster.reset_counts();
  cluster.edit_child("apps/Deployment/ns/g-frontend", [](json& d) {
    d["metadata"]["labels"].erase("nvidia.com/dynamo-component");
  }, /*spec=*/false);
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.applied_keys, (std::vector<std::string>{"apps/Deployment/ns/g-frontend"}));
}

// A child that appears under the DGD's ownership (not one the pass left) is pruned.
TEST_F(DgdReconcilerTest, AnOwnedChildThePassDidNotLeaveIsPruned) {
  settle();
  ASSERT_TRUE(run().ok());
  json extra = cluster.objects["/Service/ns/g-frontend"];
  extra["metadata"]["name"] = "g-stray";
  extra["metadata"]["uid"] = "stray-uid";
  extra["metadata"]["resourceVersion"] = std::to_string(cluster.next_rv++);
  cluster.objects["/Service/ns/g-stray"] = extra;
  cluster.reset_counts();
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.removed_keys, (std::vector<std::string>{"/Service/ns/g-stray"}));
}

// The pass that creates the children is the last full one: the cache then holds them at
// the versions its applies returned, so the next passes are status passes.
TEST_F(DgdReconcilerTest, ThePassThatCreatesTheChildrenIsTheLastFullOne) {
  ASSERT_TRUE(run().ok());  // creates every child
  cluster.owned_reads = 0;
  cluster.reset_counts();
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.owned_reads, 0);
  EXPECT_EQ(cluster.writes(), 0);
  cluster.roll_out_all();
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.owned_reads, 0);
  EXPECT_EQ(cluster.applies, 0);
  EXPECT_EQ((*condition(cluster.dgd(), "Ready"))["status"], "True") << cluster.dgd()["status"].dump(2);
}

// A child changed while the pass applies (its version then is not the one the pass
// recorded) brings the full pass back.
TEST_F(DgdReconcilerTest, AChildChangedWhileThePassAppliesBringsTheFullPassBack) {
  settle();
  edit([](json& spec) { spec["components"] = json::array({{{"name", "DecodeWorker"}, {"replicas", 3}}}); });
  cluster.apply_hook = [&] {
    cluster.apply_hook = nullptr;
    cluster.edit_child("apps/Deployment/ns/g-frontend", [](json& d) { d["metadata"]["labels"]["team"] = "x"; },
                       /*spec=*/false);
  };
  ASSERT_TRUE(run().ok());
  cluster.owned_reads = 0;
  cluster.reset_counts();
  ASSERT_TRUE(run().ok());
  EXPECT_GT(cluster.owned_reads, 0) << "the edit during the pass brings the full pass back";
}

// Until the watch event of a Deployment the last full pass wrote arrives, the cache may
// still hold the version before it, whose status would describe the old template: the
// pass waits for the event (bounded by a requeue) and writes nothing. After a few such
// waits it plans in full, in case that event never comes.
TEST_F(DgdReconcilerTest, APassWaitsForTheEchoOfItsOwnWrite) {
  settle();
  ASSERT_TRUE(run().ok());
  const std::string decode = cluster.deployment_key("DecodeWorker");
  const json before_write = cluster.objects[decode];
  edit([](json& spec) { spec["components"] = json::array({{{"name", "DecodeWorker"}, {"replicas", 3}}}); });
  ASSERT_TRUE(run().ok());  // applies the decode worker
  ASSERT_EQ(cluster.applied_keys, (std::vector<std::string>{decode}));
  const json written = cluster.objects[decode];
  cluster.objects[decode] = before_write;  // the cache still holds the version before
  cluster.reset_counts();
  auto r = run();  // woken by something else first
  EXPECT_EQ(cluster.writes(), 0);
  EXPECT_GT(r.requeue_after.count(), 0);
  cluster.objects[decode] = written;
  cluster.roll_out_all();
  ASSERT_TRUE(run().ok());  // the event came
  EXPECT_EQ(cluster.applies, 0);
  EXPECT_EQ((*condition(cluster.dgd(), "Ready"))["status"], "True");

  const json before_second = cluster.objects[decode];
  edit([](json& spec) { spec["components"] = json::array({{{"name", "DecodeWorker"}, {"replicas", 4}}}); });
  ASSERT_TRUE(run().ok());
  cluster.objects[decode] = before_second;
  cluster.reset_counts();
  for (int i = 0; i < 3; ++i) EXPECT_GT(run().requeue_after.count(), 0);
  EXPECT_EQ(cluster.applies, 0);
  run();
  EXPECT_EQ(cluster.applied_keys, (std::vector<std::string>{decode})) << "the event never came: full pass";
}

TEST_F(DgdReconcilerTest, ProgressIsWrittenOncePerIntervalAndTransitionsAtOnce) {
  DgdReconcilerOptions o;
  o.status_progress_interval = std::chrono::hours(1);
  o.clock = &clock;
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
  EXPECT_EQ(r.requeue_after, std::chrono::milliseconds(std::chrono::hours(1)));

  // Every component rolled out: Ready turns True and is written at once.
  cluster.roll_out_all();
  ASSERT_TRUE(run_coalescing().ok());
  EXPECT_EQ(cluster.status_writes, 2);
  EXPECT_EQ((*condition(cluster.dgd(), "Ready"))["status"], "True") << cluster.dgd()["status"].dump(2);
}

TEST_F(DgdReconcilerTest, ProgressIsWrittenOnceTheIntervalIsOver) {
  DgdReconcilerOptions o;
  o.status_progress_interval = std::chrono::milliseconds(50);
  o.clock = &clock;
  DgdReconciler coalescing(cluster, recipes::Catalog::builtin(), o);
  ASSERT_TRUE(pass(coalescing, "g").ok());
  json& fe = cluster.objects.at("apps/Deployment/ns/g-frontend");
  fe["status"] = {{"observedGeneration", fe["metadata"]["generation"]},
                  {"replicas", 1}, {"updatedReplicas", 1}, {"readyReplicas", 0}, {"availableReplicas", 0}};
  auto r = pass(coalescing, "g");
  ASSERT_EQ(r.requeue_after, std::chrono::milliseconds(50));
  clock.advance(r.requeue_after);  // the work queue's requeue
  ASSERT_TRUE(pass(coalescing, "g").ok());
  EXPECT_EQ(cluster.status_writes, 2);
  EXPECT_EQ(cluster.dgd()["status"]["components"]["Frontend"]["updatedReplicas"], 1);
}

// Progress-only writes of all DGDs share --status-progress-qps: once one DGD took the
// current slot, another one's progress waits for the next; a transition does not.
TEST(DgdReconcilerFleet, ProgressWritesShareAFleetWideRate) {
  kube::FakeClock clock;
  FakeCluster cluster;
  add_model_cache(cluster, /*filled=*/true);
  DgdReconcilerOptions o;
  o.status_progress_interval = std::chrono::milliseconds(1);
  o.status_progress_qps = 0.5;  // a slot every 2 s
  o.clock = &clock;
  DgdReconciler reconciler(cluster, recipes::Catalog::builtin(), o);
  for (const char* name : {"g", "h"}) {
    json d = user_dgd();
    d["metadata"]["name"] = name;
    d["metadata"]["uid"] = std::string("uid-") + name;
    cluster.objects[FakeCluster::dgd_key("ns", name)] = d;
    ASSERT_TRUE(pass_of(cluster, reconciler, name).ok());  // children and the first status
  }
  clock.advance(std::chrono::milliseconds(5));  // both intervals are over
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
  EXPECT_EQ(second.requeue_after, std::chrono::milliseconds(2000));
  // A transition is not held: the DGD turns Ready at once.
  cluster.roll_out_all();
  ASSERT_TRUE(pass_of(cluster, reconciler, "h").ok());
  EXPECT_EQ(cluster.status_writes, 2);
  EXPECT_EQ((*condition(cluster.dgd("ns", "h"), "Ready"))["status"], "True");
}

// An API error goes back to the work queue, whose rate limiter backs off; the status
// still says what is missing.
TEST_F(DgdReconcilerTest, ApiErrorsGoBackToTheQueueAndKeepStatus) {
  kube::Error e;
  e.kind = kube::ErrorKind::kServiceUnavailable;
  e.code = 503;
  e.message = "try later";
  cluster.apply_error = e;
  auto r1 = run();
  EXPECT_FALSE(r1.ok());
  EXPECT_EQ(r1.retry, runtime::RetryClass::kUnavailable);
  EXPECT_NE(r1.error.find("try later"), std::string::npos) << r1.error;
  const json* ready = condition(cluster.dgd(), "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ((*ready)["status"], "False");
  cluster.apply_error.reset();
  auto r2 = run();
  EXPECT_TRUE(r2.ok());
  EXPECT_EQ(r2.requeue_after.count(), 0);
}

// A status write that meets a newer DGD (409) is rerun after a re-read.
TEST_F(DgdReconcilerTest, AStaleStatusWriteIsAConflictToRerun) {
  cluster.status_conflict = true;
  auto r = run();
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.retry, runtime::RetryClass::kConflict);
}

TEST_F(DgdReconcilerTest, MissingChildKindIsReportedAndTheRestApplied) {
  cluster.objects.clear();
  json d = user_dgd();
  d["spec"]["recipe"] = "deepseek-v4.1-flash/vllm/disagg-gb200-agentic";
  cluster.objects[FakeCluster::dgd_key("ns", "g")] = d;
  cluster.not_served.insert("computedomains.v1beta1.resource.nvidia.com");
  const auto r = run();
  EXPECT_EQ(r.retry, runtime::RetryClass::kTerminal) << "the kind's informer brings the DGD back";
  EXPECT_NE(r.error.find("ComputeDomain"), std::string::npos) << r.error;
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
  EXPECT_EQ(cluster.objects[cluster.deployment_key("DecodeWorker", "h")]["spec"]["replicas"], 0);  // held back
  const json* cache = condition(cluster.dgd("ns", "h"), kConditionModelCacheReady);
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ((*cache)["reason"], kReasonDownloading);
  EXPECT_NE((*cache)["message"].get<std::string>().find(download_job_name()), std::string::npos) << *cache;
  // The Job reaches the cache and completes: both start their workers.
  cluster.objects[job_key()] = created;
  cluster.complete_jobs();
  ASSERT_TRUE(pass(reconciler, "h").ok());
  EXPECT_EQ(cluster.objects[cluster.deployment_key("DecodeWorker", "h")]["spec"]["replicas"], 1);
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
  EXPECT_EQ(cluster.objects[cluster.deployment_key("PrefillWorker")]["spec"]["replicas"], 0);
  EXPECT_EQ(cluster.objects[cluster.deployment_key("DecodeWorker")]["spec"]["replicas"], 0);
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
  EXPECT_EQ(cluster.applied_keys, (std::vector<std::string>{cluster.deployment_key("DecodeWorker"),
                                                            cluster.deployment_key("PrefillWorker")}));
  EXPECT_EQ(cluster.objects[cluster.deployment_key("DecodeWorker")]["spec"]["replicas"], 1);
  EXPECT_EQ((*condition(cluster.dgd(), kConditionModelCacheReady))["status"], "True");
  cluster.roll_out_all();
  ASSERT_TRUE(run().ok());
  EXPECT_EQ((*condition(cluster.dgd(), "Ready"))["status"], "True") << cluster.dgd()["status"].dump(2);
}

// The recipe pages run their own download Job first; when it records this model and
// revision in the cache, the DGD waits on it instead of downloading again.
TEST_F(DgdReconcilerTest, ADownloadRecordMadeOutsideTheOperatorIsWaitedOnNotDownloadedAgain) {
  cluster.objects.erase(job_key());
  const auto expanded = recipes::expand(recipes::Catalog::builtin(), api::from_json(user_dgd()).dgd);
  const ModelCacheSpec spec = *model_cache_spec(expanded.graph);
  json record = {{"apiVersion", "batch/v1"}, {"kind", "Job"},
                 {"metadata", {{"name", "model-download"}, {"namespace", "ns"}, {"uid", "record-uid"},
                               {"labels", {{render::kLabelModelCache, spec.claim}}},
                               {"annotations", {{kAnnotationModelId, spec.model},
                                                {kAnnotationModelRevision, spec.revision}}}}},
                 {"status", {{"succeeded", 1},
                             {"conditions", json::array({{{"type", "Complete"}, {"status", "True"}}})}}}};
  cluster.objects["batch/Job/ns/model-download"] = record;
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.objects.count(job_key()), 0u) << "no second download";
  EXPECT_EQ(cluster.objects[cluster.deployment_key("DecodeWorker")]["spec"]["replicas"], 1) << "not held back";
  const json* cache = condition(cluster.dgd(), kConditionModelCacheReady);
  ASSERT_NE(cache, nullptr);
  EXPECT_EQ((*cache)["status"], "True");
  EXPECT_NE((*cache)["message"].get<std::string>().find("model-download"), std::string::npos) << *cache;
  EXPECT_EQ(reconciler.dgds_using_job("ns", "model-download"), (std::vector<std::string>{"ns/g"}));
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
  EXPECT_EQ(cluster.objects[cluster.deployment_key("DecodeWorker")]["spec"]["replicas"], 0);
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
  EXPECT_EQ(cluster.objects[cluster.deployment_key("DecodeWorker")]["spec"]["replicas"], 0);
  EXPECT_EQ((*condition(cluster.dgd(), "Ready"))["reason"], kReasonWaitingForModelCache);
}

TEST_F(DgdReconcilerTest, NewRevisionNeverScalesDownTheWorkersThatServe) {
  settle();
  const json before = cluster.objects[cluster.deployment_key("DecodeWorker")];
  edit([](json& spec) { spec["model"] = {{"revision", "0123456789abcdef0123456789abcdef01234567"}}; });
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.keys_of("Job").size(), 2u);  // the old revision's record stays
  EXPECT_EQ(cluster.objects[cluster.deployment_key("DecodeWorker")], before);
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
