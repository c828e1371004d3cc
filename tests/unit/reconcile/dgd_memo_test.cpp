// The reconciler's memo saves work and nothing else: passes that drop it at random reach
// the same children and the same status as passes that keep it, through a DGD's life
// (download, rollout, status-only changes, edits, drift, a child deleted and created again,
// an invalid edit and its fix).
#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "dgd/kube/clock.h"
#include "dgd/reconcile/dgd_reconciler.h"
#include "fake_cluster.h"

namespace dgd::reconcile {
namespace {

using nlohmann::json;
using namespace fake;

// The cluster as a user sees it: every object without the fields the server assigns per
// write, and conditions without their transition times (the reconciler stamps the wall clock).
json observable(const FakeCluster& c) {
  json out = json::object();
  for (const auto& [key, o] : c.objects) {
    json v = o;
    for (const char* f : {"resourceVersion", "generation", "uid"}) v["metadata"].erase(f);
    if (v.contains("status") && v["status"].is_object() && v["status"].contains("conditions")) {
      for (auto& cond : v["status"]["conditions"]) cond.erase("lastTransitionTime");
    }
    out[key] = v;
  }
  return out;
}

// One DGD's life, step by step: each step changes the cluster as users and Kubernetes'
// controllers would, then the reconciler runs.
std::vector<std::function<void(FakeCluster&)>> life() {
  auto edit = [](const std::function<void(json&)>& fn) {
    return [fn](FakeCluster& c) {
      json& d = c.dgd();
      fn(d["spec"]);
      d["metadata"]["generation"] = d["metadata"]["generation"].get<int64_t>() + 1;
      d["metadata"]["resourceVersion"] = std::to_string(c.next_rv++);
    };
  };
  return {
      [](FakeCluster&) {},
      [](FakeCluster& c) {  // the download pod runs
        c.edit_child(job_key(), [](json& j) { j["status"] = {{"active", 1}, {"ready", 1}}; }, /*spec=*/false);
      },
      [](FakeCluster& c) { c.complete_jobs(); },
      [](FakeCluster& c) { c.roll_out_all(); },
      [](FakeCluster&) {},
      [](FakeCluster& c) {
        c.edit_child(
            c.deployment_key("DecodeWorker"), [](json& d) { d["status"]["readyReplicas"] = 0; }, /*spec=*/false);
      },
      [](FakeCluster& c) { c.roll_out_all(); },
      edit([](json& spec) { spec["components"] = json::array({{{"name", "DecodeWorker"}, {"replicas", 3}}}); }),
      [](FakeCluster& c) {
        c.edit_child(c.deployment_key("DecodeWorker"), [](json& d) {
          d["status"] = {{"observedGeneration", d["metadata"]["generation"]}, {"replicas", 3}, {"updatedReplicas", 2}};
        }, /*spec=*/false);
      },
      [](FakeCluster& c) { c.roll_out_all(); },
      [](FakeCluster& c) {
        c.edit_child(c.deployment_key("DecodeWorker"), [](json& d) {
          d["spec"]["template"]["spec"]["containers"][0]["args"] = json::array({"--hacked"});
        });
      },
      [](FakeCluster& c) { c.objects.erase("/Service/ns/g-frontend"); },
      [](FakeCluster& c) {  // deleted and created again by someone else: a new uid, the same
                            // generation and labels, another template
        json d = c.objects.at("apps/Deployment/ns/g-frontend");
        d["metadata"]["uid"] = "child-" + std::to_string(c.next_uid++);
        d["metadata"]["resourceVersion"] = std::to_string(c.next_rv++);
        d["spec"]["template"]["spec"]["containers"][0]["args"] = json::array({"--recreated"});
        c.objects["apps/Deployment/ns/g-frontend"] = d;
      },
      [](FakeCluster& c) {
        c.edit_child("apps/Deployment/ns/g-frontend", [](json& d) { d["metadata"]["labels"]["x"] = "y"; }, false);
      },
      [](FakeCluster& c) { c.roll_out_all(); },
      edit([](json& spec) { spec["components"] = json::array({{{"name", "DecodeWorker"}, {"replicas", -1}}}); }),
      edit([](json& spec) { spec.erase("components"); }),
      [](FakeCluster& c) { c.roll_out_all(); },
      [](FakeCluster&) {},
  };
}

struct Operator {
  kube::FakeClock clock;
  FakeCluster cluster;
  std::unique_ptr<DgdReconciler> reconciler;
  Operator() {
    cluster.objects[FakeCluster::dgd_key("ns", "g")] = user_dgd();
    add_model_cache(cluster, /*filled=*/false);
    DgdReconcilerOptions o;
    o.status_progress_interval = std::chrono::milliseconds(0);
    o.clock = &clock;
    reconciler = std::make_unique<DgdReconciler>(cluster, recipes::Catalog::builtin(), o);
  }
  void pass() { reconciler->reconcile({"ns", "g"}); }
};

TEST(DgdMemo, DroppingItAtRandomGivesTheSameChildrenAndStatus) {
  for (unsigned seed = 1; seed <= 8; ++seed) {
    std::mt19937 rng(seed);
    Operator kept, dropped, never;
    const auto steps = life();
    for (size_t i = 0; i < steps.size(); ++i) {
      for (Operator* r : {&kept, &dropped, &never}) steps[i](r->cluster);
      for (int n = 0; n < 2; ++n) {  // the change's own wake, then one more
        kept.pass();
        if (rng() % 2 == 0) dropped.reconciler->forget_memo("ns/g");
        dropped.pass();
        never.reconciler->forget_memo("ns/g");
        never.pass();
      }
      const json want = observable(never.cluster);
      ASSERT_EQ(observable(kept.cluster), want) << "seed " << seed << " step " << i;
      ASSERT_EQ(observable(dropped.cluster), want) << "seed " << seed << " step " << i;
    }
    // The memo was used: the passes that kept it read the children in full less often.
    EXPECT_LT(kept.cluster.owned_reads, never.cluster.owned_reads / 2);
  }
}

}  // namespace
}  // namespace dgd::reconcile
