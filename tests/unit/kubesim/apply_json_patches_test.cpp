// kube-sim's JSON patch and merge patch: RFC 6902 and RFC 7386 Appendix A examples,
// and the statuses kube-apiserver's jsonPatcher answers failures with.
#include "kubesim/apply/json_patches.h"

#include "kubesim/api_error.h"

#include <gtest/gtest.h>

namespace kubesim::apply {
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

ApiError failure(const char* doc, const char* patch) {
  try {
    apply_json_patch(json::parse(doc), json::parse(patch));
  } catch (const ApiError& e) {
    return e;
  }
  ADD_FAILURE() << "patch applied: " << patch;
  return ApiError(0, "", "none");
}

TEST(JsonPatch, OperationsThatDoNotApplyAreTheGeneric422) {
  const char* cases[][2] = {
      {R"({"baz":"qux"})", R"([{"op":"add","path":"/x","value":1},{"op":"test","path":"/baz","value":"bar"}])"},  // A.9
      {R"({"foo":"bar"})", R"([{"op":"add","path":"/baz/bat","value":"qux"}])"},                                  // A.12
      {R"({"a":1})", R"([{"op":"remove","path":"/b"}])"},
      {R"({"a":1})", R"([{"op":"replace","path":"/b","value":2}])"},
      {R"({"a":[1]})", R"([{"op":"add","path":"/a/2","value":2}])"},
      {R"({"a":[1]})", R"([{"op":"remove","path":"/a/1"}])"},
      {R"({"a":[1]})", R"([{"op":"add","path":"/a/01","value":2}])"},
      {R"({"a":{"b":1}})", R"([{"op":"move","from":"/a","path":"/a/b/c"}])"},
      {R"({"a":1})", R"([{"op":"copy","from":"/nope","path":"/b"}])"},
      // Decodable but unusable operations fail in Apply too.
      {R"({"a":1})", R"([{"path":"/a"}])"},
      {R"({"a":1})", R"([{"op":"jump","path":"/a"}])"},
      {R"({"a":1})", R"([{"op":"add","path":"/a"}])"},
      {R"({"a":1})", R"([{"op":"add","path":"a","value":1}])"},
      {R"({"a":1})", R"([{"op":"add","path":"/a~2","value":1}])"},
      {R"({"a":1})", R"([{"op":"move","path":"/a"}])"},
  };
  for (const auto& c : cases) {
    ApiError e = failure(c[0], c[1]);
    EXPECT_EQ(e.code(), 422) << c[1];
    EXPECT_EQ(e.reason(), "Invalid") << c[1];
    // NewGenericServerResponse(422, ...) keeps only its own words.
    EXPECT_STREQ(e.what(), "the server rejected our request due to an error in our request") << c[1];
  }
}

TEST(JsonPatch, UndecodablePatchesAreBadRequest) {
  // What jsonpatch.DecodePatch rejects: 400 with the decoder's message.
  EXPECT_STREQ(failure(R"({"a":1})", R"({"op":"add"})").what(),
               "json: cannot unmarshal object into Go value of type jsonpatch.Patch");
  EXPECT_STREQ(failure(R"({"a":1})", R"([1])").what(),
               "json: cannot unmarshal number into Go value of type jsonpatch.Operation");
  for (const char* patch : {R"({"op":"add"})", R"([1])", R"([{"op":"add","path":"/a","value":1},"x"])", R"("x")"}) {
    ApiError e = failure(R"({"a":1})", patch);
    EXPECT_EQ(e.code(), 400) << patch;
    EXPECT_EQ(e.reason(), "BadRequest") << patch;
  }
}

TEST(JsonPatch, TooManyOperationsIs413) {
  json ops = json::array();
  for (size_t i = 0; i <= kMaxJsonPatchOperations; ++i) ops.push_back({{"op", "test"}, {"path", "/a"}, {"value", 1}});
  try {
    apply_json_patch(json::parse(R"({"a":1})"), ops);
    FAIL();
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 413);
    EXPECT_STREQ(e.what(), "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001");
  }
  ops.erase(ops.begin());
  EXPECT_NO_THROW(apply_json_patch(json::parse(R"({"a":1})"), ops));
}

