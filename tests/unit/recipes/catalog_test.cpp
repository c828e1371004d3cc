// The embedded catalog: every recipe folder parses, names follow upstream, and a request
// for a recipe that does not exist says what to use instead.
#include <gtest/gtest.h>

#include <set>

#include "dgd/api/parse.h"
#include "dgd/recipes/catalog.h"

namespace dgd::recipes {
namespace {


const std::set<std::string> kTargets = {
    "deepseek-v4-flash/vllm/agg-b200-agentic",      "deepseek-v4-flash/vllm/agg-h200-agentic",
    "deepseek-v4-flash/vllm/disagg-b200-agentic",   "deepseek-v4-flash/vllm/disagg-h200-agentic",
    "deepseek-v4.1-flash/sglang/agg-gb200",         "deepseek-v4.1-flash/sglang/disagg-gb200",
    "deepseek-v4.1-flash/vllm/agg-b200-agentic",    "deepseek-v4.1-flash/vllm/agg-gb200-agentic",
    "deepseek-v4.1-flash/vllm/agg-h200-agentic",    "deepseek-v4.1-flash/vllm/disagg-b200-agentic",
    "deepseek-v4.1-flash/vllm/disagg-gb200-agentic", "deepseek-v4.1-flash/vllm/disagg-h200-agentic",
};

TEST(Catalog, HoldsExactlyTheTwelveTargetsSortedByName) {
  const auto& all = Catalog::builtin().all();
  std::set<std::string> names;
  std::string prev;
  for (const auto& r : all) {
    names.insert(r.name);
    EXPECT_LT(prev, r.name);
    prev = r.name;
  }
  EXPECT_EQ(names, kTargets);
}

TEST(Catalog, RecipesLiveWhereTheRecipePagesNameThem) {
  // The pages' commands take these paths verbatim (kubectl apply -f ${RECIPE}/deploy.yaml,
  // kubectl apply -f recipes/deepseek-v4.1-flash/sglang/disagg-gb200/deploy-generic.yaml).
  const auto& c = Catalog::builtin();
  const std::pair<const char*, const char*> want[] = {
      {"deepseek-v4-flash/vllm/agg-b200-agentic", "deepseek-v4/deepseek-v4-flash/vllm/agg-b200-agentic/deploy.yaml"},
      {"deepseek-v4-flash/vllm/disagg-h200-agentic", "deepseek-v4/deepseek-v4-flash/vllm/disagg-h200-agentic/deploy.yaml"},
      {"deepseek-v4.1-flash/sglang/agg-gb200", "deepseek-v4.1-flash/sglang/agg-gb200/deploy.yaml"},
      {"deepseek-v4.1-flash/sglang/disagg-gb200", "deepseek-v4.1-flash/sglang/disagg-gb200/deploy-generic.yaml"},
      {"deepseek-v4.1-flash/vllm/disagg-gb200-agentic", "deepseek-v4.1-flash/vllm/disagg-gb200-agentic/deploy.yaml"},
  };
  for (const auto& [name, path] : want) {
    const Recipe* r = c.find(name);
    ASSERT_NE(r, nullptr) << name;
    EXPECT_EQ(r->path, path);
  }
}

TEST(Catalog, NamesATargetByItsLastThreeFoldersAndRefusesASecondFile) {
  const std::string a = Catalog::builtin().all().at(0).source, b = Catalog::builtin().all().at(1).source;
  const std::vector<EmbeddedFile> files = {
      {"fam/m/vllm/t/deploy.yaml", a, ""},
      {"m2/sglang/t/deploy-generic.yaml", b, ""},
      {"fam/m/vllm/t/deploy-generic.yaml", b, ""},
      {"fam/m/perf/perf.yaml", b, ""},
      {"m/vllm/t/dgd.yaml", b, ""},
  };
  std::vector<api::FieldError> errors;
  const Catalog c = Catalog::from_files(files, &errors);
  ASSERT_EQ(c.all().size(), 2u);
  EXPECT_EQ(c.all()[0].name, "m/vllm/t");
  EXPECT_EQ(c.all()[0].source, a);
  EXPECT_EQ(c.all()[0].path, "fam/m/vllm/t/deploy.yaml");
  EXPECT_EQ(c.all()[1].name, "m2/sglang/t");
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].path, "fam/m/vllm/t/deploy-generic.yaml");
  EXPECT_NE(errors[0].message.find("a second DGD file for recipe m/vllm/t"), std::string::npos) << errors[0].message;
}

