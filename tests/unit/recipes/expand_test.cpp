// expand: the recipe is the base, what the user's DGD states overrides it.
#include <gtest/gtest.h>

#include <vector>

#include <nlohmann/json.hpp>

#include "dgd/api/parse.h"
#include "dgd/recipes/expand.h"

namespace dgd::recipes {
namespace {

api::Dgd parse_or_die(const char* text) {
  auto r = api::parse(text);
  EXPECT_TRUE(r.ok()) << (r.errors.empty() ? "" : r.errors.front().str());
  return r.dgd;
}

const api::Component& component(const api::Dgd& d, const char* name) {
  const api::Component* c = d.find_component(name);
  if (c == nullptr) throw std::runtime_error(std::string("no component ") + name);
  return *c;
}

// The DESIGN.md §2 example.
constexpr const char* kDesignExample = R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: my-h200
  namespace: serving
spec:
  recipe: deepseek-v4.1-flash/vllm/disagg-h200-agentic
  model:
    cache: {claimName: shared-model-cache}
    download: {tokenSecretRef: {name: hf-token-secret, key: HF_TOKEN}}
  placement:
    rdma: {resource: rdma/ib, perWorker: 4, nicSelection: sriov}
  components:
  - name: DecodeWorker
    replicas: 2
)";

TEST(Expand, RecipeIsTheBaseAndTheUserOverridesByComponentName) {
  auto r = expand(Catalog::builtin(), parse_or_die(kDesignExample));
  ASSERT_TRUE(r.ok()) << r.errors.front().str();
  const api::Dgd& g = r.graph;
  EXPECT_EQ(g.metadata.name, "my-h200");
  EXPECT_EQ(g.metadata.namespace_, "serving");
  EXPECT_FALSE(g.spec.recipe.has_value());
  ASSERT_EQ(g.spec.components.size(), 3u);
  EXPECT_EQ(g.spec.components[0].name, "Frontend");
  EXPECT_EQ(component(g, "DecodeWorker").replicas, 2);
  EXPECT_EQ(component(g, "PrefillWorker").replicas, 1);
  // Untouched recipe settings survive the overlay.
  ASSERT_TRUE(component(g, "DecodeWorker").engine.has_value());
  EXPECT_EQ(component(g, "DecodeWorker").engine->moe_backend, "flashinfer_cutlass");
  EXPECT_EQ(component(g, "DecodeWorker").engine->max_num_batched_tokens, 8192);
  EXPECT_EQ(g.spec.model->revision, "dba1be0a40aa45a94ad051997016db3960a90277");
  EXPECT_EQ(g.spec.model->cache->mount_path, "/shared-model-cache");
  EXPECT_EQ(g.spec.placement->separate_prefill_decode, true);
  EXPECT_EQ(g.spec.placement->gpu, api::GpuProduct::kH200);
}

TEST(Expand, OneEngineFieldOverridesOnlyThatField) {
  auto r = expand(Catalog::builtin(), parse_or_die(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: x}
spec:
  recipe: deepseek-v4.1-flash/vllm/agg-b200-agentic
  components:
  - name: Worker
    engine:
      maxNumSeqs: 512
      speculative: {numSpeculativeTokens: 2}
)"));
  ASSERT_TRUE(r.ok());
  const auto& e = *component(r.graph, "Worker").engine;
  EXPECT_EQ(e.max_num_seqs, 512);
  EXPECT_EQ(e.max_num_batched_tokens, 16384);
  EXPECT_EQ(e.speculative->num_speculative_tokens, 2);
  EXPECT_EQ(e.speculative->method, "dspark");
  EXPECT_EQ(e.speculative->rejection_sample_method, "block");
  EXPECT_EQ(e.attention->backend, "FLASHMLA_MEGA_ATTN_DSV41");
}

TEST(Expand, EnvMergesByNameAndPodTemplateMergesStrategically) {
  auto r = expand(Catalog::builtin(), parse_or_die(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: x}
spec:
  recipe: deepseek-v4.1-flash/vllm/agg-h200-agentic
  env:
  - {name: HF_HUB_OFFLINE, value: "0"}
  - {name: EXTRA, value: "1"}
  components:
  - name: Worker
    env:
    - {name: VLLM_ENGINE_READY_TIMEOUT_S, value: "7200"}
    podTemplate:
      spec:
        containers:
        - name: main
          resources:
            requests: {memory: 600Gi}
)"));
  ASSERT_TRUE(r.ok()) << r.errors.front().str();
  const auto& g = r.graph;
  ASSERT_EQ(g.spec.env.size(), 3u);
  EXPECT_EQ(g.spec.env[0].name, "HF_HUB_OFFLINE");
  EXPECT_EQ(g.spec.env[0].value, "0");
  EXPECT_EQ(g.spec.env[2].name, "EXTRA");
  const auto& w = component(g, "Worker");
  ASSERT_EQ(w.env.size(), 2u);
  EXPECT_EQ(w.env[0].name, "VLLM_ENGINE_READY_TIMEOUT_S");
  EXPECT_EQ(w.env[0].value, "7200");
  EXPECT_EQ(w.env[1].name, "DYN_HEALTH_CHECK_REQUEST_TIMEOUT");
  const auto& main = w.pod_template["spec"]["containers"][0];
  EXPECT_EQ(main["name"], "main");
  EXPECT_EQ(main["resources"]["requests"]["memory"], "600Gi");
  EXPECT_EQ(main["resources"]["requests"]["cpu"], "16") << "strategic merge keeps the recipe's other requests";
  EXPECT_EQ(main["image"], "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.0-deepseek-v4.1-flash-dev.2");
  EXPECT_TRUE(main.contains("startupProbe"));
}

TEST(Expand, NewComponentsAreAppended) {
  auto r = expand(Catalog::builtin(), parse_or_die(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: x}
spec:
  recipe: deepseek-v4-flash/vllm/agg-h200-agentic
  components:
  - name: SecondWorker
    type: worker
    podTemplate: {spec: {containers: [{name: main, image: busybox}]}}
)"));
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r.graph.spec.components.size(), 3u);
  EXPECT_EQ(r.graph.spec.components[2].name, "SecondWorker");
}