TEST(JsonPatch, AllOrNothing) {
  json doc = json::parse(R"({"a":1})");
  EXPECT_THROW(apply_json_patch(doc, json::parse(R"([{"op":"replace","path":"/a","value":2},{"op":"remove","path":"/zz"}])")),
               ApiError);
  EXPECT_EQ(doc, json::parse(R"({"a":1})"));
}

struct MergeCase {
  const char* target;
  const char* patch;
  const char* result;
};

void PrintTo(const MergeCase& c, std::ostream* os) { *os << c.target << " + " << c.patch; }

class Rfc7386 : public ::testing::TestWithParam<MergeCase> {};

TEST_P(Rfc7386, AppendixA) {
  json result = apply_merge_patch(json::parse(GetParam().target), json::parse(GetParam().patch));
  EXPECT_EQ(result, json::parse(GetParam().result)) << result.dump();
}

// Appendix A's cases with an object patch (the others are below: the server refuses them).
INSTANTIATE_TEST_SUITE_P(
    Examples, Rfc7386,
    ::testing::Values(MergeCase{R"({"a":"b"})", R"({"a":"c"})", R"({"a":"c"})"},
                      MergeCase{R"({"a":"b"})", R"({"b":"c"})", R"({"a":"b","b":"c"})"},
                      MergeCase{R"({"a":"b"})", R"({"a":null})", R"({})"},
                      MergeCase{R"({"a":"b","b":"c"})", R"({"a":null})", R"({"b":"c"})"},
                      MergeCase{R"({"a":["b"]})", R"({"a":"c"})", R"({"a":"c"})"},
                      MergeCase{R"({"a":"c"})", R"({"a":["b"]})", R"({"a":["b"]})"},
                      MergeCase{R"({"a":{"b":"c"}})", R"({"a":{"b":"d","c":null}})", R"({"a":{"b":"d"}})"},
                      MergeCase{R"({"a":[{"b":"c"}]})", R"({"a":[1]})", R"({"a":[1]})"},
                      MergeCase{R"({"e":null})", R"({"a":1})", R"({"e":null,"a":1})"},
                      MergeCase{R"([1,2])", R"({"a":"b","c":null})", R"({"a":"b"})"},
                      MergeCase{R"({})", R"({"a":{"bb":{"ccc":null}}})", R"({"a":{"bb":{}}})"}));

TEST(MergePatch, KubernetesLabelRemovalAndListReplacement) {
  json live = json::parse(R"({"metadata":{"labels":{"app":"a","tier":"x"}},
                             "spec":{"containers":[{"name":"a","image":"1"},{"name":"b","image":"2"}]}})");
  json patch = json::parse(R"({"metadata":{"labels":{"tier":null}},"spec":{"containers":[{"name":"b","image":"3"}]}})");
  json out = apply_merge_patch(live, patch);
  EXPECT_EQ(out["metadata"]["labels"], json::parse(R"({"app":"a"})"));
  // Lists are replaced whole: container "a" is gone.
  EXPECT_EQ(out["spec"]["containers"], json::parse(R"([{"name":"b","image":"3"}])"));
  EXPECT_EQ(live["metadata"]["labels"].size(), 2u) << "input must stay untouched";
}

TEST(MergePatch, APatchThatIsNotAnObjectIsBadRequest) {
  // jsonpatch.MergePatch's ErrBadJSONPatch: the object could not survive such a patch.
  for (const char* patch : {"null", R"("bar")", R"(["c"])", "5"}) {
    try {
      apply_merge_patch(json::parse(R"({"a":"foo"})"), json::parse(patch));
      ADD_FAILURE() << patch;
    } catch (const ApiError& e) {
      EXPECT_EQ(e.code(), 400) << patch;
      EXPECT_STREQ(e.what(), "Invalid JSON Patch") << patch;
    }
  }
}

}  // namespace
}  // namespace kubesim::apply
