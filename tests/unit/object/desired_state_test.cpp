// holds_desired: the operator's "skip the write" test. kube-sim checks the same cases
// against its own server-side apply (tests/unit/kubesim/apply_holds_desired_test.cpp).
#include "dgd/object/desired_state.h"

#include <gtest/gtest.h>

#include "unit/object/desired_state_cases.h"

namespace dgd::object {
namespace {

using nlohmann::json;
using desired_cases::deployment;
using desired_cases::deployment_cases;
using desired_cases::DesiredCase;
using desired_cases::kLive;

class HoldsDesired : public ::testing::TestWithParam<DesiredCase> {};

TEST_P(HoldsDesired, SaysWhetherTheLiveObjectHoldsIt) {
  const DesiredCase& c = GetParam();
  const FieldSchema& schema = *builtin_schema("apps", "Deployment");
  json live = deployment(c.live_spec);
  json desired = deployment(c.desired_spec);
  EXPECT_EQ(holds_desired(live, desired, schema), c.holds);
  auto diff = first_difference(live, desired, schema);
  if (c.holds) {
    EXPECT_FALSE(diff.has_value()) << *diff;
  } else {
    ASSERT_TRUE(diff.has_value());
    EXPECT_EQ(*diff, c.difference);
  }
}

INSTANTIATE_TEST_SUITE_P(Deployment, HoldsDesired, ::testing::ValuesIn(deployment_cases()));

TEST(HoldsDesiredMetadata, ServerManagedFieldsAreIgnoredButLabelsAreNot) {
  const FieldSchema& schema = *builtin_schema("apps", "Deployment");
  json live = deployment("{}");
  live["metadata"]["uid"] = "u";
  live["metadata"]["resourceVersion"] = "12";
  live["metadata"]["generation"] = 3;
  live["metadata"]["labels"] = {{"a", "1"}};
  json desired = deployment("{}");
  desired["metadata"]["resourceVersion"] = "1";
  desired["metadata"]["generation"] = 1;
  desired["metadata"]["managedFields"] = json::array({json::object()});
  EXPECT_TRUE(holds_desired(live, desired, schema));
  desired["metadata"]["labels"] = {{"a", "2"}};
  EXPECT_EQ(first_difference(live, desired, schema), ".metadata.labels.a");
  desired["metadata"]["labels"] = json::object();
  EXPECT_TRUE(holds_desired(live, desired, schema));
}

TEST(HoldsDesiredMetadata, OwnerReferencesAndFinalizers) {
  const FieldSchema& schema = *builtin_schema("", "Service");
  json live = json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"s",
      "finalizers":["a","b"],
      "ownerReferences":[{"apiVersion":"nvidia.com/v1alpha1","kind":"DynamoGraphDeployment","name":"g","uid":"u1",
                          "controller":true,"blockOwnerDeletion":true}]},
      "spec":{"ports":[{"port":8000,"protocol":"TCP","targetPort":8000,"name":"http"}],"clusterIP":"10.0.0.1"}})");
  json desired = json::parse(R"({"apiVersion":"v1","kind":"Service","metadata":{"name":"s","finalizers":["b"],
      "ownerReferences":[{"apiVersion":"nvidia.com/v1alpha1","kind":"DynamoGraphDeployment","name":"g","uid":"u1",
                          "controller":true,"blockOwnerDeletion":true}]},
      "spec":{"ports":[{"port":8000,"targetPort":8000,"name":"http"}]}})");
  EXPECT_TRUE(holds_desired(live, desired, schema));
  desired["metadata"]["ownerReferences"][0]["uid"] = "u2";  // the DGD was re-created
  EXPECT_EQ(first_difference(live, desired, schema), ".metadata.ownerReferences[uid=\"u2\"]");
}

TEST(HoldsDesiredCustomResource, EmptyObjectsAndListsAreStored) {
  FieldSchema cr = FieldSchema::custom_resource(nullptr);
  json live = json::parse(R"({"apiVersion":"resource.nvidia.com/v1beta1","kind":"ComputeDomain",
      "metadata":{"name":"cd"},"spec":{"numNodes":2}})");
  json desired = live;
  EXPECT_TRUE(holds_desired(live, desired, cr));
  desired["spec"]["channel"] = json::object();
  EXPECT_EQ(first_difference(live, desired, cr), ".spec.channel");
  desired = live;
  desired["spec"]["items"] = json::array();
  EXPECT_FALSE(holds_desired(live, desired, cr));
  desired = live;
  desired["spec"]["numNodes"] = 2.0;
  EXPECT_TRUE(holds_desired(live, desired, cr));
  desired["spec"]["numNodes"] = "2";
  EXPECT_FALSE(holds_desired(live, desired, cr));
}

TEST(HoldsDesiredCustomResource, SchemaListTypesApply) {
  FieldSchema cr = FieldSchema::custom_resource(json::parse(R"({"type":"object","properties":{"spec":{"type":"object",
      "properties":{"services":{"type":"array","x-kubernetes-list-type":"map","x-kubernetes-list-map-keys":["name"],
                                "items":{"type":"object"}},
                    "tags":{"type":"array","x-kubernetes-list-type":"set","items":{"type":"string"}}}}}})"));
  json live = json::parse(R"({"spec":{"services":[{"name":"a","replicas":1,"defaulted":true},{"name":"b"}],
                             "tags":["x","y","z"]}})");
  EXPECT_TRUE(holds_desired(live, json::parse(R"({"spec":{"services":[{"name":"b"}],"tags":["x","z"]}})"), cr));
  EXPECT_FALSE(holds_desired(live, json::parse(R"({"spec":{"tags":["z","x"]}})"), cr));
  EXPECT_FALSE(holds_desired(live, json::parse(R"({"spec":{"services":[{"name":"a","replicas":2}]}})"), cr));
}

}  // namespace
}  // namespace dgd::object
