// The smoke test's pure parts: what is sent for a DGD (smoke_plan, smoke_request_body)
// and how each answer is diagnosed (diagnose). The answers below are shaped like the
// Dynamo frontend's (OpenAI chat completions with reasoning_content).
#include "dgd/reconcile/smoke.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <set>

#include "dgd/api/parse.h"
#include "dgd/api/validate.h"
#include "dgd/recipes/catalog.h"
#include "dgd/recipes/expand.h"
#include "dgd/render/render.h"
#include "dgd/reconcile/smoke_http.h"

namespace dgd::reconcile {
namespace {

using nlohmann::json;

api::Dgd parse_dgd(const std::string& yaml) {
  auto r = api::parse(yaml);
  EXPECT_TRUE(r.document);
  return r.dgd;
}

api::Dgd expanded(const api::Dgd& user) {
  auto r = recipes::expand(recipes::Catalog::builtin(), user);
  EXPECT_TRUE(r.errors.empty());
  return r.graph;
}

SmokePlan plan_for(bool disaggregated) {
  SmokePlan p;
  p.enabled = true;
  p.model = "deepseek-ai/DeepSeek-V4.1-Flash";
  p.disaggregated = disaggregated;
  return p;
}

SmokeExchange ok_exchange(const json& body, int status = 200) {
  SmokeExchange ex;
  ex.status = status;
  ex.body = body.dump();
  return ex;
}

json completion(const json& content, const std::string& reasoning, const std::string& finish, int completion_tokens) {
  json message = {{"role", "assistant"}, {"content", content}};
  if (!reasoning.empty()) message["reasoning_content"] = reasoning;
  return {{"id", "chatcmpl-1"},
          {"object", "chat.completion"},
          {"model", "deepseek-ai/DeepSeek-V4.1-Flash"},
          {"choices", json::array({{{"index", 0}, {"message", message}, {"finish_reason", finish}}})},
          {"usage", {{"prompt_tokens", 12}, {"completion_tokens", completion_tokens}, {"total_tokens", 12 + completion_tokens}}}};
}

TEST(SmokePlan, RecipeDgdIsOnByDefaultWithTheServedNameAndFrontend) {
  api::Dgd user = parse_dgd(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: dsv41-flash-vllm-h200-disagg-agentic}
spec:
  recipe: deepseek-v4.1-flash/vllm/disagg-h200-agentic
)");
  SmokePlan p = smoke_plan(user, expanded(user));
  EXPECT_TRUE(p.enabled);
  EXPECT_EQ(p.model, "deepseek-ai/DeepSeek-V4.1-Flash");
  EXPECT_EQ(p.frontend_service, "dsv41-flash-vllm-h200-disagg-agentic-frontend");
  EXPECT_EQ(p.frontend_port, 8000);
  EXPECT_TRUE(p.disaggregated);
  EXPECT_EQ(p.max_tokens, 512);
  EXPECT_EQ(p.timeout, std::chrono::seconds(60));
}

TEST(SmokePlan, AggregatedRecipeIsNotDisaggregated) {
  api::Dgd user = parse_dgd(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: agg}
spec:
  recipe: deepseek-v4.1-flash/vllm/agg-b200-agentic
)");
  SmokePlan p = smoke_plan(user, expanded(user));
  EXPECT_TRUE(p.enabled);
  EXPECT_FALSE(p.disaggregated);
  EXPECT_EQ(p.frontend_service, "agg-frontend");
}

TEST(SmokePlan, SpecSmokeTestOverridesAndOptsOut) {
  api::Dgd user = parse_dgd(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: x}
spec:
  recipe: deepseek-v4.1-flash/vllm/agg-b200-agentic
  smokeTest: {enabled: false, maxTokens: 4096, timeoutSeconds: 5, prompt: "Say hi"}
)");
  SmokePlan p = smoke_plan(user, expanded(user));
  EXPECT_FALSE(p.enabled);
  EXPECT_EQ(p.max_tokens, 4096);
  EXPECT_EQ(p.timeout, std::chrono::seconds(5));
  EXPECT_EQ(p.prompt, "Say hi");
}

TEST(SmokePlan, ExplicitArgsDgdIsOffByDefaultAndTakesTheNameFromArgs) {
  api::Dgd user = parse_dgd(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: up}
spec:
  backendFramework: vllm
  components:
  - name: Frontend
    type: frontend
  - name: VllmWorker
    type: worker
    podTemplate:
      spec:
        containers:
        - name: main
          command: ["/bin/sh", "-c"]
          args: ["python3 -m dynamo.vllm --model /models/x --served-model-name my-model --tensor-parallel-size 4"]
)");
  SmokePlan p = smoke_plan(user, user);
  EXPECT_FALSE(p.enabled);
  EXPECT_EQ(p.model, "my-model");
  EXPECT_EQ(p.frontend_service, "up-frontend");
  EXPECT_FALSE(p.disaggregated);
}

