// Reading cached objects through projections: the fields a reader needs, whatever the
// order of keys in the cached text.
#include "dgd/reconcile/cached_view.h"

#include <gtest/gtest.h>

#include <functional>

#include "dgd/reconcile/placement_status.h"

namespace dgd::reconcile {
namespace {

using nlohmann::json;

// A DGD as an API server writes it: "type" before "status" in its conditions, and
// metadata after spec (not nlohmann's sorted order).
constexpr const char* kServerOrder =
    R"({"apiVersion":"nvidia.com/v1beta1","kind":"DynamoGraphDeployment","spec":{"recipe":"r"},)"
    R"("metadata":{"name":"g","namespace":"ns","uid":"u","generation":1,"resourceVersion":"5"},)"
    R"("status":{"conditions":[{"type":"Ready","status":"True"},{"type":"Placement","status":"True",)"
    R"("reason":"Placed"}]}})";

TEST(CachedView, AHeadKeepsMetadataAndStatusAndDropsTheSpec) {
  auto head = read_projected(kServerOrder, dgd_head_fields());
  ASSERT_TRUE(head);
  EXPECT_FALSE(head->contains("spec"));
  EXPECT_EQ((*head)["metadata"]["uid"], "u");
  EXPECT_EQ((*head)["status"]["conditions"].size(), 2u);
  EXPECT_FALSE(read_projected("[1]", dgd_head_fields()));
  EXPECT_FALSE(read_projected("{\"a\":", dgd_head_fields()));
}

TEST(CachedView, PlacementPendingDoesNotDependOnKeyOrder) {
  auto conditions = read_projected(kServerOrder, dgd_conditions_fields());
  ASSERT_TRUE(conditions);
  EXPECT_FALSE(placement_pending(*conditions)) << "Placement is True";
  std::string pending = kServerOrder;
  const std::string placed = R"("type":"Placement","status":"True")";
  pending.replace(pending.find(placed), placed.size(), R"("type":"Placement","status":"False")");
  auto pending_conditions = read_projected(pending, dgd_conditions_fields());
  ASSERT_TRUE(pending_conditions);
  EXPECT_TRUE(placement_pending(*pending_conditions));
}

TEST(CachedView, AChildStatusViewKeepsReplicasBackoffLimitAndStatusNotTheTemplate) {
  const json job = {{"apiVersion", "batch/v1"}, {"kind", "Job"}, {"metadata", {{"name", "j"}}},
                    {"spec", {{"backoffLimit", 3}, {"template", {{"spec", {{"containers", json::array()}}}}}}},
                    {"status", {{"active", 1}}}};
  auto view = read_projected(job.dump(), child_status_fields());
  ASSERT_TRUE(view);
  EXPECT_EQ((*view)["spec"], json({{"backoffLimit", 3}}));
  EXPECT_EQ((*view)["status"], job["status"]);
}

TEST(ChangedOutsideStatus, TheEchoOfAStatusWriteIsNotAChangeAnythingElseIs) {
  json before = json::parse(kServerOrder);
  json echo = before;
  echo["status"]["observedGeneration"] = 2;
  echo["metadata"]["resourceVersion"] = "7";
  EXPECT_FALSE(changed_outside_status(before.dump(), echo.dump()));
  EXPECT_FALSE(changed_outside_status(kServerOrder, echo.dump())) << "key order is not a change";
  auto changed = [&](const std::function<void(json&)>& fn) {
    json after = echo;
    fn(after);
    return changed_outside_status(before.dump(), after.dump());
  };
  EXPECT_FALSE(changed([](json& d) { d.erase("status"); }));
  EXPECT_TRUE(changed([](json& d) { d["spec"]["recipe"] = "other"; }));
  EXPECT_TRUE(changed([](json& d) { d["metadata"]["generation"] = 2; }));
  EXPECT_TRUE(changed([](json& d) { d["metadata"]["labels"] = {{"team", "a"}}; }));
  EXPECT_TRUE(changed([](json& d) { d["metadata"]["annotations"] = {{"a", "b"}}; }));
  EXPECT_TRUE(changed([](json& d) { d["metadata"]["deletionTimestamp"] = "2026-11-30T00:00:00Z"; }));
  EXPECT_TRUE(changed([](json& d) { d["metadata"].erase("uid"); }));
  EXPECT_TRUE(changed([](json& d) { d.erase("spec"); }));
  EXPECT_TRUE(changed_outside_status("not json", echo.dump()));
  EXPECT_TRUE(changed_outside_status(echo.dump(), "[1]"));
}

}  // namespace
}  // namespace dgd::reconcile
