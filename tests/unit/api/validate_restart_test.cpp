// spec.restart: upstream's rules on strategy.order, with the field path of each problem.
#include <gtest/gtest.h>

#include <algorithm>

#include "dgd/api/parse.h"
#include "dgd/api/validate.h"

namespace dgd::api {
namespace {

constexpr const char* kGraph = R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: g}
spec:
  backendFramework: vllm
  components:
  - name: Frontend
    type: frontend
    podTemplate: {spec: {containers: [{name: main, image: "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0"}]}}
  - name: Worker
    type: worker
    podTemplate: {spec: {containers: [{name: main, image: "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.0.0",
                                       args: ["python3 -m dynamo.vllm"]}]}}
)";

std::vector<FieldError> with_restart(const std::string& restart) {
  auto r = parse(std::string(kGraph) + "  restart: " + restart + "\n");
  EXPECT_TRUE(r.ok()) << (r.errors.empty() ? "" : r.errors.front().str());
  return validate(r.dgd);
}

// The problems about spec.restart (the rest of the graph is not under test).
std::string messages(const std::vector<FieldError>& errs) {
  std::string out;
  for (const auto& e : errs) {
    if (e.path.rfind("spec.restart", 0) == 0) out += e.str() + "\n";
  }
  return out;
}

TEST(ValidateRestart, AcceptsUpstreamsShapes) {
  EXPECT_EQ(messages(with_restart("{id: r1}")), "");
  EXPECT_EQ(messages(with_restart("{id: r1, strategy: {type: Parallel}}")), "");
  EXPECT_EQ(messages(with_restart("{id: r1, strategy: {type: Sequential, order: [Worker, Frontend]}}")), "");
}

TEST(ValidateRestart, NamesTheFieldOfEachProblem) {
  struct Case {
    const char* restart;
    const char* want;
  };
  const Case cases[] = {
      {"{id: r1, strategy: {order: [Frontend, Decoder]}}",
       "spec.restart.strategy.order[1]: Unsupported value: \"Decoder\": supported values: \"Frontend\", \"Worker\""},
      {"{id: r1, strategy: {order: [Frontend, Frontend]}}",
       "spec.restart.strategy.order: Invalid value: \"Frontend\", \"Frontend\": must be unique"},
      {"{id: r1, strategy: {order: [Frontend]}}",
       "spec.restart.strategy.order: Invalid value: \"Frontend\": must have the same number of unique components as "
       "the deployment (2)"},
      {"{id: r1, strategy: {type: Parallel, order: [Frontend, Worker]}}",
       "spec.restart.strategy.order: Forbidden: cannot be specified when strategy is parallel"},
      {"{id: r1, strategy: {type: Rolling}}",
       "spec.restart.strategy.type: Unsupported value: \"Rolling\": supported values: \"Parallel\", \"Sequential\""},
      {"{id: \"\"}", "spec.restart.id: Required value: a restart is requested by setting a new id"},
      {"{id: r1, when: now}", "spec.restart.when: unknown field"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.restart);
    const std::string got = messages(with_restart(c.restart));
    EXPECT_NE(got.find(c.want), std::string::npos) << got;
  }
}

}  // namespace
}  // namespace dgd::api
