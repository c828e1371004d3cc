// The simulated scheduler: filters, choice, and the real scheduler's messages.
#include "cluster_fake.h"

#include "kubesim/cluster/quantity.h"
#include "kubesim/cluster/scheduler.h"

#include <gtest/gtest.h>

namespace kubesim::cluster::testing {
namespace {

const Json kGpuTaint = Json::array({{{"key", "nvidia.com/gpu"}, {"effect", "NoSchedule"}}});
const Json kTolerateGpu = Json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}});

Json bound(Json pod, const std::string& node) {
  pod["spec"]["nodeName"] = node;
  pod["status"]["phase"] = "Running";
  return pod;
}

Json gpu_pod(const std::string& name, int gpus) {
  Json p = make_pod(name, {{"nvidia.com/gpu", std::to_string(gpus)}});
  p["spec"]["tolerations"] = kTolerateGpu;
  return p;
}

TEST(ClusterQuantity, ParsesTheApiGrammar) {
  EXPECT_EQ(parse_milli("500m"), 500);
  EXPECT_EQ(parse_milli("2"), 2000);
  EXPECT_EQ(parse_milli("1.5"), 1500);
  EXPECT_EQ(parse_milli("2Gi"), 2147483648000LL);
  EXPECT_EQ(parse_milli("1k"), 1000000);
  EXPECT_EQ(parse_milli("1e3"), 1000000);
  EXPECT_EQ(scheduler_units("cpu", "224"), 224000);
  EXPECT_EQ(scheduler_units("memory", "2000Gi"), 2000LL << 30);
  EXPECT_EQ(scheduler_units("nvidia.com/gpu", "8"), 8);
  EXPECT_EQ(scheduler_units("memory", "1500m"), 2);  // Value() rounds up
  EXPECT_THROW(parse_milli("12xy"), std::invalid_argument);
  EXPECT_THROW(parse_milli(""), std::invalid_argument);
  EXPECT_EQ(format_units("memory", 2LL << 40), "2Ti");
  EXPECT_EQ(format_units("cpu", 1500), "1500m");
}

TEST(ClusterScheduler, RequestsSumContainersMaxInitAndLimitsStandIn) {
  Json p = make_pod("p", {{"cpu", "1"}});
  p["spec"]["containers"].push_back(
      {{"name", "b"}, {"resources", {{"limits", {{"nvidia.com/gpu", "4"}, {"cpu", "2"}}}}}});
  p["spec"]["initContainers"] = Json::array(
      {{{"name", "init"}, {"resources", {{"requests", {{"cpu", "8"}}}}}},
       {{"name", "sidecar"}, {"restartPolicy", "Always"}, {"resources", {{"requests", {{"cpu", "500m"}}}}}}});
  ResourceList r = pod_requests(p);
  EXPECT_EQ(r["cpu"], 8000);  // max(containers 1 + 2 plus sidecar 0.5, init 8)
  EXPECT_EQ(r["nvidia.com/gpu"], 4);
}

TEST(ClusterScheduler, AnInitContainerAfterASidecarRunsNextToIt) {
  // The KEP-753 rule: while an init container runs, the sidecars started before it run too.
  Json p = make_pod("p", {{"cpu", "1"}});
  p["spec"]["initContainers"] = Json::array(
      {{{"name", "sidecar"}, {"restartPolicy", "Always"}, {"resources", {{"requests", {{"cpu", "500m"}}}}}},
       {{"name", "init"}, {"resources", {{"requests", {{"cpu", "8"}, {"memory", "1Gi"}}}}}}});
  p["spec"]["overhead"] = {{"cpu", "100m"}};
  ResourceList r = pod_requests(p);
  EXPECT_EQ(r["cpu"], 8600);  // max(app 1 + sidecar 0.5, init 8 + sidecar 0.5) + overhead 0.1
  EXPECT_EQ(r["memory"], 1LL << 30);
}

