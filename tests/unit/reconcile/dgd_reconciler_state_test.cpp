// What the reconciler keeps of a DGD ends with the DGD, memo or not; what a pass reads
// of the model cache's download records comes from the caches, not from the server.
#include <gtest/gtest.h>

#include <algorithm>

#include "dgd/kube/clock.h"
#include "dgd/recipes/catalog.h"
#include "dgd/reconcile/dgd_reconciler.h"
#include "dgd/reconcile/model_cache.h"
#include "dgd/render/render.h"
#include "fake_cluster.h"

namespace dgd::reconcile {
namespace {

using nlohmann::json;
using namespace fake;

class DgdReconcilerStateTest : public ::testing::Test {
 protected:
  DgdReconcilerStateTest() : reconciler(cluster, recipes::Catalog::builtin(), options()) {
    cluster.objects[FakeCluster::dgd_key("ns", "g")] = user_dgd();
    add_model_cache(cluster, /*filled=*/true);
  }
  DgdReconcilerOptions options() {
    DgdReconcilerOptions o;
    o.status_progress_interval = std::chrono::milliseconds(0);
    o.clock = &clock;
    return o;
  }
  runtime::ReconcileResult run() { return reconciler.reconcile({"ns", "g"}); }

  kube::FakeClock clock;
  FakeCluster cluster;
  DgdReconciler reconciler;
};

// An invalid DGD never settles, so no memo is ever made of it; its InvalidSpec event is
// remembered all the same, and must go when the DGD does.
TEST_F(DgdReconcilerStateTest, ADgdDeletedWithoutAMemoLeavesNoEventStateBehind) {
  cluster.dgd()["spec"]["components"] = json::array({{{"name", "DecodeWorker"}, {"replicas", -1}}});
  EXPECT_EQ(run().retry, runtime::RetryClass::kTerminal);
  ASSERT_EQ(cluster.event_reasons(), (std::vector<std::string>{kReasonInvalidSpec}));
  EXPECT_EQ(reconciler.dgds_with_events(), 1u);
  cluster.objects.erase(FakeCluster::dgd_key("ns", "g"));
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(reconciler.dgds_with_events(), 0u);
}

TEST_F(DgdReconcilerStateTest, ADgdDeletedAfterItsMemoWasDroppedLeavesNoEventStateBehind) {
  ASSERT_TRUE(run().ok());
  cluster.roll_out_all();
  ASSERT_TRUE(run().ok());
  ASSERT_EQ((*condition(cluster.dgd(), "Ready"))["status"], "True");
  EXPECT_EQ(reconciler.dgds_with_events(), 1u);
  reconciler.forget_memo("ns/g");
  cluster.objects.erase(FakeCluster::dgd_key("ns", "g"));
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(reconciler.dgds_with_events(), 0u);
}

// The recipe pages' own download Job (labelled with the cache, not by the operator) is in
// the Job cache: passes wait on it without listing Jobs from the server, at start and at
// rest.
TEST_F(DgdReconcilerStateTest, ADownloadRecordMadeOutsideIsReadFromTheCacheNotListed) {
  cluster.objects.erase(job_key());
  const auto expanded = recipes::expand(recipes::Catalog::builtin(), api::from_json(user_dgd()).dgd);
  const ModelCacheSpec spec = *model_cache_spec(expanded.graph);
  cluster.objects["batch/Job/ns/model-download"] = {
      {"apiVersion", "batch/v1"}, {"kind", "Job"},
      {"metadata", {{"name", "model-download"}, {"namespace", "ns"}, {"uid", "record-uid"}, {"resourceVersion", "7"},
                    {"labels", {{render::kLabelModelCache, spec.claim}}},
                    {"annotations", {{kAnnotationModelId, spec.model}, {kAnnotationModelRevision, spec.revision}}}}},
      {"status", {{"succeeded", 1}, {"conditions", json::array({{{"type", "Complete"}, {"status", "True"}}})}}}};
  ASSERT_TRUE(run().ok());
  cluster.roll_out_all();
  for (int i = 0; i < 3; ++i) ASSERT_TRUE(run().ok());
  reconciler.forget_memo("ns/g");
  ASSERT_TRUE(run().ok());
  EXPECT_EQ(cluster.objects.count(job_key()), 0u) << "no second download";
  EXPECT_EQ((*condition(cluster.dgd(), "Ready"))["status"], "True");
  EXPECT_EQ(std::count(cluster.listed.begin(), cluster.listed.end(), kube::resources::jobs().to_string()), 0)
      << "a LIST of Jobs";
}

}  // namespace
}  // namespace dgd::reconcile
