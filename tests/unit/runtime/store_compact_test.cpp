// CachedObject::from_text (the watch path) must cache exactly what CachedObject::make
// (the list path) caches for the same object.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "dgd/runtime/store.h"

namespace dgd::runtime {
namespace {

using nlohmann::json;

void expect_same(const std::string& text) {
  auto a = CachedObject::make(json::parse(text));
  std::string error;
  auto b = CachedObject::from_text(text, &error);
  ASSERT_NE(b, nullptr) << error;
  EXPECT_EQ(b->object(), a->object()) << text;
  EXPECT_EQ(b->key(), a->key());
  EXPECT_EQ(b->uid(), a->uid());
  EXPECT_EQ(b->resource_version(), a->resource_version());
  ASSERT_EQ(b->owner_refs().size(), a->owner_refs().size());
  for (size_t i = 0; i < a->owner_refs().size(); ++i) {
    EXPECT_EQ(b->owner_refs()[i].uid, a->owner_refs()[i].uid);
    EXPECT_EQ(b->owner_refs()[i].name, a->owner_refs()[i].name);
    EXPECT_EQ(b->owner_refs()[i].kind, a->owner_refs()[i].kind);
    EXPECT_EQ(b->owner_refs()[i].api_version, a->owner_refs()[i].api_version);
    EXPECT_EQ(b->owner_refs()[i].controller, a->owner_refs()[i].controller);
  }
}

TEST(CachedObjectFromText, MatchesTheDomPath) {
  expect_same(R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"w","namespace":"n","uid":"u1",
    "resourceVersion":"7","managedFields":[{"manager":"dgd-operator","fieldsV1":{"f:spec":{}}}],
    "annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{\"a\":1}","keep":"me"},
    "ownerReferences":[{"apiVersion":"v1","kind":"X","name":"other","uid":"o2"},
                       {"apiVersion":"nvidia.com/v1beta1","kind":"DynamoGraphDeployment","name":"g","uid":"o1",
                        "controller":true,"blockOwnerDeletion":true},{"kind":"NoUid"}]},
    "spec":{"replicas":2,"template":{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"inner stays"}}}},
    "status":{"x":[1,2.5,-3e2,null,true,"s"]}})");
  // Only the last-applied annotation: the map goes; an empty map goes too.
  expect_same(R"({"metadata":{"name":"b","annotations":{"kubectl.kubernetes.io/last-applied-configuration":"x"}}})");
  expect_same(R"({"metadata":{"name":"c","annotations":{}},"data":{}})");
  // Escaped strings and pretty-printed input.
  expect_same("{\n  \"metadata\" : {\"name\" : \"caf\\u00e9\", \"namespace\": \"n\\\"q\" },\n \"data\" : { \"k\" : \"a b\" } }");
  // Odd but valid shapes: metadata of another type, no metadata.
  expect_same(R"({"metadata":5,"x":1})");
  expect_same(R"({"kind":"Status"})");
}

TEST(CachedObjectFromText, DropsStrippedFieldsFromTheText) {
  auto o = CachedObject::from_text(R"({"metadata":{"name":"a","managedFields":[{"m":1}],"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"big"}},"spec":{}})");
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->json_text(), R"({"metadata":{"name":"a"},"spec":{}})");
}

TEST(CachedObjectFromText, RejectsWhatIsNotAJsonObject) {
  std::string error;
  EXPECT_EQ(CachedObject::from_text("[1]", &error), nullptr);
  EXPECT_EQ(CachedObject::from_text(R"({"metadata":{"name":"a"})", &error), nullptr);
  EXPECT_FALSE(error.empty());
  EXPECT_EQ(CachedObject::from_text(R"({"a":1} {})"), nullptr);
}

}  // namespace
}  // namespace dgd::runtime