TEST(ClusterScheduler, UnschedulableMessageIsTheRealSchedulersHistogram) {
  Snapshot s;
  Json h200 = {{"nvidia.com/gpu.product", "NVIDIA-H200"}};
  s.nodes = {gpu_node("n1", 8, h200, kGpuTaint), gpu_node("n2", 8, h200, kGpuTaint),
             gpu_node("n3", 8, {{"nvidia.com/gpu.product", "NVIDIA-B200"}}, kGpuTaint),
             gpu_node("n4", 8, h200, Json::array({{{"key", "kubernetes.io/arch"}, {"value", "arm64"}, {"effect", "NoSchedule"}}}))};
  s.pods = {bound(gpu_pod("a", 8), "n1"), bound(gpu_pod("b", 8), "n2")};
  Json p = gpu_pod("p", 4);
  p["spec"]["nodeSelector"] = h200;
  Placement pl = Scheduler().place(s, p);
  ASSERT_FALSE(pl.node);
  EXPECT_EQ(pl.message,
            "0/4 nodes are available: 1 node(s) didn't match Pod's node affinity/selector, 1 node(s) had untolerated "
            "taint {kubernetes.io/arch: arm64}, 2 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 2 "
            "No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.");

  // Without the toleration every tainted node reports the taint, with its empty value.
  p["spec"].erase("tolerations");
  EXPECT_EQ(Scheduler().place(s, p).message,
            "0/4 nodes are available: 1 node(s) had untolerated taint {kubernetes.io/arch: arm64}, 3 node(s) had "
            "untolerated taint {nvidia.com/gpu: }. preemption: 0/4 nodes are available: 4 Preemption is not helpful "
            "for scheduling.");
}

TEST(ClusterScheduler, ReportsEveryInsufficientResourceAndPodCount) {
  Snapshot s;
  s.nodes = {make_node("small", {{"cpu", "2"}, {"memory", "1Gi"}, {"pods", "1"}})};
  s.pods = {bound(make_pod("x"), "small")};
  Placement pl = Scheduler().place(s, make_pod("p", {{"cpu", "4"}, {"memory", "2Gi"}}));
  EXPECT_EQ(pl.message,
            "0/1 nodes are available: 1 Insufficient cpu, 1 Insufficient memory, 1 Too many pods. preemption: 0/1 "
            "nodes are available: 1 No preemption victims found for incoming pod.");
  Json never = make_pod("q", {{"cpu", "4"}});
  never["spec"]["preemptionPolicy"] = "Never";
  EXPECT_EQ(Scheduler().place(s, never).message,
            "0/1 nodes are available: 1 Insufficient cpu, 1 Too many pods. preemption: not eligible due to "
            "preemptionPolicy=Never.");
  EXPECT_EQ(Scheduler().place(Snapshot{}, make_pod("p")).message, "no nodes available to schedule pods");
}

TEST(ClusterScheduler, TerminatingPodsHoldResourcesFinishedOnesDoNot) {
  Snapshot s;
  s.nodes = {gpu_node("n1", 8)};
  Json done = bound(gpu_pod("done", 8), "n1");
  done["status"]["phase"] = "Succeeded";
  s.pods = {done};
  EXPECT_EQ(Scheduler().place(s, gpu_pod("p", 8)).node, "n1");
  Json leaving = bound(gpu_pod("leaving", 8), "n1");
  leaving["metadata"]["deletionTimestamp"] = "2026-01-01T00:00:00Z";
  s.pods.push_back(leaving);
  EXPECT_FALSE(Scheduler().place(s, gpu_pod("p", 8)).node);
}

TEST(ClusterScheduler, PacksGpuPodsSpreadsCpuPodsTiesByName) {
  Snapshot s;
  s.nodes = {gpu_node("a"), gpu_node("b"), gpu_node("c")};
  s.pods = {bound(gpu_pod("half", 4), "b")};
  EXPECT_EQ(Scheduler().place(s, gpu_pod("p", 4)).node, "b");  // fills the used node
  EXPECT_EQ(Scheduler().place(s, gpu_pod("p", 8)).node, "a");  // only empty ones fit; name order
  s.pods.push_back(bound(make_pod("busy", {{"cpu", "100"}}), "a"));
  s.pods.push_back(bound(make_pod("some", {{"cpu", "10"}}), "b"));
  EXPECT_EQ(Scheduler().place(s, make_pod("web", {{"cpu", "1"}})).node, "c");  // least allocated
}

