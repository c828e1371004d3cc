#include "dgd/reconcile/json_trim.h"

#include <gtest/gtest.h>

namespace dgd::reconcile {
namespace {

using nlohmann::json;

const char* kDeployment =
    R"({"apiVersion":"apps/v1","kind":"Deployment","metadata":{"generation":3,"name":"g-worker"},)"
    R"("spec":{"replicas":2,"selector":{"matchLabels":{"a":"b"}},"template":{"spec":{"containers":[{"args":["--x","{\"template\":1}"]}]}}},)"
    R"("status":{"readyReplicas":2,"template":"not the spec's"}})";

TEST(ParseWithout, DropsOnlyTheNamedInnerMember) {
  auto got = parse_without(kDeployment, "spec", "template");
  ASSERT_TRUE(got);
  json want = json::parse(kDeployment);
  want["spec"].erase("template");
  EXPECT_EQ(*got, want);  // status.template (same name, other object) and the rest kept
}

TEST(ParseWithout, DropsATopLevelMember) {
  auto got = parse_without(kDeployment, "spec");
  ASSERT_TRUE(got);
  json want = json::parse(kDeployment);
  want.erase("spec");
  EXPECT_EQ(*got, want);
}

TEST(ParseWithout, KeepsEscapesWhitespaceAndNonObjectMembers) {
  const char* text = R"( { "spec" : [1, 2] , "na\"me" : "a\u00e9\n" , "n" : -1.5e3 } )";
  auto got = parse_without(text, "spec", "template");  // spec is not an object: kept whole
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, json::parse(text));
  auto no_spec = parse_without(text, "spec");
  ASSERT_TRUE(no_spec);
  EXPECT_EQ(*no_spec, json::parse(R"({"na\"me":"a\u00e9\n","n":-1.5e3})"));
}

TEST(ParseWithout, EscapedKeyMatchesItsDecodedName) {
  auto got = parse_without(R"({"sp\u0065c":{"template":1,"replicas":1}})", "spec", "template");
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, json::parse(R"({"spec":{"replicas":1}})"));
}

TEST(ParseWithout, RejectsWhatIsNotAJsonObject) {
  EXPECT_FALSE(parse_without("[1]", "spec"));
  EXPECT_FALSE(parse_without(R"({"spec":{"template":})", "spec", "template"));
  EXPECT_FALSE(parse_without(R"({"spec":{"template":{"a":"}"})", "spec", "template"));  // unclosed
  EXPECT_FALSE(parse_without(R"({"a":1} x)", "spec"));
  EXPECT_FALSE(parse_without(R"({"a":tru})", "spec"));  // what is kept is parsed
  EXPECT_FALSE(parse_without("", "spec"));
  EXPECT_FALSE(parse_without("{", "spec"));
}

TEST(ParseWithout, MatchesParseThenEraseOnEveryRenderedChild) {
  // Brackets and quotes inside strings (args, probes' commands) must not end a member.
  const json objs = json::parse(R"([
    {"kind":"Deployment","spec":{"template":{"spec":{"containers":[{"command":["sh","-c","echo '}]' \"{[\""]}]}},"replicas":1},"status":{}},
    {"kind":"Job","metadata":{"annotations":{"a":"{\"spec\":1}"}},"spec":{"backoffLimit":3,"template":{}}},
    {"spec":{},"status":{"conditions":[{"type":"Ready","message":"]]}}"}]}},
    {}
  ])");
  for (const auto& o : objs) {
    for (const auto& [top, inner] : {std::pair<std::string, std::string>{"spec", "template"}, {"spec", ""},
                                     {"status", ""}, {"metadata", "annotations"}}) {
      json want = o;
      if (inner.empty()) {
        want.erase(top);
      } else if (want.contains(top) && want[top].is_object()) {
        want[top].erase(inner);
      }
      auto got = parse_without(o.dump(), top, inner);
      ASSERT_TRUE(got) << o.dump();
      EXPECT_EQ(*got, want) << o.dump() << " without " << top << "." << inner;
    }
  }
}

}  // namespace
}  // namespace dgd::reconcile
