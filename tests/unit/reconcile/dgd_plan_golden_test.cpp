// Golden files of the planner: for a few DGDs (catalog recipes and hand-written ones) in
// a few cluster states, what plan() decides from the caches (its kind, the children to
// apply with the field where each differs, those to remove, the download Job, the spec
// errors) and the status the pass then writes, compared with tests/golden/plan/<case>.yaml.
// A change to the planner, the renderer or a recipe shows up here as a diff to review.
// Regenerate every file with one command, from the build directory:
//   DGD_UPDATE_GOLDEN=1 ./tests/unit_reconcile --gtest_filter='PlanGolden*'
// and read `git diff tests/golden/plan` before committing it.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <sstream>

#include "dgd/api/yaml.h"
#include "dgd/kube/clock.h"
#include "dgd/reconcile/dgd_executor.h"
#include "dgd/reconcile/dgd_plan.h"
#include "dgd/reconcile/pass_status.h"
#include "common/golden_file.h"
#include "fake_cluster.h"

namespace dgd::reconcile {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using namespace fake;

constexpr const char* kNow = "2026-12-01T00:00:00Z";

const char* kind_name(PlanKind k) {
  switch (k) {
    case PlanKind::kGone: return "Gone";
    case PlanKind::kDeleting: return "Deleting";
    case PlanKind::kWaitForCache: return "WaitForCache";
    case PlanKind::kStatusOnly: return "StatusOnly";
    case PlanKind::kInvalidSpec: return "InvalidSpec";
    case PlanKind::kSync: return "Sync";
  }
  return "?";
}

// A hand-written graph: no recipe, no model cache, explicit containers.
json hand_written_dgd() {
  return json::parse(R"({
    "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
    "metadata": {"name": "g", "namespace": "ns", "uid": "dgd-uid-1", "generation": 1, "resourceVersion": "1"},
    "spec": {"backendFramework": "vllm", "model": {"id": "Qwen/Qwen3-0.6B"},
      "components": [
        {"name": "Frontend", "type": "frontend",
         "podTemplate": {"spec": {"containers": [{"name": "main", "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.0"}]}}},
        {"name": "Worker", "type": "worker", "replicas": 2, "engine": {"tensorParallelSize": 1},
         "podTemplate": {"spec": {"containers": [{"name": "main", "image": "nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.6.0",
                                                  "resources": {"limits": {"nvidia.com/gpu": 1}}}]}}}]}
  })");
}

// What a pass decides and reports, in a stable order.
class Case {
 public:
  explicit Case(json dgd) { cluster.objects[FakeCluster::dgd_key("ns", "g")] = std::move(dgd); }

  Plan plan_now() { return plan({{"ns", "g"}, cluster}, recipes::Catalog::builtin(), nullptr); }

  // Carries the plan out on the fake cluster and returns the status the pass writes.
  json carry_out(const Plan& p) {
    ExecutorContext ctx{cluster, events, downloads};
    const Execution ex = execute(p, nullptr, ctx, {"ns", "g"});
    const StatusInput in = observe_status(p, ex, cluster, nullptr, events, {"ns", "g"}, kNow);
    return compute_status(in);
  }

  // The plan of the cluster as it stands and the status its pass writes.
  std::string render() {
    const Plan p = plan_now();
    json out = {{"plan", describe(p)}};
    if (p.kind == PlanKind::kSync || p.kind == PlanKind::kInvalidSpec || p.kind == PlanKind::kStatusOnly) {
      out["status"] = carry_out(p);
    }
    return api::json_to_yaml(out);
  }

  // Brings the graph to a settled, rolled-out state.
  void settle() {
    for (int i = 0; i < 2; ++i) {
      const Plan p = plan_now();
      json status = carry_out(p);
      cluster.dgd()["status"] = status;
      cluster.complete_jobs();
      cluster.roll_out_all();
    }
  }

