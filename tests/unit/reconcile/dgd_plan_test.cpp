// The planner: what one reconcile is to do, decided from the caches and the memo alone.
#include "dgd/reconcile/dgd_plan.h"

#include <gtest/gtest.h>

#include "dgd/reconcile/dgd_executor.h"
#include "dgd/reconcile/pass_status.h"
#include "dgd/render/render.h"
#include "fake_cluster.h"

namespace dgd::reconcile {
namespace {

using nlohmann::json;
using namespace fake;

std::vector<std::string> keys_of(const std::vector<ChildWrite>& writes) {
  std::vector<std::string> out;
  for (const auto& w : writes) out.push_back(object_key(w.object));
  return out;
}

class DgdPlanTest : public ::testing::Test {
 protected:
  DgdPlanTest() {
    cluster.objects[FakeCluster::dgd_key("ns", "g")] = user_dgd();
    add_model_cache(cluster, /*filled=*/true);
  }
  Plan plan_now(const DgdMemo* memo = nullptr) { return plan({{"ns", "g"}, cluster}, recipes::Catalog::builtin(), memo); }
  // Carries `p` out as the reconciler does and returns the memo it leaves.
  std::shared_ptr<const DgdMemo> carry_out(const Plan& p) {
    kube::FakeClock clock;
    EventRecorder events(cluster, "test");
    SharedDownloads downloads(clock);
    ExecutorContext ctx{cluster, events, downloads};
    const Execution ex = execute(p, nullptr, ctx, {"ns", "g"});
    EXPECT_TRUE(ex.settled(p));
    return memo_after(p, ex, observe_status(p, ex, cluster, nullptr, events, {"ns", "g"}, "t"));
  }
  FakeCluster cluster;
};

TEST_F(DgdPlanTest, AFirstPlanCreatesEveryRenderedChildInTheRenderersOrderAndWritesNothing) {
  const Plan p = plan_now();
  ASSERT_EQ(p.kind, PlanKind::kSync);
  EXPECT_EQ(cluster.writes(), 0);
  EXPECT_TRUE(p.creates());
  // The renderer's objects, less the cache PVC the user made and the completed download.
  const auto expanded = recipes::expand(recipes::Catalog::builtin(), api::from_json(user_dgd()).dgd);
  render::RenderOptions ro;
  ro.default_namespace = "ns";
  std::vector<std::string> want;
  for (const auto& o : render::render(expanded.graph, ro).objects) {
    const std::string kind = o.value("kind", "");
    if (kind != "Job" && kind != "PersistentVolumeClaim") want.push_back(object_key(o));
  }
  EXPECT_EQ(keys_of(p.apply), want);
  for (const auto& w : p.apply) {
    EXPECT_FALSE(w.exists);
    EXPECT_TRUE(is_controlled_by(w.object, kUid)) << object_key(w.object);
  }
  EXPECT_TRUE(p.remove.empty());
  EXPECT_FALSE(p.download_job) << "the cache holds a completed download";
}

TEST_F(DgdPlanTest, TheSameCacheGivesTheSamePlan) {
  const Plan a = plan_now(), b = plan_now();
  ASSERT_EQ(a.apply.size(), b.apply.size());
  for (size_t i = 0; i < a.apply.size(); ++i) EXPECT_EQ(a.apply[i].object, b.apply[i].object);
  EXPECT_EQ(a.components.size(), b.components.size());
}

TEST_F(DgdPlanTest, AnEmptyCacheAsksForTheDownloadJobAndHoldsTheWorkersBack) {
  cluster.objects.erase(job_key());
  const Plan p = plan_now();
  ASSERT_TRUE(p.download_job);
  EXPECT_EQ(object_key(*p.download_job), job_key());
  for (const auto& w : p.apply) {
    const std::string name = w.object["metadata"]["name"];
    if (w.object["kind"] == "Deployment" && name != "g-frontend") {
      EXPECT_EQ(w.object["spec"]["replicas"], 0) << name;
    }
  }
}

TEST_F(DgdPlanTest, AnInvalidSpecPlansNoWrite) {
  cluster.dgd()["spec"]["components"] = json::array({{{"name", "DecodeWorker"}, {"replicas", -1}}});
  const Plan p = plan_now();
  EXPECT_EQ(p.kind, PlanKind::kInvalidSpec);
  EXPECT_TRUE(p.apply.empty());
  EXPECT_TRUE(p.remove.empty());
  ASSERT_FALSE(p.spec_errors.empty());
  EXPECT_NE(p.spec_errors[0].find("spec.components[0].replicas"), std::string::npos) << p.spec_errors[0];
}

TEST_F(DgdPlanTest, AGoneOrDeletingDgdPlansNothing) {
  cluster.dgd()["metadata"]["deletionTimestamp"] = "2026-11-30T06:00:00Z";
  EXPECT_EQ(plan_now().kind, PlanKind::kDeleting);
  cluster.objects.erase(FakeCluster::dgd_key("ns", "g"));
  EXPECT_EQ(plan_now().kind, PlanKind::kGone);
}

TEST_F(DgdPlanTest, AMemoThatMatchesTheCacheGivesTheStatusOnlyAndOneThatDoesNotAFullPlan) {
  const auto memo = carry_out(plan_now());
  cluster.roll_out_all();  // statuses move, nothing else
  const int reads = cluster.owned_reads;
  Plan p = plan_now(memo.get());
  EXPECT_EQ(p.kind, PlanKind::kStatusOnly);
  EXPECT_EQ(cluster.owned_reads, reads) << "a status plan reads versions, not the children";
  EXPECT_EQ(p.deployments.size(), 3u);
  EXPECT_EQ(p.components.size(), 3u);

  cluster.edit_child("/Service/ns/g-frontend", [](json& s) { s["spec"]["ports"][0]["port"] = 1; });
  p = plan_now(memo.get());
  EXPECT_EQ(p.kind, PlanKind::kSync);
  EXPECT_EQ(keys_of(p.apply), (std::vector<std::string>{"/Service/ns/g-frontend"}));

  // The DGD's own labels are read by the spec pipeline: a change plans in full.
  const auto settled = carry_out(p);
  cluster.dgd()["metadata"]["labels"] = {{"team", "a"}};
  EXPECT_EQ(plan_now(settled.get()).kind, PlanKind::kSync);
}

}  // namespace
}  // namespace dgd::reconcile
