// Render of one recipe, in microseconds (issue 3: "well under a millisecond of CPU beyond
// process start"). Three stages, so a regression shows where it is:
//   BM_Render            explicit graph -> children (the reconcile's hot path)
//   BM_ExpandRender      user DGD naming a recipe -> graph -> children
//   BM_DgdctlRenderText  YAML text in, YAML text out: what `dgdctl render` does per DGD
#include <benchmark/benchmark.h>

#include <nlohmann/json.hpp>

#include "dgd/api/parse.h"
#include "dgd/api/validate.h"
#include "dgd/api/yaml.h"
#include "dgd/recipes/catalog.h"
#include "dgd/recipes/expand.h"
#include "dgd/render/render.h"

namespace {

const char* kRecipes[] = {"deepseek-v4.1-flash/vllm/disagg-h200-agentic", "deepseek-v4.1-flash/vllm/agg-b200-agentic",
                          "deepseek-v4.1-flash/sglang/disagg-gb200", "deepseek-v4-flash/vllm/disagg-h200-agentic"};

std::string userDgd(const char* recipe) {
  return std::string("apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\n"
                     "metadata: {name: bench, namespace: serving}\nspec:\n  recipe: ") +
         recipe + "\n  components:\n  - name: Frontend\n    replicas: 2\n";
}

void BM_Render(benchmark::State& state) {
  const char* recipe = kRecipes[state.range(0)];
  auto parsed = dgd::api::parse(userDgd(recipe));
  auto graph = dgd::recipes::expand(dgd::recipes::Catalog::builtin(), parsed.dgd).graph;
  size_t objects = 0;
  for (auto _ : state) {
    auto r = dgd::render::render(graph);
    objects = r.objects.size();
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel(std::string(recipe) + " (" + std::to_string(objects) + " objects)");
}

void BM_ExpandRender(benchmark::State& state) {
  const char* recipe = kRecipes[state.range(0)];
  auto parsed = dgd::api::parse(userDgd(recipe));
  const auto& catalog = dgd::recipes::Catalog::builtin();
  for (auto _ : state) {
    auto g = dgd::recipes::expand(catalog, parsed.dgd);
    auto r = dgd::render::render(g.graph);
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel(recipe);
}

void BM_DgdctlRenderText(benchmark::State& state) {
  const char* recipe = kRecipes[state.range(0)];
  const std::string text = userDgd(recipe);
  const auto& catalog = dgd::recipes::Catalog::builtin();
  size_t bytes = 0;
  for (auto _ : state) {
    auto parsed = dgd::api::parse(text);
    auto problems = dgd::api::validate(parsed.dgd);
    auto g = dgd::recipes::expand(catalog, parsed.dgd);
    auto more = dgd::api::validate(g.graph, dgd::api::ValidateOptions{dgd::api::ValidationMode::kComplete});
    auto r = dgd::render::render(g.graph);
    std::string out;
    for (const auto& o : r.objects) out += "---\n" + dgd::api::jsonToYaml(o);
    bytes = out.size();
    benchmark::DoNotOptimize(out);
    benchmark::DoNotOptimize(problems);
    benchmark::DoNotOptimize(more);
  }
  state.SetLabel(std::string(recipe) + " (" + std::to_string(bytes) + " bytes of YAML)");
}

}  // namespace

BENCHMARK(BM_Render)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ExpandRender)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DgdctlRenderText)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