  static json describe(const Plan& p) {
    json d = {{"kind", kind_name(p.kind)}};
    if (!p.spec_errors.empty()) d["specErrors"] = p.spec_errors;
    if (!p.sync_problems.empty()) d["syncProblems"] = p.sync_problems;
    if (!p.backend_framework.empty()) d["backendFramework"] = p.backend_framework;
    json apply = json::array();
    for (const auto& w : p.apply) {
      json a = {{"key", object_key(w.object)}, {"exists", w.exists}};
      if (!w.change.empty()) a["change"] = w.change;
      a["object"] = w.object;
      apply.push_back(a);
    }
    d["apply"] = apply;
    json remove = json::array();
    for (const auto& w : p.remove) remove.push_back(object_key(w.object));
    d["remove"] = remove;
    if (p.download_job) d["downloadJob"] = *p.download_job;
    json components = json::array();
    for (const auto& c : p.components) {
      components.push_back({{"name", c.name}, {"type", c.type}, {"desiredReplicas", c.desired_replicas},
                            {"deployment", c.deployment}});
    }
    d["components"] = components;
    if (p.memo) d["holdsWorkersBack"] = p.memo->held_workers;
    return d;
  }

  kube::FakeClock clock;
  FakeCluster cluster;
  EventRecorder events{cluster, "golden"};
  SharedDownloads downloads{clock};
};

struct GoldenCase {
  std::string name;
  std::function<std::string()> run;
};
void PrintTo(const GoldenCase& c, std::ostream* os) { *os << c.name; }

std::vector<GoldenCase> cases() {
  return {
      {"recipe-first-pass",
       [] {
         Case c(user_dgd());
         add_model_cache(c.cluster, /*filled=*/true);
         return c.render();
       }},
      {"recipe-empty-model-cache",
       [] {
         Case c(user_dgd());
         add_model_cache(c.cluster, /*filled=*/false);
         return c.render();
       }},
      {"recipe-invalid-override",
       [] {
         json d = user_dgd();
         d["spec"]["components"] = json::array({{{"name", "DecodeWorker"}, {"replicas", -1}}});
         Case c(d);
         add_model_cache(c.cluster, /*filled=*/true);
         return c.render();
       }},
      {"recipe-drift-and-removed-component",
       [] {
         Case c(user_dgd());
         add_model_cache(c.cluster, /*filled=*/true);
         c.settle();
         c.cluster.edit_child("/Service/ns/g-frontend", [](json& s) { s["spec"]["ports"][0]["port"] = 1; });
         // A child of the DGD it no longer renders (a component removed from the spec).
         json stale = c.cluster.objects.at("/Service/ns/g-frontend");
         stale["metadata"]["name"] = "g-oldcomponent";
         stale["metadata"]["uid"] = "stale-uid";
         c.cluster.objects["/Service/ns/g-oldcomponent"] = stale;
         return c.render();
       }},
      {"hand-written-first-pass", [] { return Case(hand_written_dgd()).render(); }},
      {"hand-written-settled",
       [] {
         Case c(hand_written_dgd());
         c.settle();
         return c.render();
       }},
  };
}

fs::path golden_path(const std::string& name) {
  return fs::path(DGD_SOURCE_DIR) / "tests" / "golden" / "plan" / (name + ".yaml");
}

class PlanGolden : public ::testing::TestWithParam<GoldenCase> {};

TEST_P(PlanGolden, PlanAndStatusMatchTheCheckedInFile) {
  const std::string got = GetParam().run();
  dgd::test_support::expect_matches_golden(got, golden_path(GetParam().name));
}

INSTANTIATE_TEST_SUITE_P(Cases, PlanGolden, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<GoldenCase>& info) {
                           std::string n;
                           for (char ch : info.param.name) n += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
                           return n;
                         });

TEST(PlanGoldenFiles, EveryGoldenFileBelongsToACase) {
  const fs::path dir = golden_path("x").parent_path();
  if (!fs::exists(dir)) GTEST_SKIP();
  std::set<std::string> names;
  for (const auto& c : cases()) names.insert(c.name + ".yaml");
  for (const auto& e : fs::directory_iterator(dir)) {
    EXPECT_EQ(names.count(e.path().filename().string()), 1u) << e.path() << " belongs to no case";
  }
}

}  // namespace
}  // namespace dgd::reconcile
