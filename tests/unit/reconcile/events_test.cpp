// The Event recorder: each event once per DGD generation, and nothing kept of a DGD past
// its latest generation or its deletion.
#include "dgd/reconcile/events.h"

#include <gtest/gtest.h>

#include "fake_cluster.h"

namespace dgd::reconcile {
namespace {

using nlohmann::json;
using namespace fake;

json dgd_named(const std::string& name, const std::string& uid, int64_t generation) {
  json d = user_dgd();
  d["metadata"]["name"] = name;
  d["metadata"]["uid"] = uid;
  d["metadata"]["generation"] = generation;
  return d;
}

TEST(EventRecorder, AnEventIsSentOncePerGenerationAndAgainForTheNextOne) {
  FakeCluster cluster;
  EventRecorder events(cluster, "test");
  const json g1 = dgd_named("g", "u1", 1);
  EXPECT_TRUE(events.record(g1, "Warning", kReasonInvalidSpec, "spec.x: bad"));
  EXPECT_FALSE(events.record(g1, "Warning", kReasonInvalidSpec, "spec.x: bad"));
  EXPECT_TRUE(events.record(g1, "Warning", kReasonInvalidSpec, "spec.y: bad")) << "another message";
  const json g2 = dgd_named("g", "u1", 2);
  EXPECT_TRUE(events.record(g2, "Warning", kReasonInvalidSpec, "spec.x: bad"));
  EXPECT_FALSE(events.record(g2, "Warning", kReasonInvalidSpec, "spec.x: bad"));
  EXPECT_EQ(cluster.events.size(), 3u);
}

TEST(EventRecorder, ADgdRecreatedUnderTheSameNameIsANewOne) {
  FakeCluster cluster;
  EventRecorder events(cluster, "test");
  EXPECT_TRUE(events.record(dgd_named("g", "u1", 1), "Normal", kReasonRolloutComplete, "done"));
  EXPECT_TRUE(events.record(dgd_named("g", "u2", 1), "Normal", kReasonRolloutComplete, "done"));
  EXPECT_EQ(events.remembered_dgds(), 1u);
}

TEST(EventRecorder, ForgettingADgdDropsAllItRemembersOfIt) {
  FakeCluster cluster;
  EventRecorder events(cluster, "test");
  for (int i = 0; i < 5; ++i) {
    events.record(dgd_named("g" + std::to_string(i), "u" + std::to_string(i), 1), "Normal", kReasonChildCreated, "c");
  }
  EXPECT_EQ(events.remembered_dgds(), 5u);
  for (int i = 0; i < 5; ++i) events.forget("ns/g" + std::to_string(i));
  EXPECT_EQ(events.remembered_dgds(), 0u);
  EXPECT_TRUE(events.record(dgd_named("g0", "u0", 1), "Normal", kReasonChildCreated, "c")) << "forgotten: sent again";
}

}  // namespace
}  // namespace dgd::reconcile
