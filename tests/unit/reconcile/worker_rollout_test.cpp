#include "dgd/reconcile/worker_rollout.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace dgd::reconcile {
namespace {

using nlohmann::json;

json strategy(json surge, json unavailable) {
  return json{{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxSurge", surge}, {"maxUnavailable", unavailable}}}};
}

TEST(RolloutBounds, PercentagesOfTheDesiredReplicasSurgeUpUnavailableDown) {
  struct Row {
    json strategy;
    int32_t desired, surge, unavailable;
  } rows[] = {
      {strategy("25%", "25%"), 1, 1, 0},  {strategy("25%", "25%"), 4, 1, 1},
      {strategy("25%", "25%"), 10, 3, 2}, {strategy(2, 1), 10, 2, 1},
      {strategy(0, 0), 3, 1, 0},          // both zero: maxSurge 1 (upstream's rule)
      {strategy(0, "100%"), 3, 0, 3},     // Recreate as render writes it
      {json(), 8, 2, 2},                  // absent: Kubernetes' 25%
      {strategy("x%", "-1"), 8, 2, 2},    // unreadable: the default too
  };
  for (const auto& r : rows) {
    const RolloutBounds b = rollout_bounds(r.strategy, r.desired);
    EXPECT_EQ(b.max_surge, r.surge) << r.strategy.dump() << " desired " << r.desired;
    EXPECT_EQ(b.max_unavailable, r.unavailable) << r.strategy.dump() << " desired " << r.desired;
  }
}

const RolloutBounds kOneReplicaDefault{1, 0};  // 25% / 25% of one replica

DesiredWorker worker(const std::string& c, int32_t desired, int32_t replicas, int32_t available,
                     RolloutBounds b = kOneReplicaDefault) {
  return DesiredWorker{c, desired, replicas, available, b};
}

OldWorker old(const std::string& gen, const std::string& c, int32_t replicas, int32_t available,
              const std::string& created = "2026-01-01T00:00:00Z", bool terminating = false) {
  return OldWorker{gen + "/" + c, gen, c, replicas, available, terminating, created};
}

// One prefill and one decode replica, default bounds: each step of a rollout, as the
// caches show it, and the targets the step must give.
TEST(RolloutTargets, OnePrefillOneDecodeNeverLosesACompleteGeneration) {
  struct Step {
    const char* what;
    int32_t new_prefill_replicas, new_prefill_available, new_decode_replicas, new_decode_available;
    int32_t want_new_prefill, want_new_decode, want_old_prefill, want_old_decode;
  } steps[] = {
      {"the new generation is created beside the old one", 0, 0, 0, 0, 1, 1, 1, 1},
      {"new pods not ready yet: the old generation serves", 1, 0, 1, 0, 1, 1, 1, 1},
      {"only the new prefill is ready: the new generation is incomplete", 1, 1, 1, 0, 1, 1, 1, 1},
      {"only the new decode is ready", 1, 0, 1, 1, 1, 1, 1, 1},
      {"the new generation is complete: the old one goes", 1, 1, 1, 1, 1, 1, 0, 0},
  };
  for (const auto& s : steps) {
    RolloutInput in;
    in.workers = {worker("Prefill", 1, s.new_prefill_replicas, s.new_prefill_available),
                  worker("Decode", 1, s.new_decode_replicas, s.new_decode_available)};
    in.old = {old("aaaaaaaa", "Prefill", 1, 1), old("aaaaaaaa", "Decode", 1, 1)};
    const RolloutTargets t = rollout_targets(in);
    EXPECT_TRUE(t.in_progress) << s.what;
    EXPECT_EQ(t.new_replicas.at("Prefill"), s.want_new_prefill) << s.what;
    EXPECT_EQ(t.new_replicas.at("Decode"), s.want_new_decode) << s.what;
    EXPECT_EQ(t.old_replicas.at("aaaaaaaa/Prefill"), s.want_old_prefill) << s.what;
    EXPECT_EQ(t.old_replicas.at("aaaaaaaa/Decode"), s.want_old_decode) << s.what;
  }
}

TEST(RolloutTargets, NoSurgeTakesOnePodDownAtATimeAndKeepsTheRestUntilTheNewGenerationServes) {
  const RolloutBounds no_surge{0, 1};
  struct Step {
    const char* what;
    int32_t old_replicas, old_available, new_replicas, new_available;
    int32_t want_new, want_old;
  } steps[] = {
      {"start: one old pod may go, no new pod yet", 2, 2, 0, 0, 0, 1},
      {"one old pod gone: one new pod", 1, 1, 0, 0, 1, 1},
      {"the new pod is not ready: the last old pod stays", 1, 1, 1, 0, 1, 1},
      {"the new pod is ready: the last old pod goes", 1, 1, 1, 1, 1, 0},
  };
  for (const auto& s : steps) {
    RolloutInput in;
    in.workers = {worker("Decode", 2, s.new_replicas, s.new_available, no_surge),
                  worker("Prefill", 1, 1, 1)};
    in.old = {old("aaaaaaaa", "Decode", s.old_replicas, s.old_available)};
    const RolloutTargets t = rollout_targets(in);
    EXPECT_EQ(t.new_replicas.at("Decode"), s.want_new) << s.what;
    EXPECT_EQ(t.old_replicas.at("aaaaaaaa/Decode"), s.want_old) << s.what;
  }
}

TEST(RolloutTargets, RecreateRemovesTheOldGenerationFirstAndStartsTheNewOneWhenItIsGone) {
  const RolloutBounds recreate{0, 2};
  RolloutInput in;
  in.workers = {worker("Worker", 2, 0, 0, recreate)};
  in.old = {old("aaaaaaaa", "Worker", 2, 2)};
  RolloutTargets t = rollout_targets(in);
  EXPECT_EQ(t.new_replicas.at("Worker"), 0);
  EXPECT_EQ(t.old_replicas.at("aaaaaaaa/Worker"), 0);
  // Being deleted: still there, so the new generation still waits.
  in.old = {old("aaaaaaaa", "Worker", 2, 2, "2026-01-01T00:00:00Z", true)};
  t = rollout_targets(in);
  EXPECT_EQ(t.new_replicas.at("Worker"), 0);
  EXPECT_TRUE(t.in_progress);
  in.old.clear();
  t = rollout_targets(in);
  EXPECT_EQ(t.new_replicas.at("Worker"), 2);
  EXPECT_FALSE(t.in_progress);
}

TEST(RolloutTargets, RevertingMidRolloutKeepsTheServingGenerationAndDrainsTheOtherOne) {
  // Generation a served; b was rolling in (pods not ready); the spec is back to a: a is
  // the desired generation, b the old one.
  RolloutInput in;
  in.workers = {worker("Prefill", 1, 1, 1), worker("Decode", 1, 1, 1)};
  in.old = {old("bbbbbbbb", "Prefill", 1, 0), old("bbbbbbbb", "Decode", 1, 0)};
  const RolloutTargets t = rollout_targets(in);
  EXPECT_EQ(t.new_replicas.at("Prefill"), 1);
  EXPECT_EQ(t.new_replicas.at("Decode"), 1);
  EXPECT_EQ(t.old_replicas.at("bbbbbbbb/Prefill"), 0);
  EXPECT_EQ(t.old_replicas.at("bbbbbbbb/Decode"), 0);
}

TEST(RolloutTargets, WithTwoOldGenerationsTheOneThatServesKeepsItsPods) {
  // a serves (both ready), b never became complete (decode not ready), c is desired.
  RolloutInput in;
  in.workers = {worker("Prefill", 1, 0, 0), worker("Decode", 1, 0, 0)};
  in.old = {old("aaaaaaaa", "Prefill", 1, 1, "2026-01-01T00:00:00Z"),
            old("aaaaaaaa", "Decode", 1, 1, "2026-01-01T00:00:00Z"),
            old("bbbbbbbb", "Prefill", 1, 1, "2026-01-02T00:00:00Z"),
            old("bbbbbbbb", "Decode", 1, 0, "2026-01-02T00:00:00Z")};
  const RolloutTargets t = rollout_targets(in);
  EXPECT_EQ(t.old_replicas.at("aaaaaaaa/Prefill"), 1);
  EXPECT_EQ(t.old_replicas.at("aaaaaaaa/Decode"), 1);
  EXPECT_EQ(t.old_replicas.at("bbbbbbbb/Prefill"), 0);
  EXPECT_EQ(t.old_replicas.at("bbbbbbbb/Decode"), 0);
  // No room for the surge pod while both old generations are there.
  EXPECT_EQ(t.new_replicas.at("Prefill"), 0);
}

TEST(RolloutTargets, HeldBackTheOldGenerationStaysAsItIs) {
  RolloutInput in;
  in.hold = true;
  in.workers = {worker("Decode", 4, 0, 0, RolloutBounds{1, 1})};
  in.old = {old("aaaaaaaa", "Decode", 4, 4)};
  EXPECT_EQ(rollout_targets(in).old_replicas.at("aaaaaaaa/Decode"), 4);
  in.hold = false;
  EXPECT_EQ(rollout_targets(in).old_replicas.at("aaaaaaaa/Decode"), 3);  // maxUnavailable 1
}

TEST(RolloutTargets, AComponentNoLongerInTheGraphServesUntilTheNewGenerationIsComplete) {
  RolloutInput in;
  in.workers = {worker("Worker", 1, 1, 0)};
  in.old = {old("aaaaaaaa", "Prefill", 1, 1), old("aaaaaaaa", "Decode", 1, 1)};
  EXPECT_EQ(rollout_targets(in).old_replicas.at("aaaaaaaa/Prefill"), 1);
  in.workers = {worker("Worker", 1, 1, 1)};
  const RolloutTargets t = rollout_targets(in);
  EXPECT_EQ(t.old_replicas.at("aaaaaaaa/Prefill"), 0);
  EXPECT_EQ(t.old_replicas.at("aaaaaaaa/Decode"), 0);
}

TEST(RolloutTargets, UpdatedComponentsHaveEveryReplicaAvailableAndNoOldDeploymentLeft) {
  RolloutInput in;
  in.workers = {worker("Prefill", 1, 1, 1), worker("Decode", 2, 2, 1, RolloutBounds{1, 0})};
  in.old = {old("aaaaaaaa", "Decode", 1, 1)};
  RolloutTargets t = rollout_targets(in);
  EXPECT_EQ(t.updated_components, std::vector<std::string>{"Prefill"});
  in.old.clear();
  in.workers[1].available = 2;
  t = rollout_targets(in);
  EXPECT_EQ(t.updated_components, (std::vector<std::string>{"Decode", "Prefill"}));
  EXPECT_FALSE(t.in_progress);
}

}  // namespace
}  // namespace dgd::reconcile
