// Worker-generation rollouts through whole reconcile passes against the in-memory cluster:
// what is written to each generation's Deployments, and the status on the way.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>

#include "dgd/kube/clock.h"
#include "dgd/recipes/catalog.h"
#include "dgd/reconcile/dgd_reconciler.h"
#include "dgd/reconcile/worker_generations.h"
#include "fake_cluster.h"
#include "reconciler_fixture.h"

namespace dgd::reconcile {
namespace {

using nlohmann::json;
using namespace fake;

class WorkerRolloutTest : public ReconcilerFixture {
 protected:
  // The Deployment controller reporting `available` ready pods of Deployment `key`.
  void available(const std::string& key, int available) {
    cluster.edit_child(key, [&](json& d) {
      const int64_t r = d["spec"].value("replicas", int64_t{1});
      d["status"] = {{"observedGeneration", d["metadata"]["generation"]}, {"replicas", r}, {"updatedReplicas", r},
                     {"readyReplicas", available}, {"availableReplicas", available}};
    }, /*spec=*/false);
  }
  std::string phase() { return cluster.dgd()["status"].value("rollingUpdate", json::object()).value("phase", ""); }
  int applies_of(const std::string& key) {
    return static_cast<int>(std::count(cluster.applied_keys.begin(), cluster.applied_keys.end(), key));
  }
  int removes_of(const std::string& key) {
    return static_cast<int>(std::count(cluster.removed_keys.begin(), cluster.removed_keys.end(), key));
  }
  int scales_of(const std::string& key) {
    return static_cast<int>(std::count_if(cluster.scaled.begin(), cluster.scaled.end(),
                                          [&](const auto& s) { return s.first == key; }));
  }
};

void kv_dtype(json& spec, const std::string& dtype) {
  spec["components"] = json::array({{{"name", "PrefillWorker"}, {"engine", {{"kvCacheDtype", dtype}}}},
                                    {{"name", "DecodeWorker"}, {"engine", {{"kvCacheDtype", dtype}}}}});
}

TEST_F(WorkerRolloutTest, ANewGenerationServesBeforeTheOldOneGoesAndEachDeploymentIsWrittenAtMostTwice) {
  settle();
  const std::string old_prefill = cluster.deployment_key("PrefillWorker"), old_decode = cluster.deployment_key("DecodeWorker");
  const std::string frontend = cluster.deployment_key("Frontend");
  edit([](json& spec) { kv_dtype(spec, "auto"); });
  ASSERT_TRUE(run().ok());
  const std::string new_prefill = cluster.deployment_key("PrefillWorker"), new_decode = cluster.deployment_key("DecodeWorker");
  ASSERT_NE(new_prefill, old_prefill);
  ASSERT_NE(new_decode, old_decode);
  EXPECT_EQ(cluster.objects[new_prefill]["spec"]["replicas"], 1);
  EXPECT_EQ(cluster.objects[old_prefill]["spec"]["replicas"], 1);
  EXPECT_EQ(phase(), "InProgress");
  EXPECT_EQ((*condition(cluster.dgd(), "Ready"))["reason"], kReasonRollingUpdate);
  const json& decode_status = cluster.dgd()["status"]["components"]["DecodeWorker"];
  EXPECT_EQ(decode_status["componentNames"].size(), 2u) << decode_status.dump();
  EXPECT_EQ(decode_status["readyReplicas"], 1) << "the old generation's pod counts";

  // The new prefill serves, the new decode does not: the new generation is incomplete.
  available(new_prefill, 1);
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(removes_of(old_prefill) + removes_of(old_decode) + scales_of(old_prefill) + scales_of(old_decode), 0);
  available(new_decode, 1);
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(removes_of(old_prefill), 1);
  EXPECT_EQ(removes_of(old_decode), 1);
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(phase(), "Completed");
  EXPECT_EQ((*condition(cluster.dgd(), "Ready"))["status"], "True");
  EXPECT_EQ(cluster.dgd()["status"]["rollingUpdate"]["updatedComponents"],
            (json{"DecodeWorker", "PrefillWorker"}));
  EXPECT_EQ(applies_of(new_prefill), 1);
  EXPECT_EQ(applies_of(new_decode), 1);
  EXPECT_EQ(applies_of(frontend), 0);
  EXPECT_LE(applies_of(old_prefill) + scales_of(old_prefill) + removes_of(old_prefill), 2);
  EXPECT_LE(applies_of(old_decode) + scales_of(old_decode) + removes_of(old_decode), 2);
  cluster.reset_counts();
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.writes(), 0) << "at rest after the rollout";
}

TEST_F(WorkerRolloutTest, DeploymentsMadeBeforeGenerationsAreRolledWithoutDroppingCapacity) {
  settle();
  // What an operator without generations left: `<dgd>-<component>`, no hash label.
  for (const char* component : {"PrefillWorker", "DecodeWorker"}) {
    const std::string key = cluster.deployment_key(component);
    json d = cluster.objects[key];
    cluster.objects.erase(key);
    std::string name = d["metadata"]["name"];
    name = name.substr(0, name.size() - 9);
    d["metadata"]["name"] = name;
    d["metadata"]["labels"].erase("nvidia.com/dynamo-worker-hash");
    cluster.objects["apps/Deployment/ns/" + name] = d;
  }
  reconciler.forget_memo("ns/g");
  ASSERT_TRUE(run().ok());
  EXPECT_TRUE(cluster.objects.count("apps/Deployment/ns/g-prefillworker"));
  EXPECT_TRUE(cluster.objects.count("apps/Deployment/ns/g-decodeworker"));
  EXPECT_EQ(cluster.removes, 0);
  EXPECT_EQ(phase(), "InProgress");
  cluster.roll_out_all();
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.removed_keys, (std::vector<std::string>{"apps/Deployment/ns/g-decodeworker",
                                                            "apps/Deployment/ns/g-prefillworker"}));
}

TEST_F(WorkerRolloutTest, RevertingMidRolloutNeverTouchesTheServingGeneration) {
  settle();
  const std::string serving_prefill = cluster.deployment_key("PrefillWorker");
  const std::string serving_decode = cluster.deployment_key("DecodeWorker");
  const json original = cluster.dgd()["spec"];
  edit([](json& spec) { kv_dtype(spec, "auto"); });
  ASSERT_TRUE(run().ok());
  const std::string next_prefill = cluster.deployment_key("PrefillWorker");
  ASSERT_NE(next_prefill, serving_prefill);
  edit([&](json& spec) { spec = original; });
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(removes_of(next_prefill), 1);
  for (const auto& key : {serving_prefill, serving_decode}) {
    EXPECT_EQ(applies_of(key) + scales_of(key) + removes_of(key), 0) << key;
    EXPECT_EQ(cluster.objects[key]["spec"]["replicas"], 1) << key;
  }
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(phase(), "Completed");
  EXPECT_EQ((*condition(cluster.dgd(), "Ready"))["status"], "True");
}

TEST_F(WorkerRolloutTest, AFrontendChangeRollsInPlace) {
  settle();
  const std::string frontend = cluster.deployment_key("Frontend");
  edit([](json& spec) {
    spec["components"] = json::array({{{"name", "Frontend"}, {"env", json::array({{{"name", "X"}, {"value", "1"}}})}}});
  });
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.applied_keys, std::vector<std::string>{frontend});
  EXPECT_FALSE(cluster.dgd()["status"].contains("rollingUpdate"));
}

}  // namespace
}  // namespace dgd::reconcile