TEST(Expand, ChangingAComponentTypeIsAnErrorWithItsPath) {
  auto r = expand(Catalog::builtin(), parse_or_die(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: x}
spec:
  recipe: deepseek-v4.1-flash/vllm/disagg-b200-agentic
  components:
  - name: Frontend
    replicas: 2
  - name: DecodeWorker
    type: prefill
)"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors.front().path, "spec.components[1].type");
  EXPECT_NE(r.errors.front().message.find("\"decode\""), std::string::npos) << r.errors.front().message;
}

TEST(Expand, BackendFrameworkMustMatchTheRecipe) {
  auto r = expand(Catalog::builtin(), parse_or_die(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: x}
spec:
  recipe: deepseek-v4.1-flash/vllm/agg-gb200-agentic
  backendFramework: sglang
)"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors.front().path, "spec.backendFramework");
}

TEST(Expand, UnknownRecipeNamesWhatExists) {
  auto r = expand(Catalog::builtin(), parse_or_die(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: x}
spec:
  recipe: deepseek-v4.1-flash/sglang/agg-h200
)"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.errors.front().path, "spec.recipe");
  EXPECT_NE(r.errors.front().message.find("no SGLang recipe for H200"), std::string::npos);
}

TEST(Expand, IsIdempotent) {
  auto once = expand(Catalog::builtin(), parse_or_die(kDesignExample));
  ASSERT_TRUE(once.ok());
  auto twice = expand(Catalog::builtin(), once.graph);
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(api::to_json(once.graph), api::to_json(twice.graph));
}

TEST(Expand, WithoutARecipeOnlyAppliesDefaults) {
  auto user = parse_or_die(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: x}
spec:
  components:
  - name: Frontend
    type: frontend
    podTemplate: {spec: {containers: [{name: main, image: img}]}}
)");
  auto r = expand(Catalog::builtin(), user);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.graph.spec.components[0].replicas, 1);
  EXPECT_EQ(r.graph.spec.components[0].pod_template, user.spec.components[0].pod_template);
}

