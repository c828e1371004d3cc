// Contracts the fuzzers (tests/fuzz, docs/reliability.md "Fuzzing") hold the client to,
// each with a reduced input that breaks a client without it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/temp_dir.h"
#include "dgd/kube/config.h"
#include "dgd/kube/error.h"
#include "dgd/kube/watch.h"

namespace dgd::kube {
namespace {

// fuzz_watch: a line longer than max_line is refused whether it arrives in several chunks
// or in one; otherwise the limit would depend on TCP segmentation.
TEST(FuzzRegression, FrameLimitHoldsForALineInOneChunk) {
  LineFramer f(8);
  std::vector<std::string> lines;
  auto collect = [&](std::string_view l) { lines.emplace_back(l); };
  EXPECT_FALSE(f.feed("0123456789abcdef\n", collect));
  EXPECT_TRUE(lines.empty());
  EXPECT_TRUE(f.feed("12345678\nok\n", collect)) << "a line of exactly max_line bytes is fine";
  EXPECT_EQ(lines, (std::vector<std::string>{"12345678", "ok"}));
}

Result<RestConfig> load_text(const std::string& text) {
  testing::TempDir d;
  KubeconfigOptions o;
  o.path = d.write("config", text);
  return load_kubeconfig(o);
}

// fuzz_kubeconfig: a clusters[] entry without its `cluster:` block is an error naming the
// entry; a YAML::InvalidNode escaping load_kubeconfig ("invalid node; first invalid key:
// \"cluster\"") would end the operator at start-up instead of naming the problem.
TEST(FuzzRegression, KubeconfigEntryWithoutItsBlockIsAnError) {
  Result<RestConfig> c = Error{};
  ASSERT_NO_THROW(c = load_text(R"(current-context: x
clusters: [{name: c, cl%uster: {server: "https://h"}}]
users: [{name: u, user: {token: t}}]
contexts: [{name: x, context: {cluster: c, user: u}}]
)"));
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.error().message.find("cluster \"c\" has no server"), std::string::npos) << c.error().message;

  // A user or context without its block is an empty one, as in client-go.
  ASSERT_NO_THROW(c = load_text(R"(current-context: x
clusters: [{name: c, cluster: {server: "https://h"}}]
users: [{name: u}]
contexts: [{name: x, context: {cluster: c, user: u}}]
)"));
  ASSERT_TRUE(c.ok()) << c.error().message;
  EXPECT_EQ(c->server, "https://h");
  EXPECT_TRUE(c->token.empty());
}

// The same family: blocks and list items of the wrong YAML type are errors, not exceptions.
TEST(FuzzRegression, KubeconfigBlocksOfTheWrongTypeAreErrors) {
  const std::string tail = "contexts: [{name: x, context: {cluster: c, user: u}}]\ncurrent-context: x\n";
  for (const std::string& text : {
           "clusters: [{name: c, cluster: just-text}]\nusers: [{name: u}]\n" + tail,
           "clusters: [{name: c, cluster: [a, b]}]\nusers: [{name: u}]\n" + tail,
           "clusters: [plain, {name: c, cluster: {server: https://h}}]\nusers: [{name: u}]\n" + tail,
           "clusters: [{name: c, cluster: {server: https://h}}]\nusers: [{name: u, user: "
           "{exec: {apiVersion: client.authentication.k8s.io/v1beta1, command: aws, args: [{a: b}]}}}]\n" + tail,
       }) {
    Result<RestConfig> c = Error{};
    ASSERT_NO_THROW(c = load_text(text)) << text;
    EXPECT_FALSE(c.ok()) << text;
  }
}

// fuzz_watch: an ERROR watch event (or any error response) whose Status has a field of the
// wrong JSON type yields an Error; a nlohmann::json::type_error escaping error_from_response
// would end the process (std::terminate).
TEST(FuzzRegression, StatusWithWrongFieldTypesIsAnErrorNotAnException) {
  for (const char* body : {R"({"kind":"Status","reason":5,"message":"m","code":410})",
                           R"({"kind":"Status","reason":"Expired","message":1})",
                           R"({"kind":7,"message":"x"})",
                           R"({"kind":"Status","details":{"causes":[{"reason":1,"message":[],"field":{}}]}})"}) {
    Error e;
    ASSERT_NO_THROW(e = error_from_response(0, body, "", "GET /x")) << body;
  }
  Error e = error_from_response(0, R"({"kind":"Status","reason":5,"message":"gone","code":410})", "", "GET /x");
  EXPECT_EQ(e.code, 410);
  EXPECT_EQ(e.message, "gone");
}

}  // namespace
}  // namespace dgd::kube
