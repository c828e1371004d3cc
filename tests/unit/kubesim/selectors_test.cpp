#include "kubesim/api_error.h"
#include "kubesim/resource_registry.h"
#include "kubesim/selectors.h"

#include <gtest/gtest.h>

namespace kubesim {
namespace {

using nlohmann::json;

TEST(LabelSelector, EqualityInequalitySetAndExistence) {
  const json labels = {{"app", "web"}, {"tier", "frontend"}, {"env", "prod"}};
  EXPECT_TRUE(LabelSelector::parse("app=web").matches(labels));
  EXPECT_TRUE(LabelSelector::parse("app==web,tier=frontend").matches(labels));
  EXPECT_FALSE(LabelSelector::parse("app=db").matches(labels));
  EXPECT_TRUE(LabelSelector::parse("app!=db").matches(labels));
  EXPECT_FALSE(LabelSelector::parse("app!=web").matches(labels));
  EXPECT_TRUE(LabelSelector::parse("missing!=x").matches(labels));  // != matches absent keys
  EXPECT_TRUE(LabelSelector::parse("env in (prod, staging)").matches(labels));
  EXPECT_FALSE(LabelSelector::parse("env in (dev)").matches(labels));
  EXPECT_FALSE(LabelSelector::parse("env notin (prod)").matches(labels));
  EXPECT_TRUE(LabelSelector::parse("zone notin (a)").matches(labels));
  EXPECT_TRUE(LabelSelector::parse("tier").matches(labels));
  EXPECT_FALSE(LabelSelector::parse("!tier").matches(labels));
  EXPECT_TRUE(LabelSelector::parse("!zone,app in (web),tier").matches(labels));
  EXPECT_TRUE(LabelSelector::parse("").matches(labels));
  EXPECT_FALSE(LabelSelector::parse("app").matches(json()));
}

TEST(LabelSelector, SyntaxErrorsAre400) {
  for (const char* bad : {"app in (a", "a b c", "=x", "app=in valid"}) {
    try {
      LabelSelector::parse(bad);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const ApiError& e) {
      EXPECT_EQ(e.code(), 400) << bad;
    }
  }
}

TEST(LabelSelector, FromObject) {
  json sel = {{"matchLabels", {{"app", "web"}}},
              {"matchExpressions", {{{"key", "env"}, {"operator", "In"}, {"values", {"prod"}}}}}};
  EXPECT_TRUE(LabelSelector::from_object(sel).matches({{"app", "web"}, {"env", "prod"}}));
  EXPECT_FALSE(LabelSelector::from_object(sel).matches({{"app", "web"}, {"env", "dev"}}));
}

TEST(FieldSelector, NameNamespaceAndEventFields) {
  ResourceRegistry reg;
  auto events = reg.find("", "v1", "events");
  json ev = {{"metadata", {{"name", "e1"}, {"namespace", "ns1"}}},
             {"involvedObject", {{"kind", "Pod"}, {"name", "p1"}, {"namespace", "ns1"}, {"uid", "u1"}}}};
  EXPECT_TRUE(FieldSelector::parse("metadata.name=e1", *events).matches(ev));
  EXPECT_TRUE(FieldSelector::parse("involvedObject.name=p1,involvedObject.namespace=ns1,involvedObject.uid=u1", *events).matches(ev));
  EXPECT_FALSE(FieldSelector::parse("involvedObject.kind!=Pod", *events).matches(ev));
  auto pods = reg.find("", "v1", "pods");
  json pod = {{"metadata", {{"name", "p"}}}, {"spec", {{"nodeName", "n1"}}}, {"status", {{"phase", "Running"}}}};
  EXPECT_TRUE(FieldSelector::parse("spec.nodeName=n1,status.phase=Running", *pods).matches(pod));
  EXPECT_TRUE(FieldSelector::parse("spec.nodeName=", *pods).matches(json{{"metadata", {{"name", "p"}}}}));
  try {
    FieldSelector::parse("spec.nodeName=n1", *reg.find("", "v1", "configmaps"));
    ADD_FAILURE() << "unsupported field accepted";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 400);
    EXPECT_NE(std::string(e.what()).find("field label not supported"), std::string::npos);
  }
}

}  // namespace
}  // namespace kubesim