TEST(Catalog, BuiltinReadFromCompiledJsonEqualsTheYamlTheUserSees) {
  // builtin() reads the build-time JSON form (src/buildtools/); the same recipes read from
  // their YAML text must give the same documents, or the catalog and the Kustomize
  // folders users apply would disagree.
  std::vector<EmbeddedFile> files;
  for (const auto& r : Catalog::builtin().all()) files.push_back({r.path, r.source, ""});
  const Catalog from_yaml = Catalog::from_files(files, nullptr);
  ASSERT_EQ(from_yaml.all().size(), Catalog::builtin().all().size());
  for (const auto& r : Catalog::builtin().all()) {
    const Recipe* y = from_yaml.find(r.name);
    ASSERT_NE(y, nullptr) << r.name;
    EXPECT_EQ(y->document(), r.document()) << r.name;
    EXPECT_FALSE(r.document().empty()) << r.name;
  }
}

TEST(Catalog, EveryEmbeddedRecipeParsesWithoutProblems) {
  // Re-parse the embedded sources: a recipe that does not parse is silently left out of
  // builtin(), so this is where such a defect shows.
  std::vector<EmbeddedFile> files;
  for (const auto& r : Catalog::builtin().all()) files.push_back({r.path, r.source, ""});
  std::vector<api::FieldError> errors;
  auto c = Catalog::from_files(files, &errors);
  for (const auto& e : errors) ADD_FAILURE() << e.str();
  EXPECT_EQ(c.all().size(), kTargets.size());
}

TEST(Catalog, DgdNamesAndFrameworksFollowUpstream) {
  const auto& c = Catalog::builtin();
  struct Want { const char* recipe; const char* dgd; api::BackendFramework fw; };
  const Want wants[] = {
      {"deepseek-v4.1-flash/vllm/disagg-h200-agentic", "dsv41-flash-vllm-h200-disagg-agentic", api::BackendFramework::kVllm},
      {"deepseek-v4.1-flash/vllm/agg-gb200-agentic", "dsv41-flash-vllm-gb200-agg-agentic", api::BackendFramework::kVllm},
      {"deepseek-v4.1-flash/sglang/agg-gb200", "deepseek-v41-flash-sglang-gb200-agg", api::BackendFramework::kSglang},
      {"deepseek-v4.1-flash/sglang/disagg-gb200", "deepseek-v41-flash-sglang-gb200-disagg", api::BackendFramework::kSglang},
      {"deepseek-v4-flash/vllm/disagg-h200-agentic", "dsv4-flash-disagg-h200-agentic", api::BackendFramework::kVllm},
      {"deepseek-v4-flash/vllm/agg-b200-agentic", "dsv4-flash-agg-b200-agentic", api::BackendFramework::kVllm},
  };
  for (const auto& w : wants) {
    const Recipe* r = c.find(w.recipe);
    ASSERT_NE(r, nullptr) << w.recipe;
    EXPECT_EQ(r->dgd().metadata.name, w.dgd);
    EXPECT_EQ(r->dgd().spec.backend_framework, w.fw) << w.recipe;
    EXPECT_FALSE(r->dgd().spec.recipe.has_value()) << "a recipe must not refer to another recipe";
  }
}

