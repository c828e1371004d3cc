// RFC 7386 Appendix A test cases, plus round trips of create_merge_patch.
#include "dgd/kube/merge_patch.h"

#include <gtest/gtest.h>

namespace dgd::kube {
namespace {

using nlohmann::json;

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
                      MergeCase{R"(["a","b"])", R"(["c","d"])", R"(["c","d"])"},
                      MergeCase{R"({"a":"b"})", R"(["c"])", R"(["c"])"},
                      MergeCase{R"({"a":"foo"})", R"(null)", R"(null)"},
                      MergeCase{R"({"a":"foo"})", R"("bar")", R"("bar")"},
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

TEST(CreateMergePatch, RoundTripsAndIsMinimal) {
  json from = json::parse(R"({"a":1,"b":{"c":2,"d":[1,2]},"e":"x","keep":{"same":true}})");
  json to = json::parse(R"({"a":1,"b":{"c":3,"d":[1]},"f":"new","keep":{"same":true}})");
  json patch = create_merge_patch(from, to);
  EXPECT_EQ(patch, json::parse(R"({"b":{"c":3,"d":[1]},"e":null,"f":"new"})"));
  EXPECT_EQ(apply_merge_patch(from, patch), to);
  EXPECT_EQ(create_merge_patch(to, to), json::object());
}

TEST(CreateMergePatch, NonObjectsAreReplacedWhole) {
  EXPECT_EQ(create_merge_patch(json::parse("[1]"), json::parse("[2]")), json::parse("[2]"));
  EXPECT_EQ(create_merge_patch(json::parse(R"({"a":1})"), json("s")), json("s"));
}

TEST(PatchError, MapsToApiserverStatusCodes) {
  EXPECT_EQ(PatchError(PatchError::Code::kMalformed, "", "x").http_status(), 400);
  EXPECT_EQ(PatchError(PatchError::Code::kInvalid, "", "x").http_status(), 422);
  EXPECT_EQ(PatchError(PatchError::Code::kTestFailed, "/a", "x", 3).http_status(), 422);
  EXPECT_EQ(PatchError(PatchError::Code::kTestFailed, "/a", "x", 3).op_index(), 3);
}

// Random documents without null values: the created patch always round-trips.
json random_doc(uint64_t& seed, int depth) {
  auto next = [&] {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return seed;
  };
  if (depth == 0 || next() % 4 == 0) {
    switch (next() % 4) {
      case 0: return json(static_cast<int>(next() % 3));
      case 1: return json(std::string(1, static_cast<char>('a' + next() % 3)));
      case 2: return json(next() % 2 == 0);
      default: return json::array({static_cast<int>(next() % 2)});
    }
  }
  json obj = json::object();
  for (const char* k : {"a", "b", "c", "d"}) {
    if (next() % 2 == 0) obj[k] = random_doc(seed, depth - 1);
  }
  return obj;
}

TEST(CreateMergePatch, RandomDocumentsRoundTrip) {
  uint64_t seed = 0x1234567ULL;
  for (int i = 0; i < 2000; ++i) {
    json from = random_doc(seed, 4), to = random_doc(seed, 4);
    json patch = create_merge_patch(from, to);
    ASSERT_EQ(apply_merge_patch(from, patch), to) << from.dump() << " -> " << to.dump() << " via " << patch.dump();
    ASSERT_EQ(create_merge_patch(to, apply_merge_patch(from, patch)), to.is_object() ? json::object() : to);
  }
}

}  // namespace
}  // namespace dgd::kube