TEST(SmokePlan, SpecSmokeTestRangesAreValidated) {
  api::Dgd user = parse_dgd(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: x}
spec:
  recipe: deepseek-v4.1-flash/vllm/agg-b200-agentic
  smokeTest: {maxTokens: 0, timeoutSeconds: 7200, prompt: ""}
)");
  std::set<std::string> paths;
  for (const auto& e : api::validate(user)) paths.insert(e.path);
  EXPECT_TRUE(paths.count("spec.smokeTest.maxTokens"));
  EXPECT_TRUE(paths.count("spec.smokeTest.timeoutSeconds"));
  EXPECT_TRUE(paths.count("spec.smokeTest.prompt"));
  // The block round-trips through the model, and the upstream form drops it (upstream's
  // operator does not know it).
  EXPECT_EQ(api::to_json(user)["spec"]["smokeTest"]["maxTokens"], 0);
  auto up = render::to_upstream(expanded(parse_dgd(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: x}
spec:
  recipe: deepseek-v4.1-flash/vllm/agg-b200-agentic
  smokeTest: {maxTokens: 2048}
)")));
  ASSERT_FALSE(up.objects.empty());
  EXPECT_EQ(up.objects[0]["kind"], "DynamoGraphDeployment");
  EXPECT_FALSE(up.objects[0]["spec"].contains("smokeTest"));
}

TEST(SmokeRequest, IsTheRecipePagesRequest) {
  json body = json::parse(smoke_request_body(plan_for(false)));
  EXPECT_EQ(body, json::parse(R"({"model":"deepseek-ai/DeepSeek-V4.1-Flash","messages":[{"role":"user",
      "content":"Reply with exactly: READY"}],"temperature":0,"max_tokens":512})"));
}

TEST(Diagnose, AnswerIsServingWithCounts) {
  SmokeExchange ex = ok_exchange(completion("READY", "The user wants READY.", "stop", 9));
  ex.latency = std::chrono::milliseconds(321);
  SmokeResult r = diagnose(ex, plan_for(true));
  EXPECT_EQ(r.diagnosis, SmokeDiagnosis::kServing);
  EXPECT_STREQ(to_reason(r.diagnosis), "Serving");
  EXPECT_EQ(exit_code(r.diagnosis), 0);
  EXPECT_EQ(r.answer, "READY");
  EXPECT_EQ(r.reasoning_chars, std::string("The user wants READY.").size());
  EXPECT_EQ(r.prompt_tokens, 12);
  EXPECT_EQ(r.completion_tokens, 9);
  EXPECT_EQ(r.finish_reason, "stop");
  EXPECT_EQ(r.latency.count(), 321);
  EXPECT_EQ(r.message.find("321"), std::string::npos) << "the condition message must not carry the latency";
}

TEST(Diagnose, ReasoningOnlyWithLengthIsBudgetExhausted) {
  SmokeResult r = diagnose(ok_exchange(completion(nullptr, std::string(1800, 'r'), "length", 512)), plan_for(false));
  EXPECT_EQ(r.diagnosis, SmokeDiagnosis::kReasoningBudgetExhausted);
  EXPECT_EQ(exit_code(r.diagnosis), 3);
  EXPECT_EQ(r.reasoning_chars, 1800u);
  EXPECT_NE(r.message.find("max_tokens 512"), std::string::npos) << r.message;
  EXPECT_NE(r.hint.find("raise max_tokens"), std::string::npos) << r.hint;
}

TEST(Diagnose, EmptyContentOnDisaggregatedGraphSuspectsKvTransfer) {
  SmokeResult r = diagnose(ok_exchange(completion(nullptr, "", "stop", 0)), plan_for(true));
  EXPECT_EQ(r.diagnosis, SmokeDiagnosis::kEmptyContent);
  EXPECT_EQ(exit_code(r.diagnosis), 4);
  EXPECT_NE(r.message.find("zero completion tokens"), std::string::npos) << r.message;
  EXPECT_NE(r.message.find("KV transfer"), std::string::npos) << r.message;
  EXPECT_NE(r.hint.find("NVLink clique"), std::string::npos) << r.hint;
  EXPECT_NE(r.hint.find("UCX_NET_DEVICES"), std::string::npos) << r.hint;
}

TEST(Diagnose, EmptyContentOnAggregatedGraphDoesNotBlameKvTransfer) {
  SmokeResult r = diagnose(ok_exchange(completion("  ", "", "stop", 0)), plan_for(false));
  EXPECT_EQ(r.diagnosis, SmokeDiagnosis::kEmptyContent);
  EXPECT_EQ(r.message.find("KV transfer"), std::string::npos) << r.message;
}

TEST(Diagnose, NonChatBodyIsInvalidResponse) {
  SmokeExchange ex;
  ex.status = 200;
  ex.body = "<html>hello</html>";
  SmokeResult r = diagnose(ex, plan_for(false));
  EXPECT_EQ(r.diagnosis, SmokeDiagnosis::kInvalidResponse);
  EXPECT_EQ(exit_code(r.diagnosis), 5);
  EXPECT_EQ(r.body_excerpt, "<html>hello</html>");
}