TEST(Catalog, ReplicasAndGpuCountsMatchThePages) {
  // GPUs = sum over worker components of replicas x 4 (every worker has 4 GPUs).
  const std::pair<const char*, int> want[] = {
      {"deepseek-v4.1-flash/vllm/agg-b200-agentic", 8},   {"deepseek-v4.1-flash/vllm/disagg-b200-agentic", 8},
      {"deepseek-v4.1-flash/vllm/agg-gb200-agentic", 8},  {"deepseek-v4.1-flash/vllm/disagg-gb200-agentic", 8},
      {"deepseek-v4.1-flash/vllm/agg-h200-agentic", 16},  {"deepseek-v4.1-flash/vllm/disagg-h200-agentic", 8},
      {"deepseek-v4.1-flash/sglang/agg-gb200", 8},        {"deepseek-v4.1-flash/sglang/disagg-gb200", 8},
      {"deepseek-v4-flash/vllm/agg-b200-agentic", 4},     {"deepseek-v4-flash/vllm/agg-h200-agentic", 4},
      {"deepseek-v4-flash/vllm/disagg-b200-agentic", 12}, {"deepseek-v4-flash/vllm/disagg-h200-agentic", 28},
  };
  for (const auto& [name, gpus] : want) {
    const Recipe* r = Catalog::builtin().find(name);
    ASSERT_NE(r, nullptr) << name;
    int total = 0;
    for (const auto& comp : r->dgd().spec.components) {
      if (!comp.type || !api::is_worker_type(*comp.type)) continue;
      const auto& gpu = comp.pod_template["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"];
      ASSERT_TRUE(gpu.is_string()) << name << " " << comp.name;
      total += comp.replicas.value_or(1) * std::stoi(gpu.get<std::string>());
    }
    EXPECT_EQ(total, gpus) << name;
  }
}

TEST(Catalog, SglangOnB200OrH200SaysThereIsNoSuchRecipeAndWhatToUse) {
  const auto& c = Catalog::builtin();
  EXPECT_EQ(c.find("deepseek-v4.1-flash/sglang/agg-h200"), nullptr);
  const std::string h200 = c.explain_missing("deepseek-v4.1-flash/sglang/agg-h200");
  EXPECT_NE(h200.find("there is no SGLang recipe for H200"), std::string::npos) << h200;
  EXPECT_NE(h200.find("deepseek-v4.1-flash/vllm/agg-h200-agentic"), std::string::npos) << h200;
  EXPECT_NE(h200.find("deepseek-v4.1-flash/sglang/agg-gb200"), std::string::npos) << h200;

  const std::string b200 = c.explain_missing("deepseek-v4.1-flash/sglang/disagg-b200");
  EXPECT_NE(b200.find("there is no SGLang recipe for B200"), std::string::npos) << b200;
  EXPECT_NE(b200.find("deepseek-v4.1-flash/vllm/disagg-b200-agentic"), std::string::npos) << b200;
  EXPECT_EQ(b200.find("gb200-agentic"), std::string::npos) << "B200 must not suggest GB200 vLLM: " << b200;
}

TEST(Catalog, UnknownNameListsTheModelsRecipes) {
  const std::string msg = Catalog::builtin().explain_missing("deepseek-v4-flash/vllm/agg-gb200-agentic");
  EXPECT_NE(msg.find("unknown recipe"), std::string::npos);
  EXPECT_NE(msg.find("deepseek-v4-flash/vllm/agg-b200-agentic"), std::string::npos) << msg;
  EXPECT_EQ(msg.find("deepseek-v4.1-flash"), std::string::npos) << msg;
}

TEST(Catalog, EmbedsTheNicSelectionScript) {
  const std::string* s = embedded_file("scripts/select-rdma-nics.sh");
  ASSERT_NE(s, nullptr);
  EXPECT_NE(s->find("UCX_NET_DEVICES"), std::string::npos);
  EXPECT_EQ(embedded_file("scripts/nope.sh"), nullptr);
}

}  // namespace
}  // namespace dgd::recipes
