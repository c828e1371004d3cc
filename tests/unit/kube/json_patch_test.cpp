// RFC 6902 Appendix A examples and the error cases kube-apiserver clients hit.
#include "dgd/kube/json_patch.h"

#include <gtest/gtest.h>

namespace dgd::kube {
namespace {

using nlohmann::json;

struct PatchCase {
  const char* name;
  const char* doc;
  const char* patch;
  const char* result;
};

void PrintTo(const PatchCase& c, std::ostream* os) { *os << c.name; }

class Rfc6902 : public ::testing::TestWithParam<PatchCase> {};

TEST_P(Rfc6902, AppendixA) {
  json out = apply_json_patch(json::parse(GetParam().doc), json::parse(GetParam().patch));
  EXPECT_EQ(out, json::parse(GetParam().result)) << out.dump();
}

INSTANTIATE_TEST_SUITE_P(
    Examples, Rfc6902,
    ::testing::Values(
        PatchCase{"A1_add_object_member", R"({"foo":"bar"})", R"([{"op":"add","path":"/baz","value":"qux"}])",
                  R"({"baz":"qux","foo":"bar"})"},
        PatchCase{"A2_add_array_element", R"({"foo":["bar","baz"]})", R"([{"op":"add","path":"/foo/1","value":"qux"}])",
                  R"({"foo":["bar","qux","baz"]})"},
        PatchCase{"A3_remove_member", R"({"baz":"qux","foo":"bar"})", R"([{"op":"remove","path":"/baz"}])",
                  R"({"foo":"bar"})"},
        PatchCase{"A4_remove_element", R"({"foo":["bar","qux","baz"]})", R"([{"op":"remove","path":"/foo/1"}])",
                  R"({"foo":["bar","baz"]})"},
        PatchCase{"A5_replace", R"({"baz":"qux","foo":"bar"})", R"([{"op":"replace","path":"/baz","value":"boo"}])",
                  R"({"baz":"boo","foo":"bar"})"},
        PatchCase{"A6_move_value", R"({"foo":{"bar":"baz","waldo":"fred"},"qux":{"corge":"grault"}})",
                  R"([{"op":"move","from":"/foo/waldo","path":"/qux/thud"}])",
                  R"({"foo":{"bar":"baz"},"qux":{"corge":"grault","thud":"fred"}})"},
        PatchCase{"A7_move_array_element", R"({"foo":["all","grass","cows","eat"]})",
                  R"([{"op":"move","from":"/foo/1","path":"/foo/3"}])", R"({"foo":["all","cows","eat","grass"]})"},
        PatchCase{"A8_test_success", R"({"baz":"qux","foo":["a",2,"c"]})",
                  R"([{"op":"test","path":"/baz","value":"qux"},{"op":"test","path":"/foo/1","value":2}])",
                  R"({"baz":"qux","foo":["a",2,"c"]})"},
        PatchCase{"A10_add_nested_member", R"({"foo":"bar"})",
                  R"([{"op":"add","path":"/child","value":{"grandchild":{}}}])",
                  R"({"foo":"bar","child":{"grandchild":{}}})"},
        PatchCase{"A11_ignore_unrecognized_members", R"({"foo":"bar"})",
                  R"([{"op":"add","path":"/baz","value":"qux","xyz":123}])", R"({"foo":"bar","baz":"qux"})"},
        PatchCase{"A14_escape_ordering", R"({"/":9,"~1":10})", R"([{"op":"test","path":"/~01","value":10}])",
                  R"({"/":9,"~1":10})"},
        PatchCase{"A16_add_array_value", R"({"foo":["bar"]})", R"([{"op":"add","path":"/foo/-","value":["abc","def"]}])",
                  R"({"foo":["bar",["abc","def"]]})"},
        PatchCase{"copy", R"({"a":{"b":1}})", R"([{"op":"copy","from":"/a","path":"/c"}])",
                  R"({"a":{"b":1},"c":{"b":1}})"},
        PatchCase{"replace_root", R"({"a":1})", R"([{"op":"replace","path":"","value":[1]}])", R"([1])"},
        PatchCase{"escaped_annotation_key", R"({"metadata":{"annotations":{"a/b":"x","c~d":"y"}}})",
                  R"([{"op":"replace","path":"/metadata/annotations/a~1b","value":"z"},
                      {"op":"remove","path":"/metadata/annotations/c~0d"}])",
                  R"({"metadata":{"annotations":{"a/b":"z"}}})"},
        PatchCase{"test_numbers_by_value", R"({"spec":{"replicas":2}})",
                  R"([{"op":"test","path":"/spec/replicas","value":2.0},{"op":"replace","path":"/spec/replicas","value":3}])",
                  R"({"spec":{"replicas":3}})"},
        PatchCase{"finalizer_removal_with_precondition", R"({"metadata":{"finalizers":["a","b"]}})",
                  R"([{"op":"test","path":"/metadata/finalizers","value":["a","b"]},
                      {"op":"remove","path":"/metadata/finalizers/0"}])",
                  R"({"metadata":{"finalizers":["b"]}})"}));

PatchError failure(const char* doc, const char* patch) {
  try {
    apply_json_patch(json::parse(doc), json::parse(patch));
  } catch (const PatchError& e) {
    return e;
  }
  ADD_FAILURE() << "patch applied: " << patch;
  return PatchError(PatchError::Code::kInvalid, "", "none");
}

