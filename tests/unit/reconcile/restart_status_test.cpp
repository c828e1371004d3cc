// status.restart in the written status: set by a pass that planned it, kept by one that
// did not, and a change of it is written at once (a transition, not paced progress).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "dgd/reconcile/status.h"

namespace dgd::reconcile {
namespace {

using nlohmann::json;

const json kRestarting = {{"observedID", "r1"}, {"phase", "Restarting"}, {"inProgress", {"Frontend"}}};

TEST(RestartStatus, APassThatDecidedItWritesIt) {
  StatusInput in;
  in.restart = kRestarting;
  EXPECT_EQ(compute_status(in)["restart"], kRestarting);
  in.restart = json();  // decided: none
  EXPECT_FALSE(compute_status(in).contains("restart"));
}

TEST(RestartStatus, APassThatDidNotPlanKeepsTheLiveOne) {
  const json live = {{"observedGeneration", 3}, {"restart", kRestarting}};
  StatusInput in;
  in.previous_status = &live;
  EXPECT_EQ(compute_status(in)["restart"], kRestarting);
}

TEST(RestartStatus, AMoveOfTheRestartIsATransition) {
  StatusInput in;
  in.generation = 3;
  in.restart = kRestarting;
  const json before = compute_status(in);
  EXPECT_FALSE(status_transition(&before, before));
  in.restart = json{{"observedID", "r1"}, {"phase", "Restarting"}, {"inProgress", {"PrefillWorker"}}};
  EXPECT_TRUE(status_transition(&before, compute_status(in)));
  in.restart = json{{"observedID", "r1"}, {"phase", "Completed"}};
  EXPECT_TRUE(status_transition(&before, compute_status(in)));
}

}  // namespace
}  // namespace dgd::reconcile
