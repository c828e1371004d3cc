// The worker generation: which edits roll the workers, and what a generation stamps.
#include "dgd/render/worker_generation.h"

#include <gtest/gtest.h>

#include <regex>

#include <nlohmann/json.hpp>

#include "dgd/api/parse.h"
#include "dgd/recipes/catalog.h"
#include "dgd/recipes/expand.h"
#include "dgd/render/render.h"

namespace dgd::render {
namespace {

using nlohmann::json;

const char* kRecipe = "deepseek-v4.1-flash/vllm/disagg-h200-agentic";

api::Dgd recipe_graph() {
  auto p = api::parse(std::string("apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\n"
                                  "metadata: {name: g, namespace: ns1}\nspec: {recipe: ") + kRecipe + "}\n");
  EXPECT_TRUE(p.ok());
  auto e = recipes::expand(recipes::Catalog::builtin(), p.dgd);
  EXPECT_TRUE(e.ok());
  return e.graph;
}

api::Component& component(api::Dgd& g, const std::string& name) {
  for (auto& c : g.spec.components) {
    if (c.name == name) return c;
  }
  throw std::runtime_error("no component " + name);
}

std::string hash_of(const api::Dgd& g) {
  const auto r = render(g);
  EXPECT_TRUE(r.ok());
  std::string hash;
  for (const auto& o : r.objects) {
    if (o["kind"] == "Deployment" && is_worker_object(o)) {
      const std::string h = o["metadata"]["labels"].value(kLabelWorkerHash, "");
      EXPECT_TRUE(hash.empty() || h == hash) << "every worker carries the same generation";
      hash = h;
    }
  }
  return hash;
}

void annotate(api::Component& c, const std::string& key, const std::string& value) {
  c.pod_template["metadata"]["annotations"][key] = value;
}

TEST(WorkerGeneration, IsEightLowercaseHexDigitsTheFrontendsStrictMatcherAccepts) {
  EXPECT_TRUE(std::regex_match(hash_of(recipe_graph()), std::regex("[0-9a-f]{8}")));
}

TEST(WorkerGeneration, AnyWorkerChangeRollsEveryWorker) {
  const std::string base = hash_of(recipe_graph());
  auto g = recipe_graph();
  component(g, "DecodeWorker").engine->kv_cache_dtype = "auto";
  EXPECT_NE(hash_of(g), base);
  g = recipe_graph();
  component(g, "PrefillWorker").pod_template["spec"]["containers"][0]["image"] = "nvcr.io/other:1";
  EXPECT_NE(hash_of(g), base);
  g = recipe_graph();
  annotate(component(g, "PrefillWorker"), "example.com/note", "x");
  EXPECT_NE(hash_of(g), base);
}

TEST(WorkerGeneration, ReplicasRestartsRolloutAnnotationsAndTheFrontendDoNot) {
  const std::string base = hash_of(recipe_graph());
  auto g = recipe_graph();
  component(g, "DecodeWorker").replicas = 3;
  EXPECT_EQ(hash_of(g), base);
  g = recipe_graph();
  annotate(component(g, "DecodeWorker"), "nvidia.com/restartAt", "2026-12-01T00:00:00Z");
  annotate(component(g, "DecodeWorker"), "nvidia.com/deployment-rolling-update-max-surge", "0");
  annotate(component(g, "PrefillWorker"), "nvidia.com/deployment-strategy", "Recreate");
  EXPECT_EQ(hash_of(g), base);
  g = recipe_graph();
  component(g, "Frontend").pod_template["spec"]["containers"][0]["image"] = "nvcr.io/other:1";
  EXPECT_EQ(hash_of(g), base);
}

TEST(WorkerGeneration, StampsNameSelectorLabelAndTheRuntimeSuffix) {
  const auto r = render(recipe_graph());
  const std::string hash = hash_of(recipe_graph());
  int workers = 0;
  for (const auto& o : r.objects) {
    if (o["kind"] != "Deployment") continue;
    const json& pod = o["spec"]["template"];
    std::map<std::string, std::string> env;
    for (const auto& e : pod["spec"]["containers"][0]["env"]) env[e["name"]] = e.value("value", "");
    if (!is_worker_object(o)) {
      EXPECT_EQ(o["metadata"]["name"], "g-frontend");
      EXPECT_EQ(env["DYN_NAMESPACE_PREFIX"], "ns1-g");
      EXPECT_EQ(env["DYN_NAMESPACE_PREFIX_STRICT"], "true");
      EXPECT_EQ(env.count(kEnvWorkerSuffix), 0u);
      continue;
    }
    ++workers;
    const std::string name = o["metadata"]["name"];
    EXPECT_EQ(name.substr(name.size() - 9), "-" + hash);
    EXPECT_EQ(o["spec"]["selector"]["matchLabels"]["nvidia.com/selector"], name);
    EXPECT_EQ(pod["metadata"]["labels"]["nvidia.com/selector"], name);
    EXPECT_EQ(pod["metadata"]["labels"][kLabelWorkerHash], hash);
    EXPECT_EQ(env[kEnvWorkerSuffix], hash);
    EXPECT_EQ(env["DYN_NAMESPACE"], "ns1-g");
  }
  EXPECT_EQ(workers, 2);
}

TEST(WorkerGeneration, NoWorkersNoHash) {
  EXPECT_EQ(worker_generation_hash({json{{"kind", "Deployment"}, {"metadata", {{"labels", {{kLabelComponentType, "frontend"}}}}}}}),
            "");
}

}  // namespace
}  // namespace dgd::render
