#include "dgd/reconcile/child_plan.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace dgd::reconcile {
namespace {

using nlohmann::json;

json dgd() {
  return {{"apiVersion", "nvidia.com/v1beta1"},
          {"kind", "DynamoGraphDeployment"},
          {"metadata", {{"name", "g"}, {"namespace", "ns"}, {"uid", "uid-1"}}}};
}

json child(const std::string& kind, const std::string& name, const std::string& owner_uid = "",
           int replicas = 1) {
  json c = {{"apiVersion", kind == "Service" ? "v1" : "apps/v1"},
            {"kind", kind},
            {"metadata", {{"name", name}, {"namespace", "ns"}}},
            {"spec", {{"replicas", replicas}}}};
  if (!owner_uid.empty()) {
    c["metadata"]["ownerReferences"] =
        json::array({{{"uid", owner_uid}, {"controller", true}, {"kind", "DynamoGraphDeployment"}}});
  }
  return c;
}

// Equality of spec stands in for the real field-by-field check here.
bool same_spec(const json& live, const json& desired) { return live["spec"] == desired["spec"]; }

TEST(ObjectKey, IncludesGroupKindNamespaceName) {
  EXPECT_EQ(object_key(child("Deployment", "g-frontend")), "apps/Deployment/ns/g-frontend");
  EXPECT_EQ(object_key(child("Service", "g-frontend")), "/Service/ns/g-frontend");
}

TEST(SetControllerOwner, ReplacesPlaceholderAndKeepsOtherOwners) {
  json c = child("Deployment", "g-frontend");
  c["metadata"]["ownerReferences"] = json::array(
      {{{"uid", ""}, {"controller", true}}, {{"uid", "other"}, {"kind", "ConfigMap"}}});
  set_controller_owner(c, dgd());
  const auto& refs = c["metadata"]["ownerReferences"];
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0]["uid"], "other");
  EXPECT_EQ(refs[1]["uid"], "uid-1");
  EXPECT_EQ(refs[1]["controller"], true);
  EXPECT_EQ(refs[1]["blockOwnerDeletion"], true);
  EXPECT_EQ(refs[1]["kind"], "DynamoGraphDeployment");
  EXPECT_TRUE(is_controlled_by(c, "uid-1"));
  EXPECT_FALSE(is_controlled_by(c, "uid-2"));
}

TEST(PlanChildren, SteadyStateWritesNothing) {
  std::vector<json> desired = {child("Deployment", "g-a"), child("Service", "g-a")};
  json l1 = child("Deployment", "g-a", "uid-1"), l2 = child("Service", "g-a", "uid-1");
  auto plan = plan_children(desired, {&l1, &l2}, "uid-1", same_spec);
  EXPECT_TRUE(plan.apply.empty());
  EXPECT_TRUE(plan.remove.empty());
  EXPECT_EQ(plan.unchanged, 2u);
}

TEST(PlanChildren, MissingAndDriftedChildrenAreApplied) {
  std::vector<json> desired = {child("Deployment", "g-a", "", 2), child("Service", "g-a")};
  json drifted = child("Deployment", "g-a", "uid-1", 1);
  auto plan = plan_children(desired, {&drifted}, "uid-1", same_spec);
  ASSERT_EQ(plan.apply.size(), 2u);
  EXPECT_EQ((*plan.apply[0])["spec"]["replicas"], 2);
}

TEST(PlanChildren, RemovedComponentIsPruned) {
  std::vector<json> desired = {child("Deployment", "g-a")};
  json keep = child("Deployment", "g-a", "uid-1");
  json stale = child("Deployment", "g-b", "uid-1");
  auto plan = plan_children(desired, {&keep, &stale}, "uid-1", same_spec);
  ASSERT_EQ(plan.remove.size(), 1u);
  EXPECT_EQ((*plan.remove[0])["metadata"]["name"], "g-b");
}

TEST(PlanChildren, NeverDeletesWhatItDoesNotControl) {
  std::vector<json> desired;
  json foreign = child("Deployment", "g-x", "someone-else");
  json unowned = child("Deployment", "g-y");
  auto plan = plan_children(desired, {&foreign, &unowned}, "uid-1", same_spec);
  EXPECT_TRUE(plan.remove.empty());
}

TEST(PlanChildren, NameTakenByForeignObjectIsStillApplied) {
  std::vector<json> desired = {child("Deployment", "g-a", "uid-1")};
  json foreign = child("Deployment", "g-a", "someone-else");
  auto plan = plan_children(desired, {&foreign}, "uid-1", same_spec);
  EXPECT_EQ(plan.apply.size(), 1u);
}

TEST(PlanChildren, UnownedDesiredObjectIsInPlaceWhenItHolds) {
  // A kept model-cache PVC has no owner: whoever created it, it is not re-applied.
  std::vector<json> desired = {child("PersistentVolumeClaim", "cache")};
  json live = child("PersistentVolumeClaim", "cache", "other-dgd");
  auto plan = plan_children(desired, {&live}, "uid-1", same_spec);
  EXPECT_TRUE(plan.apply.empty());
  EXPECT_EQ(plan.unchanged, 1u);
  live["spec"]["replicas"] = 5;
  EXPECT_EQ(plan_children(desired, {&live}, "uid-1", same_spec).apply.size(), 1u);
}

TEST(PlanChildren, TerminatingChildIsWaitedFor) {
  std::vector<json> desired = {child("Deployment", "g-a")};
  json going = child("Deployment", "g-a", "uid-1");
  going["metadata"]["deletionTimestamp"] = "2026-11-30T00:00:00Z";
  auto plan = plan_children(desired, {&going}, "uid-1", same_spec);
  EXPECT_TRUE(plan.apply.empty());
  EXPECT_EQ(plan.terminating, 1u);
  // A terminating stale child is not deleted twice.
  std::vector<json> none;
  EXPECT_TRUE(plan_children(none, {&going}, "uid-1", same_spec).remove.empty());
}

}  // namespace
}  // namespace dgd::reconcile