TEST(Diagnose, HttpErrorCarriesStatusAndTheErrorMessage) {
  SmokeResult r = diagnose(ok_exchange({{"error", {{"message", "engine crashed"}, {"type", "InternalError"}}}}, 500),
                           plan_for(false));
  EXPECT_EQ(r.diagnosis, SmokeDiagnosis::kHttpError);
  EXPECT_STREQ(to_reason(r.diagnosis), "HTTPError");
  EXPECT_EQ(exit_code(r.diagnosis), 6);
  EXPECT_EQ(r.http_status, 500);
  EXPECT_EQ(r.message, "the frontend answered HTTP 500: engine crashed");
}

TEST(Diagnose, NotFoundPointsAtTheModelName) {
  SmokeResult r = diagnose(ok_exchange({{"error", "model not found"}}, 404), plan_for(false));
  EXPECT_EQ(r.diagnosis, SmokeDiagnosis::kHttpError);
  EXPECT_NE(r.hint.find("deepseek-ai/DeepSeek-V4.1-Flash"), std::string::npos) << r.hint;
}

TEST(Diagnose, ProxyStatus503IsUnreachableButFrontend503IsHttpError) {
  json status = {{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"},
                 {"message", "no endpoints available for service \"x-frontend\""}, {"reason", "ServiceUnavailable"},
                 {"code", 503}};
  SmokeExchange ex = ok_exchange(status, 503);
  ex.via_apiserver_proxy = true;
  SmokeResult r = diagnose(ex, plan_for(false));
  EXPECT_EQ(r.diagnosis, SmokeDiagnosis::kUnreachable);
  EXPECT_NE(r.message.find("no endpoints available"), std::string::npos) << r.message;
  // The same answer straight from a URL is the frontend's own 503.
  ex.via_apiserver_proxy = false;
  EXPECT_EQ(diagnose(ex, plan_for(false)).diagnosis, SmokeDiagnosis::kHttpError);
  // And a frontend 503 relayed by the proxy (not a Status body) is the frontend's too.
  SmokeExchange relayed = ok_exchange({{"error", {{"message", "no instances"}}}}, 503);
  relayed.via_apiserver_proxy = true;
  EXPECT_EQ(diagnose(relayed, plan_for(false)).diagnosis, SmokeDiagnosis::kHttpError);
  // The API server refusing the proxy (RBAC) names the permission.
  SmokeExchange forbidden = ok_exchange({{"kind", "Status"}, {"code", 403}, {"reason", "Forbidden"},
                                         {"message", "services \"x-frontend:8000\" is forbidden"}}, 403);
  forbidden.via_apiserver_proxy = true;
  SmokeResult rf = diagnose(forbidden, plan_for(false));
  EXPECT_EQ(rf.diagnosis, SmokeDiagnosis::kUnreachable);
  EXPECT_NE(rf.hint.find("services/proxy"), std::string::npos) << rf.hint;
}

TEST(Diagnose, TimeoutAndUnreachableMessagesAreStable) {
  SmokeExchange t;
  t.failure = SmokeExchange::Failure::kTimeout;
  t.latency = std::chrono::milliseconds(60012);
  SmokeResult rt = diagnose(t, plan_for(false));
  EXPECT_EQ(rt.diagnosis, SmokeDiagnosis::kTimeout);
  EXPECT_EQ(exit_code(rt.diagnosis), 7);
  EXPECT_EQ(rt.message, "the frontend gave no answer within 60 s");
  SmokeExchange u;
  u.failure = SmokeExchange::Failure::kUnreachable;
  u.error = "Failed to connect to any resolved endpoint";
  SmokeResult ru = diagnose(u, plan_for(false));
  EXPECT_EQ(ru.diagnosis, SmokeDiagnosis::kUnreachable);
  EXPECT_EQ(exit_code(ru.diagnosis), 8);
  EXPECT_EQ(ru.message, "cannot reach the frontend: Failed to connect to any resolved endpoint");
}

TEST(SmokeUrl, ChatCompletionsUrlFromWhatUsersType) {
  EXPECT_EQ(chat_completions_url("http://localhost:8000"), "http://localhost:8000/v1/chat/completions");
  EXPECT_EQ(chat_completions_url("http://localhost:8000/"), "http://localhost:8000/v1/chat/completions");
  EXPECT_EQ(chat_completions_url("http://localhost:8000/v1"), "http://localhost:8000/v1/chat/completions");
  EXPECT_EQ(chat_completions_url("https://gw.example/v1/chat/completions"), "https://gw.example/v1/chat/completions");
  EXPECT_EQ(chat_completions_url("localhost:8000"), "");
  EXPECT_EQ(make_url_smoke_transport("ftp://x"), nullptr);
  EXPECT_EQ(service_dns_url("ns1", "d-frontend", 8000), "http://d-frontend.ns1.svc:8000");
}

}  // namespace
}  // namespace dgd::reconcile
