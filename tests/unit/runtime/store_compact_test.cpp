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


// --- FieldProjection: the pod/node caches keep a few fields; text and DOM paths agree.

const char* kPod = R"({"apiVersion":"v1","kind":"Pod",
  "metadata":{"name":"p","namespace":"n","uid":"u","resourceVersion":"3","labels":{"a":"b"},
              "managedFields":[{"manager":"kubelet"}],
              "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"o","controller":true}]},
  "spec":{"containers":[{"name":"main","image":"i","env":[{"name":"E","value":"v"}],
                         "resources":{"requests":{"nvidia.com/gpu":"8"}}},
                        {"name":"side","args":["x"]}],
          "nodeName":"h200-1","volumes":[{"name":"v","emptyDir":{}}],"tolerations":[{"key":"k","operator":"Exists"}],
          "matrix":[[1,2],[3]],"affinity":5},
  "status":{"phase":"Running","podIP":"10.0.0.1",
            "conditions":[{"type":"PodScheduled","status":"True","lastTransitionTime":"t"},"odd"],
            "containerStatuses":[{"name":"main","ready":true}]},
  "extra":{"dropped":true}})";

FieldProjection pod_projection() {
  return FieldProjection({"spec.containers.resources", "spec.nodeName", "spec.tolerations", "spec.affinity.nodeAffinity",
                          "spec.matrix.x", "status.phase", "status.conditions.type", "status.conditions.status"});
}

TEST(FieldProjection, KeepsExactlyTheNamedPathsAndAllMetadata) {
  std::string error;
  auto o = CachedObject::from_text(kPod, pod_projection(), &error);
  ASSERT_NE(o, nullptr) << error;
  // Written by hand: metadata whole (minus managedFields), each container reduced to its
  // resources, an array inside an array kept whole, a scalar where an object was expected
  // kept, condition timestamps and non-object elements handled, everything else gone.
  EXPECT_EQ(o->object(), json::parse(R"({"apiVersion":"v1","kind":"Pod",
    "metadata":{"name":"p","namespace":"n","uid":"u","resourceVersion":"3","labels":{"a":"b"},
                "ownerReferences":[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"rs","uid":"o","controller":true}]},
    "spec":{"containers":[{"resources":{"requests":{"nvidia.com/gpu":"8"}}},{}],"nodeName":"h200-1",
            "tolerations":[{"key":"k","operator":"Exists"}],"matrix":[[1,2],[3]],"affinity":5},
    "status":{"phase":"Running","conditions":[{"type":"PodScheduled","status":"True"},"odd"]}})"));
  EXPECT_EQ(o->key(), "n/p");
  EXPECT_EQ(o->resource_version(), "3");
  ASSERT_EQ(o->owner_refs().size(), 1u);
  EXPECT_EQ(o->owner_refs()[0].uid, "o");
}

TEST(FieldProjection, TextAndDomPathsAgree) {
  const FieldProjection p = pod_projection();
  for (const std::string& text :
       {std::string(kPod), std::string(R"({"metadata":{"name":"x"},"spec":null,"status":[{"phase":1}]})"),
        std::string(R"({"spec":{"nodeName":{"deep":[1]}},"status":{}})"),
        std::string("{\"sp\\u0065c\" : {\"nodeName\" : \"escaped key\", \"other\": 1}}")}) {
    auto a = CachedObject::make(json::parse(text), p);
    std::string error;
    auto b = CachedObject::from_text(text, p, &error);
    ASSERT_NE(b, nullptr) << error;
    EXPECT_EQ(b->object(), a->object()) << text;
    EXPECT_EQ(b->key(), a->key());
  }
}

TEST(FieldProjection, ShorterPathWinsAndEmptyKeepsAll) {
  EXPECT_EQ(FieldProjection({"status.conditions.type", "status", "spec.a.b"}).paths(),
            (std::vector<std::string>{"spec.a.b", "status"}));
  EXPECT_TRUE(FieldProjection().empty());
  auto whole = CachedObject::from_text(kPod, FieldProjection());
  auto plain = CachedObject::from_text(kPod);
  ASSERT_NE(whole, nullptr);
  EXPECT_EQ(whole->json_text(), plain->json_text());
}

TEST(FieldProjection, DeeplyNestedArraysDoNotRecurse) {
  // A hostile value under a projected path: 100,000 nested arrays are copied, not walked.
  std::string deep = R"({"metadata":{"name":"d"},"spec":{"containers":[)" + std::string(100000, '[') +
                     std::string(100000, ']') + "]}}";
  auto o = CachedObject::from_text(deep, FieldProjection({"spec.containers.resources"}));
  ASSERT_NE(o, nullptr);
  EXPECT_EQ(o->name(), "d");
}

}  // namespace
}  // namespace dgd::runtime
