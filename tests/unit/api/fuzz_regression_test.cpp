// Regression tests for defects found by the fuzzers (tests/fuzz, docs/reliability.md
// "Fuzzing"). Each test holds the input the fuzzer found, reduced.
#include <gtest/gtest.h>

#include <string>

#include "dgd/api/parse.h"
#include "dgd/api/yaml.h"

namespace dgd::api {
namespace {

// fuzz_dgd: yaml-cpp's LoadAll never returned (allocating until out of memory) on text whose
// first token no document can start with. `dgdctl validate` of such a file hung.
TEST(FuzzRegression, YamlThatStartsWithAFlowEntryIsAnErrorNotAHang) {
  for (const std::string text : {
           ", user: contexts: [{name: x, context: {cluster: c, user: u}}]\n",
           ",",
           "apiVersion: v1\n---\n, a: b\n",
       }) {
    ParseResult r = parse(text);
    EXPECT_FALSE(r.ok()) << text;
    EXPECT_FALSE(r.document) << text;
    EXPECT_THROW(yaml_to_json_documents(text), YamlError) << text;
  }
  // Several well-formed documents still load, empty ones included.
  EXPECT_EQ(yaml_to_json_documents("a: 1\n---\nb: 2\n---\n---\nc: 3\n").size(), 3u);
}

}  // namespace
}  // namespace dgd::api
