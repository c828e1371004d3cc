#include "dgd/reconcile/worker_generations.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace dgd::reconcile {
namespace {

using nlohmann::json;

const char* kUid = "dgd-uid";

// A worker Deployment of DGD g for `component`, generation `hash` ("": made before
// generations), as render makes it (desired) or as the cache shows it (live).
json worker(const std::string& component, const std::string& hash, int replicas, int available = -1,
            const std::string& owner = kUid) {
  std::string name = "g-" + component;
  for (auto& ch : name) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  json labels = {{"nvidia.com/dynamo-component", component}, {"nvidia.com/dynamo-component-type", "prefill"}};
  if (!hash.empty()) {
    name += "-" + hash;
    labels["nvidia.com/dynamo-worker-hash"] = hash;
  }
  json d = {{"apiVersion", "apps/v1"},
            {"kind", "Deployment"},
            {"metadata",
             {{"name", name},
              {"namespace", "ns"},
              {"labels", labels},
              {"ownerReferences", json::array({{{"uid", owner}, {"controller", true}}})}}},
            {"spec",
             {{"replicas", replicas},
              {"strategy", {{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxSurge", "25%"}, {"maxUnavailable", "25%"}}}}}}}};
  if (available >= 0) d["status"] = {{"availableReplicas", available}};
  return d;
}

TEST(WorkerGenerations, DeploymentsMadeBeforeGenerationsServeUntilTheFirstGenerationDoes) {
  std::vector<json> desired = {worker("Prefill", "1234abcd", 1), worker("Decode", "1234abcd", 1)};
  std::vector<json> live = {worker("Prefill", "", 1, 1), worker("Decode", "", 1, 1),
                            worker("Other", "", 1, 1, "someone-else")};
  GenerationStep step = plan_worker_generations(desired, live, kUid, false);
  EXPECT_EQ(step.old_keys, (std::set<std::string>{"apps/Deployment/ns/g-decode", "apps/Deployment/ns/g-prefill"}));
  EXPECT_TRUE(step.remove.empty());
  EXPECT_TRUE(step.scale.empty());
  EXPECT_EQ(desired[0]["spec"]["replicas"], 1);
  EXPECT_EQ(step.deployment_of["Prefill"], "g-prefill-1234abcd");
  EXPECT_EQ(step.desired_of["Decode"], 1);
  EXPECT_TRUE(step.progress.in_progress);
  EXPECT_FALSE(step.progress.pending);
  EXPECT_EQ(step.progress.generation, "1234abcd");

  // The first generation serves: the Deployments made before it go, and only those.
  live.push_back(worker("Prefill", "1234abcd", 1, 1));
  live.push_back(worker("Decode", "1234abcd", 1, 1));
  step = plan_worker_generations(desired, live, kUid, false);
  std::vector<std::string> removed;
  for (const auto& o : step.remove) removed.push_back(o["metadata"]["name"]);
  EXPECT_EQ(removed, (std::vector<std::string>{"g-prefill", "g-decode"}));
}

TEST(WorkerGenerations, HeldBackTheNewGenerationIsPendingAndTheOldOneStays) {
  std::vector<json> desired = {worker("Prefill", "1234abcd", 4)};
  std::vector<json> live = {worker("Prefill", "aaaaaaaa", 4, 4)};
  GenerationStep step = plan_worker_generations(desired, live, kUid, true);
  EXPECT_TRUE(step.scale.empty());
  EXPECT_TRUE(step.progress.pending);
  desired = {worker("Prefill", "1234abcd", 4)};
  step = plan_worker_generations(desired, live, kUid, false);
  ASSERT_EQ(step.scale.size(), 1u);  // 25% of 4 may be unavailable
  EXPECT_EQ(step.scale[0].replicas, 3);
  EXPECT_EQ(desired[0]["spec"]["replicas"], 1);  // 25% of 4 may surge
}

TEST(RollingUpdateStatus, PhasesAsUpstreamReportsThem) {
  RolloutProgress rolling{true, false, "1234abcd", {"Prefill"}, {"Decode", "Prefill"}};
  RolloutProgress pending{true, true, "1234abcd", {}, {"Decode", "Prefill"}};
  RolloutProgress done{false, false, "1234abcd", {"Decode", "Prefill"}, {"Decode", "Prefill"}};
  const json in_progress = {{"phase", "InProgress"}, {"startTime", "T0"}};
  const json completed = {{"phase", "Completed"}, {"startTime", "T0"}, {"endTime", "T1"},
                          {"updatedComponents", {"Decode", "Prefill"}}};
  struct Row {
    const char* what;
    json previous;
    std::optional<RolloutProgress> progress;
    json want;
  } rows[] = {
      {"never rolled", json(), done, json()},
      {"a rollout starts", json(), rolling, {{"phase", "InProgress"}, {"startTime", "NOW"}, {"updatedComponents", {"Prefill"}}}},
      {"the new generation held back", json(), pending, {{"phase", "Pending"}, {"startTime", "NOW"}}},
      {"it goes on: the start stays", in_progress, rolling,
       {{"phase", "InProgress"}, {"startTime", "T0"}, {"updatedComponents", {"Prefill"}}}},
      {"it ends", in_progress, done,
       {{"phase", "Completed"}, {"startTime", "T0"}, {"endTime", "NOW"}, {"updatedComponents", {"Decode", "Prefill"}}}},
      {"ended before", completed, done, completed},
      {"the next one starts", completed, rolling,
       {{"phase", "InProgress"}, {"startTime", "NOW"}, {"updatedComponents", {"Prefill"}}}},
      {"a pass that did not plan", in_progress, std::nullopt, in_progress},
  };
  for (const auto& r : rows) EXPECT_EQ(rolling_update_status(r.previous, r.progress, "NOW"), r.want) << r.what;
}

}  // namespace
}  // namespace dgd::reconcile
