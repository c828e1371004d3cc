// The simulated Deployment and ReplicaSet controllers: rollout math, revisions,
// status fields the operator and `kubectl rollout status` read.
#include "cluster_fake.h"

#include "kubesim/cluster/deployment_controller.h"

#include <gtest/gtest.h>

namespace kubesim::cluster::testing {
namespace {

Json deployment(const std::string& name, int replicas, Json strategy = nullptr) {
  Json d = {{"apiVersion", "apps/v1"},
            {"kind", "Deployment"},
            {"metadata", {{"name", name}, {"namespace", "default"}}},
            {"spec",
             {{"replicas", replicas},
              {"selector", {{"matchLabels", {{"app", name}}}}},
              {"template",
               {{"metadata", {{"labels", {{"app", name}}}}},
                {"spec", {{"containers", Json::array({{{"name", "main"}, {"image", "img:1"}}})}}}}}}}};
  if (!strategy.is_null()) d["spec"]["strategy"] = strategy;
  return d;
}

Json rolling(Json surge, Json unavailable) {
  return {{"type", "RollingUpdate"}, {"rollingUpdate", {{"maxSurge", surge}, {"maxUnavailable", unavailable}}}};
}

TEST(ClusterDeployment, FencepostsRoundSurgeUpAndUnavailableDown) {
  auto fp = [](int replicas, Json surge, Json unavailable) {
    return resolve_fenceposts(deployment("d", replicas, rolling(surge, unavailable)));
  };
  Fenceposts a = fp(10, "25%", "25%");
  EXPECT_EQ(a.max_surge, 3);
  EXPECT_EQ(a.max_unavailable, 2);
  Fenceposts b = fp(1, "25%", "25%");
  EXPECT_EQ(b.max_surge, 1);
  EXPECT_EQ(b.max_unavailable, 0);
  Fenceposts c = fp(4, 0, 0);  // both zero: one may be unavailable, or nothing could move
  EXPECT_EQ(c.max_surge, 0);
  EXPECT_EQ(c.max_unavailable, 1);
  Fenceposts d = fp(3, "50%", "50%");
  EXPECT_EQ(d.max_surge, 2);
  EXPECT_EQ(d.max_unavailable, 1);
  Fenceposts e = resolve_fenceposts(deployment("d", 4));  // defaults 25% / 25%
  EXPECT_EQ(e.max_surge, 1);
  EXPECT_EQ(e.max_unavailable, 1);
}

TEST(ClusterDeployment, TemplateHashIsStableAndTemplateSensitive) {
  Json t = deployment("d", 1)["spec"]["template"];
  std::string h = pod_template_hash(t);
  EXPECT_EQ(h, pod_template_hash(t));
  EXPECT_GE(h.size(), 6u);
  EXPECT_EQ(h.find_first_not_of(kNameAlphabet), std::string::npos);
  Json t2 = t;
  t2["spec"]["containers"][0]["image"] = "img:2";
  EXPECT_NE(h, pod_template_hash(t2));
  EXPECT_NE(h, pod_template_hash(t, 1));  // collisionCount changes the hash
}

const Json* rs_of(FakeCluster& c, const std::string& deploy, const Json& d_template) {
  return c.find("replicasets", "default", deploy + "-" + pod_template_hash(d_template));
}

TEST(ClusterDeployment, CreatesReplicaSetPodsAndCompleteStatus) {
  FakeCluster c;
  c.add("nodes", gpu_node("n1"));
  Json& d = c.add("deployments", deployment("web", 3));
  std::string duid = uid_of(d);
  Json tmpl = d["spec"]["template"];
  c.settle();
  const Json* rs = rs_of(c, "web", tmpl);
  ASSERT_NE(rs, nullptr);
  std::string hash = pod_template_hash(tmpl);
  EXPECT_TRUE(controlled_by(*rs, duid));
  EXPECT_EQ(str_at(*rs, {"metadata", "labels", "pod-template-hash"}), hash);
  EXPECT_EQ(str_at(*rs, {"spec", "selector", "matchLabels", "pod-template-hash"}), hash);
  EXPECT_EQ(str_at(*rs, {"metadata", "annotations", "deployment.kubernetes.io/revision"}), "1");
  auto pods = c.pods_owned_by(uid_of(*rs));
  ASSERT_EQ(pods.size(), 3u);
  for (const Json* p : pods) {
    EXPECT_EQ(name_of(*p).rfind("web-" + hash + "-", 0), 0u) << name_of(*p);
    EXPECT_EQ(name_of(*p).size(), ("web-" + hash + "-").size() + 5);
    EXPECT_EQ(str_at(*p, {"metadata", "labels", "pod-template-hash"}), hash);
    EXPECT_TRUE(condition_true(*p, "Ready"));
  }
  const Json& dep = *c.find("deployments", "default", "web");
  EXPECT_EQ(str_at(dep, {"metadata", "annotations", "deployment.kubernetes.io/revision"}), "1");
  const Json& st = dep["status"];
  EXPECT_EQ(st.value("observedGeneration", 0), 1);
  EXPECT_EQ(st.value("replicas", 0), 3);
  EXPECT_EQ(st.value("updatedReplicas", 0), 3);
  EXPECT_EQ(st.value("readyReplicas", 0), 3);
  EXPECT_EQ(st.value("availableReplicas", 0), 3);
  EXPECT_FALSE(st.contains("unavailableReplicas"));
  const Json* avail = find_condition(st["conditions"], "Available");
  const Json* prog = find_condition(st["conditions"], "Progressing");
  ASSERT_TRUE(avail && prog);
  EXPECT_EQ(avail->value("status", ""), "True");
  EXPECT_EQ(avail->value("reason", ""), "MinimumReplicasAvailable");
  EXPECT_EQ(prog->value("status", ""), "True");
  EXPECT_EQ(prog->value("reason", ""), "NewReplicaSetAvailable");
  EXPECT_EQ(prog->value("message", ""), "ReplicaSet \"" + name_of(*rs) + "\" has successfully progressed.");
  EXPECT_EQ(c.step(), 0u);  // converged: nothing written at rest
}

// Rolls an image change and checks the fenceposts in every intermediate state.
void check_rollout(Json strategy, int replicas, int max_total, int min_available) {
  FakeCluster c(KubeletOptions{std::chrono::milliseconds(300), std::chrono::milliseconds(700), 1000ms, 200ms});
  for (int i = 0; i < 4; ++i) c.add("nodes", gpu_node("n" + std::to_string(i)));
  c.add("deployments", deployment("w", replicas, strategy));
  c.settle(60000ms);
  c.edit("deployments", "default", "w",
         [](Json& d) { d["spec"]["template"]["spec"]["containers"][0]["image"] = "img:2"; });
  int max_seen_total = 0, min_seen_available = replicas;
  bool saw_mixed = false;
  for (int i = 0; i < 2000; ++i) {
    size_t n = c.step();
    int total = 0, available = 0, v1 = 0, v2 = 0;
    for (const auto& p : c.snap.pods) {
      if (is_terminating(p)) continue;
      ++total;
      if (condition_true(p, "Ready")) ++available;
      (p["spec"]["containers"][0]["image"] == "img:1" ? v1 : v2)++;
    }
    max_seen_total = std::max(max_seen_total, total);
    min_seen_available = std::min(min_seen_available, available);
    if (v1 > 0 && v2 > 0) saw_mixed = true;
    if (n == 0) {
      if (c.next_wakeup == TimePoint::max()) break;
      c.env().now = std::max(c.now(), c.next_wakeup);
    }
  }
  EXPECT_TRUE(saw_mixed);
  EXPECT_LE(max_seen_total, max_total);
  EXPECT_GE(min_seen_available, min_available);
  const Json& d = *c.find("deployments", "default", "w");
  EXPECT_EQ(str_at(d, {"metadata", "annotations", "deployment.kubernetes.io/revision"}), "2");
  EXPECT_EQ(d["status"].value("updatedReplicas", 0), replicas);
  EXPECT_EQ(d["status"].value("availableReplicas", 0), replicas);
  EXPECT_EQ(d["status"].value("replicas", 0), replicas);
  EXPECT_EQ(d["status"].value("observedGeneration", 0), 2);
  EXPECT_EQ(find_condition(d["status"]["conditions"], "Progressing")->value("reason", ""), "NewReplicaSetAvailable");
  int old_rs = 0;
  for (const auto& rs : c.snap.replicasets)
    if (rs["spec"]["template"]["spec"]["containers"][0]["image"] == "img:1") {
      ++old_rs;
      EXPECT_EQ(rs["spec"].value("replicas", -1), 0);
      EXPECT_EQ(str_at(rs, {"metadata", "annotations", "deployment.kubernetes.io/revision"}), "1");
    }
  EXPECT_EQ(old_rs, 1);  // kept for rollback (revisionHistoryLimit)
  for (const auto& p : c.snap.pods) EXPECT_EQ(p["spec"]["containers"][0]["image"], "img:2");
}

TEST(ClusterDeployment, RollingUpdateHonoursMaxUnavailable) { check_rollout(rolling(0, 1), 4, 4, 3); }
TEST(ClusterDeployment, RollingUpdateHonoursMaxSurge) { check_rollout(rolling(1, 0), 4, 5, 4); }
TEST(ClusterDeployment, RollingUpdatePercentages) { check_rollout(rolling("50%", "25%"), 4, 6, 3); }

TEST(ClusterDeployment, RecreateStopsOldPodsBeforeNewOnes) {
  FakeCluster c(KubeletOptions{100ms, 100ms, 1000ms, 500ms});
  c.add("nodes", gpu_node("n0"));
  c.add("deployments", deployment("r", 2, {{"type", "Recreate"}}));
  c.settle(60000ms);
  c.edit("deployments", "default", "r",
         [](Json& d) { d["spec"]["template"]["spec"]["containers"][0]["image"] = "img:2"; });
  for (int i = 0; i < 500; ++i) {
    size_t n = c.step();
    int v1 = 0, v2 = 0;
    for (const auto& p : c.snap.pods) (p["spec"]["containers"][0]["image"] == "img:1" ? v1 : v2)++;
    ASSERT_FALSE(v1 > 0 && v2 > 0) << "old and new pods coexist";
    if (n == 0) {
      if (c.next_wakeup == TimePoint::max()) break;
      c.env().now = std::max(c.now(), c.next_wakeup);
    }
  }
  const Json& d = *c.find("deployments", "default", "r");
  EXPECT_EQ(d["status"].value("updatedReplicas", 0), 2);
  EXPECT_EQ(d["status"].value("availableReplicas", 0), 2);
}

TEST(ClusterDeployment, ScaleUpAndDown) {
  FakeCluster c;
  c.add("nodes", gpu_node("n0"));
  c.add("deployments", deployment("s", 2));
  c.settle();
  c.edit("deployments", "default", "s", [](Json& d) { d["spec"]["replicas"] = 5; });
  c.settle();
  EXPECT_EQ(c.snap.pods.size(), 5u);
  EXPECT_EQ(c.find("deployments", "default", "s")->at("status").value("readyReplicas", 0), 5);
  c.edit("deployments", "default", "s", [](Json& d) { d["spec"]["replicas"] = 1; });
  c.settle();
  EXPECT_EQ(c.snap.pods.size(), 1u);
  const Json& d = *c.find("deployments", "default", "s");
  EXPECT_EQ(d["status"].value("replicas", 0), 1);
  EXPECT_EQ(d["status"].value("observedGeneration", 0), 3);
  EXPECT_EQ(c.snap.replicasets.size(), 1u);  // scaling is not a new revision
  c.edit("deployments", "default", "s", [](Json& d) { d["spec"]["replicas"] = 0; });
  c.settle();
  EXPECT_TRUE(c.snap.pods.empty());
  EXPECT_FALSE(c.find("deployments", "default", "s")->at("status").contains("replicas"));  // omitempty
}

TEST(ClusterDeployment, UnreadyPodMakesDeploymentUnavailableAndBack) {
  FakeCluster c;
  c.add("nodes", gpu_node("n0"));
  c.add("deployments", deployment("u", 1));
  c.settle();
  Json& pod = c.snap.pods.at(0);
  pod["metadata"]["annotations"]["sim.dgd.dev/ready"] = "false";
  c.settle();
  const Json* d = c.find("deployments", "default", "u");
  EXPECT_FALSE(d->at("status").contains("readyReplicas"));
  EXPECT_EQ(d->at("status").value("unavailableReplicas", 0), 1);
  EXPECT_EQ(find_condition(d->at("status")["conditions"], "Available")->value("status", ""), "False");
  c.snap.pods.at(0)["metadata"]["annotations"].erase("sim.dgd.dev/ready");
  c.settle();
  d = c.find("deployments", "default", "u");
  EXPECT_EQ(d->at("status").value("readyReplicas", 0), 1);
  EXPECT_EQ(find_condition(d->at("status")["conditions"], "Available")->value("status", ""), "True");
}

TEST(ClusterDeployment, RollbackReusesTheOldReplicaSetWithANewRevision) {
  FakeCluster c;
  c.add("nodes", gpu_node("n0"));
  c.add("deployments", deployment("b", 2));
  c.settle();
  auto set_image = [&](const std::string& img) {
    c.edit("deployments", "default", "b",
           [&](Json& d) { d["spec"]["template"]["spec"]["containers"][0]["image"] = img; });
    c.settle(60000ms);
  };
  set_image("img:2");
  set_image("img:1");
  EXPECT_EQ(c.snap.replicasets.size(), 2u);
  const Json& d = *c.find("deployments", "default", "b");
  EXPECT_EQ(str_at(d, {"metadata", "annotations", "deployment.kubernetes.io/revision"}), "3");
  Json t1 = d["spec"]["template"];
  const Json* rs1 = rs_of(c, "b", t1);
  ASSERT_NE(rs1, nullptr);
  EXPECT_EQ(str_at(*rs1, {"metadata", "annotations", "deployment.kubernetes.io/revision"}), "3");
  EXPECT_EQ(rs1->at("spec").value("replicas", 0), 2);
}

TEST(ClusterDeployment, ProgressDeadlineExceededWhenPodsCannotBePlaced) {
  FakeCluster c;
  c.add("nodes", gpu_node("n0", 8));
  Json d = deployment("big", 1);
  d["spec"]["progressDeadlineSeconds"] = 30;
  d["spec"]["template"]["spec"]["containers"][0]["resources"]["limits"]["nvidia.com/gpu"] = "16";
  c.add("deployments", d);
  c.settle();
  const Json* prog = find_condition(c.find("deployments", "default", "big")->at("status")["conditions"], "Progressing");
  EXPECT_EQ(prog->value("status", ""), "True");
  c.settle(std::chrono::milliseconds(31000));
  prog = find_condition(c.find("deployments", "default", "big")->at("status")["conditions"], "Progressing");
  EXPECT_EQ(prog->value("status", ""), "False");
  EXPECT_EQ(prog->value("reason", ""), "ProgressDeadlineExceeded");
}

}  // namespace
}  // namespace kubesim::cluster::testing
