#include "dgd/reconcile/status.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace dgd::reconcile {
namespace {

using nlohmann::json;

// A Deployment as the Deployment controller reports it.
json deployment(const std::string& name, int64_t gen, int64_t observed, int replicas, int updated,
                int ready, int available) {
  return json{{"metadata", {{"name", name}, {"generation", gen}}},
              {"spec", {{"replicas", replicas}}},
              {"status",
               {{"observedGeneration", observed},
                {"replicas", replicas},
                {"updatedReplicas", updated},
                {"readyReplicas", ready},
                {"availableReplicas", available}}}};
}

const json* condition(const json& status, const std::string& type) {
  for (const auto& c : status["conditions"]) {
    if (c["type"] == type) return &c;
  }
  return nullptr;
}

TEST(RolloutState, ReadyOnlyWhenEveryReplicaRunsTheNewTemplate) {
  EXPECT_TRUE(rollout_state(deployment("d", 2, 2, 2, 2, 2, 2), 2).ready);
  // The controller has not seen the new template yet: old pods are all ready.
  auto s = rollout_state(deployment("d", 3, 2, 2, 2, 2, 2), 2);
  EXPECT_FALSE(s.ready);
  EXPECT_NE(s.reason.find("observe"), std::string::npos);
  // Surge pod of the new template not ready; old pods still serving.
  json surge = deployment("d", 3, 3, 3, 1, 2, 2);
  EXPECT_FALSE(rollout_state(surge, 2).ready);
  EXPECT_EQ(rollout_state(surge, 2).reason, "1 of 2 replicas updated");
  // All updated, one old replica still terminating.
  json old_left = deployment("d", 3, 3, 3, 2, 3, 3);
  EXPECT_EQ(rollout_state(old_left, 2).reason, "1 old replicas pending termination");
  // All updated but one not available.
  EXPECT_EQ(rollout_state(deployment("d", 3, 3, 2, 2, 1, 1), 2).reason,
            "1 of 2 updated replicas available");
}

TEST(RolloutState, ProgressDeadlineIsReported) {
  json d = deployment("d", 1, 1, 1, 1, 0, 0);
  d["status"]["conditions"] = json::array(
      {{{"type", "Progressing"}, {"status", "False"}, {"reason", "ProgressDeadlineExceeded"}}});
  EXPECT_EQ(rollout_state(d, 1).reason, "rollout exceeded its progress deadline");
}

TEST(RolloutState, ZeroReplicasIsReadyOnceScaledDown) {
  EXPECT_TRUE(rollout_state(deployment("d", 1, 1, 0, 0, 0, 0), 0).ready);
  EXPECT_FALSE(rollout_state(deployment("d", 2, 2, 1, 0, 1, 1), 0).ready);
}

TEST(ComputeStatus, ReadyWhenAllComponentsRolledOut) {
  json fe = deployment("g-frontend", 1, 1, 1, 1, 1, 1);
  json dec = deployment("g-decode", 1, 1, 2, 2, 2, 2);
  StatusInput in;
  in.generation = 4;
  in.now = "2026-11-30T00:00:00Z";
  in.components = {{"Frontend", "frontend", 1, &fe, true}, {"Decode", "decode", 2, &dec, true}};
  json st = compute_status(in);
  EXPECT_EQ(st["observedGeneration"], 4);
  EXPECT_EQ(st["state"], "successful");
  const json* ready = condition(st, "Ready");
  ASSERT_NE(ready, nullptr);
  EXPECT_EQ((*ready)["status"], "True");
  EXPECT_EQ((*ready)["observedGeneration"], 4);
  EXPECT_EQ(st["components"]["Decode"]["readyReplicas"], 2);
  EXPECT_EQ(st["components"]["Decode"]["componentNames"][0], "g-decode");
}

TEST(ComputeStatus, NotReadyWhileTheNewTemplateIsNotApplied) {
  // The live Deployment is fully rolled out, but on the old template.
  json dec = deployment("g-decode", 1, 1, 2, 2, 2, 2);
  StatusInput in;
  in.generation = 2;
  in.now = "t";
  in.components = {{"Decode", "decode", 2, &dec, false}};
  json st = compute_status(in);
  EXPECT_EQ((*condition(st, "Ready"))["status"], "False");
  EXPECT_EQ((*condition(st, "Ready"))["reason"], "RolloutInProgress");
  EXPECT_EQ(st["state"], "pending");
}

TEST(ComputeStatus, UnreadyPodNamesTheComponent) {
  json fe = deployment("g-frontend", 1, 1, 1, 1, 1, 1);
  json pre = deployment("g-prefill", 1, 1, 2, 2, 1, 1);
  StatusInput in;
  in.generation = 1;
  in.now = "t";
  in.components = {{"Frontend", "frontend", 1, &fe, true}, {"Prefill", "prefill", 2, &pre, true}};
  json st = compute_status(in);
  const json& ready = *condition(st, "Ready");
  EXPECT_EQ(ready["status"], "False");
  EXPECT_EQ(ready["reason"], "ComponentsNotReady");
  EXPECT_EQ(ready["message"], "Prefill: 1 of 2 updated replicas available");
}

TEST(ComputeStatus, MissingDeploymentIsInitializing) {
  StatusInput in;
  in.generation = 1;
  in.now = "t";
  in.components = {{"Frontend", "frontend", 1, nullptr, false}};
  json st = compute_status(in);
  EXPECT_EQ(st["state"], "initializing");
  EXPECT_EQ((*condition(st, "Ready"))["message"], "Frontend: Deployment not created yet");
}

TEST(ComputeStatus, InvalidSpecReportsPathsAndKeepsServingCounts) {
  json fe = deployment("g-frontend", 1, 1, 1, 1, 1, 1);
  StatusInput in;
  in.generation = 3;
  in.now = "t";
  in.components = {{"Frontend", "frontend", 1, &fe, true}};
  in.spec_errors = {"spec.components[1].engine.eplb: requires expertParallel"};
  json st = compute_status(in);
  EXPECT_EQ(st["state"], "failed");
  EXPECT_EQ((*condition(st, "SpecValid"))["status"], "False");
  EXPECT_EQ((*condition(st, "SpecValid"))["message"],
            "spec.components[1].engine.eplb: requires expertParallel");
  EXPECT_EQ((*condition(st, "Ready"))["status"], "False");
  EXPECT_EQ(st["components"]["Frontend"]["readyReplicas"], 1);
}

TEST(ComputeStatus, SteadyStateIsUnchangedSoNothingIsWritten) {
  json fe = deployment("g-frontend", 1, 1, 1, 1, 1, 1);
  StatusInput in;
  in.generation = 1;
  in.now = "2026-11-30T00:00:00Z";
  in.components = {{"Frontend", "frontend", 1, &fe, true}};
  json first = compute_status(in);
  in.previous_status = &first;
  in.now = "2026-11-30T01:00:00Z";  // later reconcile, same world
  json second = compute_status(in);
  EXPECT_FALSE(status_changed(first, second));
  EXPECT_EQ((*condition(second, "Ready"))["lastTransitionTime"], "2026-11-30T00:00:00Z");
}

TEST(StatusTransition, CountsAndMessagesAreProgressStatusFlipsAndGenerationsAreNot) {
  json half = deployment("g-frontend", 1, 1, 2, 2, 1, 1);
  StatusInput in;
  in.generation = 1;
  in.now = "2026-11-30T00:00:00Z";
  in.components = {{"Frontend", "frontend", 2, &half, true}};
  json first = compute_status(in);
  EXPECT_TRUE(status_transition(nullptr, first));  // no status yet: write at once

  // One more pod available: the counts and the Ready message change, Ready stays False.
  json more = deployment("g-frontend", 1, 1, 2, 2, 2, 1);
  in.components[0].deployment = &more;
  in.previous_status = &first;
  json progress = compute_status(in);
  ASSERT_TRUE(status_changed(first, progress));
  EXPECT_FALSE(status_transition(&first, progress));

  // A condition computed elsewhere appearing as Unknown is progress; as False, a problem
  // shown at once.
  in.extra_conditions = {{"Placement", "Unknown", "Scheduling", "pods are being scheduled"}};
  json scheduling = compute_status(in);
  EXPECT_FALSE(status_transition(&progress, scheduling));
  in.extra_conditions = {{"Placement", "False", "Unschedulable", "no node"}};
  json unplaced = compute_status(in);
  EXPECT_TRUE(status_transition(&progress, unplaced));
  EXPECT_TRUE(status_transition(&scheduling, unplaced));
  // Its message alone changing is progress, and so is it turning True (Ready is what
  // tools wait for).
  in.previous_status = &unplaced;
  in.extra_conditions = {{"Placement", "False", "Unschedulable", "no node with 4 free GPUs"}};
  EXPECT_FALSE(status_transition(&unplaced, compute_status(in)));
  in.extra_conditions = {{"Placement", "True", "AllPodsBound", "every pod is bound"}};
  json placed = compute_status(in);
  EXPECT_FALSE(status_transition(&unplaced, placed));
  // True turning False again is shown at once.
  in.previous_status = &placed;
  in.extra_conditions = {{"Placement", "False", "Unschedulable", "node lost"}};
  EXPECT_TRUE(status_transition(&placed, compute_status(in)));

  // Ready turning True is written at once.
  json done = deployment("g-frontend", 1, 1, 2, 2, 2, 2);
  in.extra_conditions.clear();
  in.previous_status = &progress;
  in.components[0].deployment = &done;
  EXPECT_TRUE(status_transition(&progress, compute_status(in)));

  // A new generation observed is written at once, even when the conditions look alike.
  in.components[0].deployment = &more;
  in.generation = 2;
  EXPECT_TRUE(status_transition(&progress, compute_status(in)));
}

TEST(ComputeStatus, TransitionTimeMovesWhenStatusFlips) {
  json fe = deployment("g-frontend", 1, 1, 1, 1, 1, 1);
  StatusInput in;
  in.generation = 1;
  in.now = "2026-11-30T00:00:00Z";
  in.components = {{"Frontend", "frontend", 1, &fe, true}};
  json first = compute_status(in);
  json unready = deployment("g-frontend", 1, 1, 1, 1, 0, 0);
  in.components[0].deployment = &unready;
  in.previous_status = &first;
  in.now = "2026-11-30T02:00:00Z";
  json second = compute_status(in);
  EXPECT_TRUE(status_changed(first, second));
  EXPECT_EQ((*condition(second, "Ready"))["lastTransitionTime"], "2026-11-30T02:00:00Z");
  // SpecValid did not flip: its time stays.
  EXPECT_EQ((*condition(second, "SpecValid"))["lastTransitionTime"], "2026-11-30T00:00:00Z");
}

TEST(ComputeStatus, ExtraConditionsAreCarried) {
  StatusInput in;
  in.generation = 1;
  in.now = "t";
  in.extra_conditions = {{"Placement", "False", "Unschedulable", "decode: no node with 4 free nvidia.com/gpu"}};
  json st = compute_status(in);
  const json* p = condition(st, "Placement");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ((*p)["message"], "decode: no node with 4 free nvidia.com/gpu");
}

}  // namespace
}  // namespace dgd::reconcile