TEST(ClusterScheduler, NodeAffinityOperatorsAndMatchFields) {
  Snapshot s;
  s.nodes = {make_node("n1", {{"cpu", "8"}}, {{"zone", "a"}, {"gen", "3"}}),
             make_node("n2", {{"cpu", "8"}}, {{"zone", "b"}, {"gen", "5"}, {"spot", "true"}})};
  auto with_terms = [](Json terms) {
    Json p = make_pod("p");
    p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"] = terms;
    return p;
  };
  auto expr = [](std::string key, std::string op, Json values = nullptr) {
    Json e = {{"key", key}, {"operator", op}};
    if (!values.is_null()) e["values"] = values;
    return Json::array({{{"matchExpressions", Json::array({e})}}});
  };
  Scheduler sch;
  EXPECT_EQ(sch.place(s, with_terms(expr("zone", "In", {"b"}))).node, "n2");
  EXPECT_EQ(sch.place(s, with_terms(expr("zone", "NotIn", {"a"}))).node, "n2");
  EXPECT_EQ(sch.place(s, with_terms(expr("spot", "Exists"))).node, "n2");
  EXPECT_EQ(sch.place(s, with_terms(expr("spot", "DoesNotExist"))).node, "n1");
  EXPECT_EQ(sch.place(s, with_terms(expr("gen", "Gt", {"4"}))).node, "n2");
  EXPECT_EQ(sch.place(s, with_terms(expr("gen", "Lt", {"4"}))).node, "n1");
  Json fields = Json::array(
      {{{"matchFields", Json::array({{{"key", "metadata.name"}, {"operator", "In"}, {"values", {"n2"}}}})}}});
  EXPECT_EQ(sch.place(s, with_terms(fields)).node, "n2");
  // Terms are ORed; expressions in a term are ANDed.
  Json terms = expr("zone", "In", {"c"});
  terms.push_back(expr("zone", "In", {"a"})[0]);
  EXPECT_EQ(sch.place(s, with_terms(terms)).node, "n1");
  Placement none = sch.place(s, with_terms(expr("zone", "In", {"c"})));
  EXPECT_EQ(none.message,
            "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector. preemption: 0/2 nodes are "
            "available: 2 Preemption is not helpful for scheduling.");
}

TEST(ClusterScheduler, CordonedNodesAreSkipped) {
  Snapshot s;
  s.nodes = {make_node("n1", {{"cpu", "8"}})};
  s.nodes[0]["spec"]["unschedulable"] = true;
  EXPECT_EQ(Scheduler().place(s, make_pod("p")).message,
            "0/1 nodes are available: 1 node(s) were unschedulable. preemption: 0/1 nodes are available: 1 Preemption "
            "is not helpful for scheduling.");
}

Json anti_affine(const std::string& name, const std::string& app, const std::string& avoid, const std::string& key) {
  Json p = gpu_pod(name, 4);
  p["metadata"]["labels"]["app"] = app;
  p["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = Json::array(
      {{{"labelSelector", {{"matchLabels", {{"app", avoid}}}}}, {"topologyKey", key}}});
  return p;
}