// expand(catalog, Dgd&&) moves the user's DGD instead of copying it; the graph must be
// the one the copying form gives, with and without a recipe.
TEST(Expand, ConsumingFormGivesTheSameGraph) {
  const auto& catalog = Catalog::builtin();
  std::vector<api::Dgd> inputs = {parse_or_die(kDesignExample)};
  for (const auto& r : catalog.all()) inputs.push_back(r.dgd());
  for (const auto& user : inputs) {
    const auto copied = expand(catalog, user);
    api::Dgd consumable = user;
    const auto consumed = expand(catalog, std::move(consumable));
    EXPECT_EQ(api::to_json(consumed.graph), api::to_json(copied.graph)) << user.metadata.name;
    EXPECT_EQ(consumed.errors.size(), copied.errors.size()) << user.metadata.name;
  }
}

// What dgdctl validate and the operator's SpecValid report for a recipe DGD.
TEST(ExpandAndValidate, AStatedProblemIsReportedOnceAtTheUsersIndex) {
  auto r = expand_and_validate(Catalog::builtin(), parse_or_die(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: bad}
spec:
  recipe: deepseek-v4.1-flash/vllm/disagg-h200-agentic
  components:
  - name: DecodeWorker
    replicas: -1
)"));
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].str(), "spec.components[0].replicas: must be 0..1000, got -1");
  EXPECT_FALSE(r.graph.has_value());
}

TEST(ExpandAndValidate, AGraphProblemNamesTheComponentsIndexInTheUsersFile) {
  // DecodeWorker is the recipe's third component and the user's first.
  auto r = expand_and_validate(Catalog::builtin(), parse_or_die(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: tp}
spec:
  recipe: deepseek-v4.1-flash/vllm/disagg-h200-agentic
  components:
  - name: DecodeWorker
    engine: {tensorParallelSize: 2}
)"));
  ASSERT_EQ(r.problems.size(), 1u);
  EXPECT_EQ(r.problems[0].path, "spec.components[0].engine.tensorParallelSize");
  EXPECT_FALSE(r.ok());
}

TEST(ExpandAndValidate, AValidDgdYieldsTheGraphAndNoProblem) {
  auto r = expand_and_validate(Catalog::builtin(), parse_or_die(kDesignExample));
  EXPECT_TRUE(r.problems.empty()) << r.problems.front().str();
  ASSERT_TRUE(r.graph.has_value());
  EXPECT_EQ(r.graph->spec.components.size(), 3u);
}

TEST(InUserPaths, ARecipeOnlyComponentKeepsTheGraphIndexAndIsNamed) {
  api::Dgd user, graph;
  user.spec.recipe = "m/vllm/t";
  user.spec.components.resize(1);
  user.spec.components[0].name = "Decode";
  graph.spec.components.resize(3);
  graph.spec.components[0].name = "Frontend";
  graph.spec.components[1].name = "Prefill";
  graph.spec.components[2].name = "Decode";
  auto mapped = in_user_paths({{"spec.components[2].replicas", "bad", api::Severity::kError, "Decode"},
                             {"spec.components[1].engine", "worse", api::Severity::kError, "Prefill"},
                             {"spec.env[0].name", "other", api::Severity::kError, ""}},
                            graph, user);
  ASSERT_EQ(mapped.size(), 3u);
  EXPECT_EQ(mapped[0].str(), "spec.components[0].replicas: bad");
  EXPECT_EQ(mapped[1].str(), "spec.components[1].engine: worse (in component \"Prefill\" of recipe m/vllm/t)");
  EXPECT_EQ(mapped[2].str(), "spec.env[0].name: other");
}

TEST(Expand, EnvListsMergeByNameKeepingOrder) {
  nlohmann::json base = {{"apiVersion", "nvidia.com/v1beta1"}, {"kind", "DynamoGraphDeployment"},
                         {"spec", {{"env", {{{"name", "A"}, {"value", "1"}}, {{"name", "B"}, {"value", "2"}}}}}}};
  nlohmann::json over = {{"spec", {{"env", {{{"name", "B"}, {"value", "3"}}, {{"name", "C"}, {"value", "4"}},
                                            {{"name", "C"}, {"value", "5"}}, {{"name", "A"}, {"value", "6"}}}}}}};
  std::vector<api::FieldError> errors;
  auto out = overlay_dgd(base, over, errors);
  EXPECT_TRUE(errors.empty());
  EXPECT_EQ(out["spec"]["env"], nlohmann::json::parse(
                                    R"([{"name":"A","value":"6"},{"name":"B","value":"3"},{"name":"C","value":"5"}])"));
}

}  // namespace
}  // namespace dgd::recipes
