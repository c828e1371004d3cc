// A reconciler over the in-memory cluster (fake_cluster.h) holding one recipe DGD ns/g
// with a filled model cache, on a fake clock, writing every status change at once: the
// tests drive whole passes (run), edit the spec as `kubectl edit` would, and settle the
// graph to Ready.
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "dgd/kube/clock.h"
#include "dgd/recipes/catalog.h"
#include "dgd/reconcile/dgd_reconciler.h"
#include "fake_cluster.h"

namespace dgd::reconcile::fake {

class ReconcilerFixture : public ::testing::Test {
 protected:
  ReconcilerFixture() : reconciler(cluster, recipes::Catalog::builtin(), write_every_change(clock)) {
    cluster.objects[FakeCluster::dgd_key("ns", "g")] = user_dgd();
    add_model_cache(cluster, /*filled=*/true);
  }
  runtime::ReconcileResult run() { return reconciler.reconcile({"ns", "g"}); }
  // Edits the spec as `kubectl edit` would: generation moves.
  void edit(const std::function<void(nlohmann::json&)>& fn) {
    nlohmann::json& d = cluster.dgd();
    fn(d["spec"]);
    d["metadata"]["generation"] = d["metadata"]["generation"].get<int64_t>() + 1;
    d["metadata"]["resourceVersion"] = std::to_string(cluster.next_rv++);
  }
  // Brings the graph to Ready and clears the counters.
  void settle() {
    ASSERT_TRUE(run().ok());
    cluster.roll_out_all();
    ASSERT_TRUE(run().ok());
    const nlohmann::json* ready = condition(cluster.dgd(), "Ready");
    ASSERT_NE(ready, nullptr);
    ASSERT_EQ((*ready)["status"], "True") << cluster.dgd()["status"].dump(2);
    cluster.reset_counts();
  }

  kube::FakeClock clock;
  FakeCluster cluster;
  DgdReconciler reconciler;
};

}  // namespace dgd::reconcile::fake
