// Regression tests for kube-sim crashes found by fuzzing and the sanitizers (tests/fuzz,
// docs/reliability.md "Fuzzing"). Each test holds the input that crashed the simulator.
#include "kubesim/api_error.h"
#include "kubesim/api_server.h"
#include "kubesim/body_codec.h"
#include "kubesim/resource_registry.h"
#include "kubesim/store.h"

#include <gtest/gtest.h>

#include <string>

namespace kubesim {
namespace {

using nlohmann::json;

// Counts the answers handle() gives one request and keeps the last one.
struct Answers : ResponseWriter {
  int count = 0;
  HttpResponse resp;
  void send(const HttpResponse& r) override {
    ++count;
    resp = r;
  }
  bool start_stream(int status, const std::string&) override {
    ++count;
    resp.status = status;
    return false;
  }
  bool write_chunk(const std::string&) override { return false; }
  void end_stream() override {}
};

Answers handle(const std::string& method, const std::string& target, const std::string& body) {
  ResourceRegistry reg;
  Store store(reg);
  TokenAuthenticator tokens;
  tokens.add_spec("t=admin:system:masters");
  RequestLog log;
  ApiServer api(store, tokens, log, ApiServerOptions{});
  HttpRequest req;
  req.method = method;
  req.target = target;
  req.body = body;
  req.headers["authorization"] = "Bearer t";
  req.headers["content-type"] = "application/json";
  Answers out;
  api.handle(req, out);
  return out;
}

// A 200,000-digit scalar in a YAML body (well inside the 3 MiB body limit) overflowed the
// stack in std::regex_match, killing kube-sim with SIGSEGV.
TEST(FuzzRegression, LongNumericYamlScalarDoesNotOverflowTheStack) {
  const std::string digits(200000, '7');
  json body = parse_yaml_body("data:\n  n: " + digits + "\n  f: 0." + digits + "\n");
  EXPECT_EQ(body["data"]["n"], digits) << "an integer beyond int64 stays a string";
  EXPECT_TRUE(body["data"]["f"].is_number_float());
}

// The hand-written scalar rules type exactly what the regular expressions they replace did.
TEST(FuzzRegression, YamlScalarTypingIsUnchanged) {
  json b = parse_yaml_body(
      "a: 0\nb: -12\nc: +7\nd: 01\ne: 1.5\nf: .5\ng: 5.\nh: 1e3\ni: -2.5E-2\nj: '12'\nk: +\nl: 1e\nm: .\nn: 00\n");
  EXPECT_EQ(b["a"], 0);
  EXPECT_EQ(b["b"], -12);
  EXPECT_EQ(b["c"], 7);
  EXPECT_EQ(b["d"], 1.0) << "not an integer (leading zero) but a float, as before";
  EXPECT_EQ(b["e"], 1.5);
  EXPECT_EQ(b["f"], 0.5);
  EXPECT_EQ(b["g"], 5.0);
  EXPECT_EQ(b["h"], 1000.0);
  EXPECT_EQ(b["i"], -0.025);
  EXPECT_EQ(b["j"], "12");
  EXPECT_EQ(b["k"], "+");
  EXPECT_EQ(b["l"], "1e");
  EXPECT_EQ(b["m"], ".");
  EXPECT_EQ(b["n"], 0.0);
}

// A ConfigMap whose data key is 200,000 characters long overflowed the stack in the key
// check; the API server answers 422 (a key is at most 253 characters).
TEST(FuzzRegression, LongConfigMapKeyIsInvalidNotACrash) {
  ResourceRegistry reg;
  Store store(reg);
  const ResourceType& cm = *reg.find("", "v1", "configmaps");
  auto configmap = [](const std::string& key) {
    return json{{"apiVersion", "v1"}, {"kind", "ConfigMap"}, {"metadata", {{"name", "c"}}}, {"data", {{key, "v"}}}};
  };
  try {
    store.create(cm, "default", configmap(std::string(200000, 'k')));
    FAIL() << "a 200,000-character key was accepted";
  } catch (const ApiError& e) {
    EXPECT_EQ(e.code(), 422);
  }
  EXPECT_NO_THROW(store.create(cm, "default", configmap(std::string(253, 'k'))));
}

// A CRD create whose JSON body held the byte 0xB8 (fuzz_kubesim, after 42 executions) got
// no answer at all: the 400 Status quoted the parser's "last read" bytes, json::dump()
// threw on the invalid UTF-8, and handle() swallowed that. The client waited forever.
// Invalid UTF-8 in an answer is written as U+FFFD, as Go's encoding/json does.
TEST(FuzzRegression, BodyWithInvalidUtf8IsAnswered400) {
  const std::string body =
      "{\"apiVersion\": \"apiextensions.k8s.io/v1\", \"kind\": \"CustomResourceDefinition\", \xB8\"spec\": {}}";
  Answers a = handle("POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", body);
  ASSERT_EQ(a.count, 1);
  EXPECT_EQ(a.resp.status, 400);
  json status = json::parse(a.resp.body, nullptr, false);
  ASSERT_FALSE(status.is_discarded()) << a.resp.body;
  EXPECT_EQ(status["reason"], "BadRequest");
  EXPECT_NE(status["message"].get<std::string>().find("\xEF\xBF\xBD"), std::string::npos)
      << "the invalid byte is quoted as U+FFFD: " << status["message"];
}

// The same through the URL: a %-escaped invalid byte in a name is quoted in the 404.
TEST(FuzzRegression, NameWithInvalidUtf8IsAnswered404) {
  Answers a = handle("GET", "/api/v1/namespaces/default/configmaps/a%B8b", "");
  ASSERT_EQ(a.count, 1);
  EXPECT_EQ(a.resp.status, 404);
  EXPECT_TRUE(json::accept(a.resp.body)) << a.resp.body;
}

}  // namespace
}  // namespace kubesim
