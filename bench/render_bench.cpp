// Render of one recipe, in microseconds ("well under a millisecond of CPU beyond
// process start"). Stages, so a regression shows where it is:
//   BM_Render            explicit graph -> children (the reconcile's hot path)
//   BM_ExpandRender      user DGD naming a recipe -> graph -> children
//   BM_ReadYaml          a recipe's deploy.yaml -> JSON (yaml-cpp)
//   BM_DgdctlRenderFile  `dgdctl render -f recipes/<recipe>/deploy.yaml`, in process: the
//                        whole command (read YAML, parse, validate, expand, validate,
//                        render, write YAML) as dgdctl runs it
//   BM_DgdctlRenderText  the same for a short user DGD naming the recipe
// The process around it (loading, static initialisation, exit: what a person running
// dgdctl waits for) is measured by bench/render_process_cpu.py.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <sstream>

#include <nlohmann/json.hpp>

#include "dgd/api/parse.h"
#include "dgd/api/yaml.h"
#include "dgd/recipes/catalog.h"
#include "dgd/recipes/expand.h"
#include "dgd/render/render.h"

// The command itself, not a copy of its steps: dgdctl's commands are CLI-independent
// (commands.h) but live in the tool's folder, which builds no library.
#include "cli/dgdctl/commands.cpp"  // NOLINT(bugprone-suspicious-include)

namespace {

const char* kRecipes[] = {"deepseek-v4.1-flash/vllm/disagg-h200-agentic", "deepseek-v4.1-flash/vllm/agg-b200-agentic",
                          "deepseek-v4.1-flash/sglang/disagg-gb200", "deepseek-v4-flash/vllm/disagg-h200-agentic"};

std::string user_dgd(const char* recipe) {
  return std::string("apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\n"
                     "metadata: {name: bench, namespace: serving}\nspec:\n  recipe: ") +
         recipe + "\n  components:\n  - name: Frontend\n    replicas: 2\n";
}

// The recipe's deploy.yaml, byte for byte (the catalog embeds the file).
const std::string& recipe_file(const char* recipe) {
  const auto* r = dgd::recipes::Catalog::builtin().find(recipe);
  if (r == nullptr) std::abort();
  return r->source;
}

void BM_Render(benchmark::State& state) {
  const char* recipe = kRecipes[state.range(0)];
  auto parsed = dgd::api::parse(user_dgd(recipe));
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
  auto parsed = dgd::api::parse(user_dgd(recipe));
  const auto& catalog = dgd::recipes::Catalog::builtin();
  for (auto _ : state) {
    auto g = dgd::recipes::expand(catalog, parsed.dgd);
    auto r = dgd::render::render(g.graph);
    benchmark::DoNotOptimize(r);
  }
  state.SetLabel(recipe);
}

void BM_ReadYaml(benchmark::State& state) {
  const std::string& text = recipe_file(kRecipes[state.range(0)]);
  for (auto _ : state) {
    auto docs = dgd::api::yaml_to_json_documents(text);
    benchmark::DoNotOptimize(docs);
  }
  state.SetLabel(std::string(kRecipes[state.range(0)]) + "/deploy.yaml (" + std::to_string(text.size()) + " bytes)");
}

// One `dgdctl render` of `text`; aborts when the command fails (a broken benchmark
// must not report a fast error path).
size_t dgdctl_render(const std::string& text) {
  std::ostringstream out, err;
  if (dgd::cli::render(text, "bench.yaml", dgd::cli::CommonOptions{}, out, err) != 0) std::abort();
  return out.str().size();
}

void BM_DgdctlRenderFile(benchmark::State& state) {
  const std::string& text = recipe_file(kRecipes[state.range(0)]);
  size_t bytes = 0;
  for (auto _ : state) bytes = dgdctl_render(text);
  state.SetLabel(std::string(kRecipes[state.range(0)]) + "/deploy.yaml (" + std::to_string(bytes) + " bytes of YAML)");
}

void BM_DgdctlRenderText(benchmark::State& state) {
  const char* recipe = kRecipes[state.range(0)];
  const std::string text = user_dgd(recipe);
  size_t bytes = 0;
  for (auto _ : state) bytes = dgdctl_render(text);
  state.SetLabel(std::string(recipe) + " (" + std::to_string(bytes) + " bytes of YAML)");
}

}  // namespace

BENCHMARK(BM_Render)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ExpandRender)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ReadYaml)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DgdctlRenderFile)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_DgdctlRenderText)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