TEST(ClusterScheduler, AntiAffinityKeepsPrefillAndDecodeApart) {
  FakeCluster c;
  c.add("nodes", gpu_node("n1"));
  c.add("nodes", gpu_node("n2"));
  c.add("pods", anti_affine("prefill", "prefill", "decode", "kubernetes.io/hostname"));
  c.add("pods", anti_affine("decode", "decode", "prefill", "kubernetes.io/hostname"));
  c.settle();
  std::string n_prefill = str_at(*c.find("pods", "default", "prefill"), {"spec", "nodeName"});
  std::string n_decode = str_at(*c.find("pods", "default", "decode"), {"spec", "nodeName"});
  EXPECT_FALSE(n_prefill.empty());
  EXPECT_FALSE(n_decode.empty());
  EXPECT_NE(n_prefill, n_decode);  // GPU packing alone would have put both on n1

  // A third pod that must avoid both.
  Json third = anti_affine("other", "other", "prefill", "kubernetes.io/hostname");
  third["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]["labelSelector"] = {
      {"matchExpressions", Json::array({{{"key", "app"}, {"operator", "In"}, {"values", {"prefill", "decode"}}}})}};
  EXPECT_EQ(Scheduler().place(c.snap, third).message,
            "0/2 nodes are available: 2 node(s) didn't match pod anti-affinity rules. preemption: 0/2 nodes are "
            "available: 2 No preemption victims found for incoming pod.");
  // Existing pods' anti-affinity also applies to a newcomer they select.
  Json newcomer = gpu_pod("newcomer", 1);
  newcomer["metadata"]["labels"]["app"] = "decode";
  Placement pl = Scheduler().place(c.snap, newcomer);
  EXPECT_EQ(pl.node, n_decode);
  // Namespaces: a term only sees its own namespace unless told otherwise.
  Json elsewhere = anti_affine("x", "x", "prefill", "kubernetes.io/hostname");
  elsewhere["metadata"]["namespace"] = "other";
  EXPECT_TRUE(Scheduler().place(c.snap, elsewhere).node);
  elsewhere["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]["namespaces"] =
      Json::array({"default"});
  Placement pl2 = Scheduler().place(c.snap, elsewhere);
  EXPECT_EQ(pl2.node, n_decode);  // only the prefill node is excluded
}

TEST(ClusterScheduler, PodAffinityFirstPodGoesAnywhereOthersFollowTopology) {
  Snapshot s;
  s.nodes = {gpu_node("a0", 4, {{"rack", "a"}}), gpu_node("a1", 4, {{"rack", "a"}}), gpu_node("b0", 4, {{"rack", "b"}}),
             gpu_node("x", 4)};
  auto affine = [](const std::string& name) {
    Json p = gpu_pod(name, 4);
    p["metadata"]["labels"]["app"] = "w";
    p["spec"]["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] =
        Json::array({{{"labelSelector", {{"matchLabels", {{"app", "w"}}}}}, {"topologyKey", "rack"}}});
    return p;
  };
  Placement first = Scheduler().place(s, affine("w0"));
  EXPECT_EQ(first.node, "a0");  // any node with the topology key; never "x"
  s.pods = {bound(affine("w0"), "b0")};
  EXPECT_FALSE(Scheduler().place(s, affine("w1")).node);  // rack b is full
  EXPECT_EQ(Scheduler().place(s, affine("w1")).message,
            "0/4 nodes are available: 1 Insufficient nvidia.com/gpu, 3 node(s) didn't match pod affinity rules. "
            "preemption: 0/4 nodes are available: 1 No preemption victims found for incoming pod, 3 Preemption is not "
            "helpful for scheduling.");
}

Json cd(const std::string& name, const std::string& tmpl) {
  return {{"apiVersion", "resource.nvidia.com/v1beta1"},
          {"kind", "ComputeDomain"},
          {"metadata", {{"name", name}, {"namespace", "default"}, {"uid", "uid-cd-" + name}}},
          {"spec", {{"numNodes", 0}, {"channel", {{"resourceClaimTemplate", {{"name", tmpl}}}}}}}};
}

Json claim_pod(const std::string& name, const std::string& tmpl) {
  Json p = gpu_pod(name, 4);
  p["spec"]["resourceClaims"] = Json::array({{{"name", "imex"}, {"resourceClaimTemplateName", tmpl}}});
  p["spec"]["containers"][0]["resources"]["claims"] = Json::array({{{"name", "imex"}}});
  return p;
}

TEST(ClusterScheduler, ComputeDomainPodsStayInOneClique) {
  FakeCluster c;
  for (auto n : {"a0", "a1"}) c.add("nodes", gpu_node(n, 4, {{"nvidia.com/gpu.clique", "uuid.1"}}));
  for (auto n : {"b0", "b1"}) c.add("nodes", gpu_node(n, 4, {{"nvidia.com/gpu.clique", "uuid.2"}}));
  c.add("nodes", gpu_node("plain", 4));
  c.add("pods", bound(gpu_pod("filler", 4), "a0"));
  c.add("computedomains", cd("dgd-cd", "dgd-channel"));
  c.settle();
  ASSERT_NE(c.find("resourceclaimtemplates", "default", "dgd-channel"), nullptr);  // made by the CD controller
  c.add("pods", claim_pod("w0", "dgd-channel"));
  c.settle();
  EXPECT_EQ(str_at(*c.find("pods", "default", "w0"), {"spec", "nodeName"}), "a1");
  c.add("pods", claim_pod("w1", "dgd-channel"));
  c.settle();
  const Json& w1 = *c.find("pods", "default", "w1");
  EXPECT_EQ(str_at(w1, {"spec", "nodeName"}), "");  // b0 and b1 are free, but in the other clique
  const Json* cond = find_condition(w1["status"]["conditions"], "PodScheduled");
  ASSERT_NE(cond, nullptr);
  EXPECT_EQ(cond->value("reason", ""), "Unschedulable");
  EXPECT_EQ(cond->value("message", ""),
            "0/5 nodes are available: 1 node(s) had no nvidia.com/gpu.clique label, 2 Insufficient nvidia.com/gpu, 2 "
            "node(s) were not in the nvidia.com/gpu.clique uuid.1 of ComputeDomain dgd-cd. preemption: 0/5 nodes are "
            "available: 2 No preemption victims found for incoming pod, 3 Preemption is not helpful for scheduling.");
  // The same pod without the claim would have been placed: the clique rule is what holds it.
  EXPECT_EQ(Scheduler().place(c.snap, gpu_pod("free", 4)).node, "b0");
  // Freeing the filler's node lets w1 join its clique.
  c.snap.pods.erase(std::remove_if(c.snap.pods.begin(), c.snap.pods.end(),
                                   [](const Json& p) { return name_of(p) == "filler"; }),
                    c.snap.pods.end());
  c.settle();
  EXPECT_EQ(str_at(*c.find("pods", "default", "w1"), {"spec", "nodeName"}), "a0");
}

TEST(ClusterScheduler, ClaimsFromAMissingTemplateWait) {
  Snapshot s;
  s.nodes = {gpu_node("a0", 4, {{"nvidia.com/gpu.clique", "uuid.1"}})};
  Placement pl = Scheduler().place(s, claim_pod("w0", "nope"));
  EXPECT_EQ(pl.message,
            "0/1 nodes are available: resourceclaimtemplate.resource.k8s.io \"nope\" not found. preemption: 0/1 nodes "
            "are available: 1 Preemption is not helpful for scheduling.");
}

TEST(ClusterScheduler, PersistentVolumeClaimsMustExistAndBeBound) {
  Snapshot s;
  s.nodes = {make_node("n", {{"cpu", "8"}})};
  Json p = make_pod("p");
  p["spec"]["volumes"] = Json::array({{{"name", "cache"}, {"persistentVolumeClaim", {{"claimName", "model-cache"}}}}});
  EXPECT_EQ(Scheduler().place(s, p).message,
            "0/1 nodes are available: persistentvolumeclaim \"model-cache\" not found. preemption: 0/1 nodes are "
            "available: 1 No preemption victims found for incoming pod.");
  s.pvcs = {{{"metadata", {{"name", "model-cache"}, {"namespace", "default"}}}, {"status", {{"phase", "Pending"}}}}};
  EXPECT_EQ(Scheduler().place(s, p).message,
            "0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/1 nodes are "
            "available: 1 Preemption is not helpful for scheduling.");
  s.pvcs[0]["status"]["phase"] = "Bound";
  EXPECT_EQ(Scheduler().place(s, p).node, "n");
}

TEST(ClusterScheduler, WritesTheConditionOnceAndRetriesWhenCapacityFrees) {
  FakeCluster c;
  c.add("nodes", gpu_node("n1", 8));
  c.add("pods", gpu_pod("big", 8));
  c.add("pods", gpu_pod("late", 4));
  c.settle();
  EXPECT_EQ(str_at(*c.find("pods", "default", "big"), {"spec", "nodeName"}), "n1");
  EXPECT_EQ(str_at(*c.find("pods", "default", "late"), {"spec", "nodeName"}), "");
  EXPECT_EQ(c.step(), 0u);  // at rest: no rewrite of the same condition
  c.snap.pods.erase(c.snap.pods.begin());  // "big" goes away
  c.settle();
  const Json& late = *c.find("pods", "default", "late");
  EXPECT_EQ(str_at(late, {"spec", "nodeName"}), "n1");
  EXPECT_TRUE(condition_true(late, "PodScheduled"));
  EXPECT_TRUE(condition_true(late, "Ready"));
}

}  // namespace
}  // namespace kubesim::cluster::testing