TEST(JsonPatch, FailedTestIsDistinctAndNamesOpAndPath) {
  // RFC 6902 A.9.
  PatchError e = failure(R"({"baz":"qux"})", R"([{"op":"add","path":"/x","value":1},{"op":"test","path":"/baz","value":"bar"}])");
  EXPECT_EQ(e.code(), PatchError::Code::kTestFailed);
  EXPECT_EQ(e.op_index(), 1);
  EXPECT_EQ(e.path(), "/baz");
  EXPECT_EQ(e.http_status(), 422);
  EXPECT_NE(std::string(e.what()).find("testing value /baz failed"), std::string::npos);
}

TEST(JsonPatch, ApplyErrorsAreInvalidWithOpIndex) {
  struct Bad {
    const char* doc;
    const char* patch;
    const char* path;
  } cases[] = {
      {R"({"foo":"bar"})", R"([{"op":"add","path":"/baz/bat","value":"qux"}])", "/baz/bat"},  // A.12
      {R"({"a":1})", R"([{"op":"remove","path":"/b"}])", "/b"},
      {R"({"a":1})", R"([{"op":"replace","path":"/b","value":2}])", "/b"},
      {R"({"a":[1]})", R"([{"op":"add","path":"/a/2","value":2}])", "/a/2"},
      {R"({"a":[1]})", R"([{"op":"remove","path":"/a/1"}])", "/a/1"},
      {R"({"a":[1]})", R"([{"op":"add","path":"/a/01","value":2}])", "/a/01"},
      {R"({"a":{"b":1}})", R"([{"op":"move","from":"/a","path":"/a/b/c"}])", "/a/b/c"},
      {R"({"a":1})", R"([{"op":"copy","from":"/nope","path":"/b"}])", "/nope"},
  };
  for (const Bad& c : cases) {
    PatchError e = failure(c.doc, c.patch);
    EXPECT_EQ(e.code(), PatchError::Code::kInvalid) << c.patch;
    EXPECT_EQ(e.path(), c.path) << c.patch;
    EXPECT_EQ(e.op_index(), 0) << c.patch;
    EXPECT_EQ(e.http_status(), 422);
  }
}

TEST(JsonPatch, UndecodablePatchesAreBadRequest) {
  // What the apiserver's jsonpatch.DecodePatch rejects: 400.
  for (const char* patch : {R"({"op":"add"})", R"([1])", R"([{"op":"add","path":"/a","value":1},"x"])"}) {
    PatchError e = failure(R"({"a":1})", patch);
    EXPECT_EQ(e.code(), PatchError::Code::kMalformed) << patch;
    EXPECT_EQ(e.http_status(), 400) << patch;
  }
}

TEST(JsonPatch, BadOperationsFailAtApplyTimeWith422) {
  // Decodable but unusable operations fail in Apply: 422, like upstream.
  for (const char* patch : {R"([{"path":"/a"}])", R"([{"op":"jump","path":"/a"}])", R"([{"op":"add","path":"/a"}])",
                            R"([{"op":"add","path":"a","value":1}])", R"([{"op":"add","path":"/a~2","value":1}])",
                            R"([{"op":"move","path":"/a"}])"}) {
    PatchError e = failure(R"({"a":1})", patch);
    EXPECT_EQ(e.code(), PatchError::Code::kInvalid) << patch;
    EXPECT_EQ(e.http_status(), 422) << patch;
    EXPECT_EQ(e.op_index(), 0) << patch;
  }
}

TEST(JsonPatch, TooManyOperationsIs413) {
  json ops = json::array();
  for (size_t i = 0; i <= kMaxJsonPatchOperations; ++i) ops.push_back({{"op", "test"}, {"path", "/a"}, {"value", 1}});
  try {
    apply_json_patch(json::parse(R"({"a":1})"), ops);
    FAIL();
  } catch (const PatchError& e) {
    EXPECT_EQ(e.http_status(), 413);
  }
  ops.erase(ops.begin());
  EXPECT_NO_THROW(apply_json_patch(json::parse(R"({"a":1})"), ops));
}

TEST(JsonPatch, AllOrNothing) {
  json doc = json::parse(R"({"a":1})");
  EXPECT_THROW(apply_json_patch(doc, json::parse(R"([{"op":"replace","path":"/a","value":2},{"op":"remove","path":"/zz"}])")),
               PatchError);
  EXPECT_EQ(doc, json::parse(R"({"a":1})"));
}

TEST(JsonPointer, Resolves) {
  json doc = json::parse(R"({"a/b":{"c~":[10,20]}})");
  ASSERT_NE(resolve_json_pointer(doc, "/a~1b/c~0/1"), nullptr);
  EXPECT_EQ(*resolve_json_pointer(doc, "/a~1b/c~0/1"), 20);
  EXPECT_EQ(resolve_json_pointer(doc, "/a~1b/c~0/2"), nullptr);
  EXPECT_EQ(resolve_json_pointer(doc, "/missing"), nullptr);
  EXPECT_EQ(*resolve_json_pointer(doc, ""), doc);
  EXPECT_THROW(resolve_json_pointer(doc, "nope"), PatchError);
}

}  // namespace
}  // namespace dgd::kube
