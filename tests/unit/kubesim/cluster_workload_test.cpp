// The simulated kubelets, Job controller, PVC binding and ComputeDomain status.
#include "cluster_fake.h"

#include <gtest/gtest.h>

namespace kubesim::cluster::testing {
namespace {

Json job(const std::string& name, Json spec_extra = Json::object()) {
  Json j = {{"apiVersion", "batch/v1"},
            {"kind", "Job"},
            {"metadata", {{"name", name}, {"namespace", "default"}}},
            {"spec",
             {{"template",
               {{"spec", {{"restartPolicy", "Never"}, {"containers", Json::array({{{"name", "dl"}, {"image", "hf:1"}}})}}}}}}}};
  for (auto it = spec_extra.begin(); it != spec_extra.end(); ++it) j["spec"][it.key()] = it.value();
  return j;
}

const Json* cond(const Json& obj, const std::string& type) {
  return find_condition(at_path(obj, {"status", "conditions"}), type);
}

TEST(ClusterKubelet, PodGoesPendingRunningReadyAfterTheDelays) {
  FakeCluster c(KubeletOptions{1000ms, 2000ms, 1000ms, 0ms});
  c.add("nodes", gpu_node("n1"));
  c.add("pods", make_pod("p"));
  c.step();  // bind
  c.step();  // kubelet sees it
  const Json* p = c.find("pods", "default", "p");
  EXPECT_EQ(str_at(*p, {"spec", "nodeName"}), "n1");
  EXPECT_EQ(str_at(*p, {"status", "phase"}), "Pending");
  EXPECT_EQ(p->at("status")["containerStatuses"][0]["state"]["waiting"]["reason"], "ContainerCreating");
  EXPECT_EQ(str_at(*p, {"status", "hostIP"}), node_internal_ip(0));
  EXPECT_FALSE(p->at("status").contains("podIP"));
  c.advance(1000ms);
  c.step();
  p = c.find("pods", "default", "p");
  EXPECT_EQ(str_at(*p, {"status", "phase"}), "Running");
  EXPECT_FALSE(str_at(*p, {"status", "podIP"}).empty());
  EXPECT_FALSE(condition_true(*p, "Ready"));
  EXPECT_EQ(cond(*p, "Ready")->value("reason", ""), "ContainersNotReady");
  EXPECT_EQ(cond(*p, "Ready")->value("message", ""), "containers with unready status: [main]");
  EXPECT_TRUE(condition_true(*p, "Initialized"));
  EXPECT_TRUE(condition_true(*p, "PodScheduled"));
  EXPECT_EQ(c.next_wakeup, c.now() + 2000ms);  // ready is due then
  c.advance(2000ms);
  c.step();
  p = c.find("pods", "default", "p");
  EXPECT_TRUE(condition_true(*p, "Ready"));
  EXPECT_TRUE(condition_true(*p, "ContainersReady"));
  EXPECT_EQ(p->at("status")["containerStatuses"][0]["ready"], true);
  EXPECT_EQ(str_at(*p, {"status", "qosClass"}), "BestEffort");
  EXPECT_EQ(c.step(), 0u);  // no writes at rest
}

TEST(ClusterKubelet, QosClassComparesQuantitiesByValueAsTheServerDoes) {
  // requests cpu "1" and limits "1000m" are equal: the apiserver calls this Guaranteed,
  // and the kubelet must not rewrite it to Burstable.
  FakeCluster c(KubeletOptions{0ms, 0ms, 0ms, 0ms});
  c.add("nodes", gpu_node("n1"));
  Json pod = make_pod("p");
  pod["spec"]["containers"][0]["resources"] = {
      {"requests", {{"cpu", "1"}, {"memory", "1Gi"}}}, {"limits", {{"cpu", "1000m"}, {"memory", "1024Mi"}}}};
  c.add("pods", pod);
  c.step();
  c.step();
  EXPECT_EQ(str_at(*c.find("pods", "default", "p"), {"status", "qosClass"}), "Guaranteed");
}

TEST(ClusterKubelet, ReadyAnnotationTurnsPodUnreadyAndBack) {
  FakeCluster c;
  c.add("nodes", gpu_node("n1"));
  c.add("pods", make_pod("p"));
  c.settle();
  ASSERT_TRUE(condition_true(*c.find("pods", "default", "p"), "Ready"));
  c.find("pods", "default", "p")->at("metadata")["annotations"]["sim.dgd.dev/ready"] = "false";
  c.settle();
  const Json* p = c.find("pods", "default", "p");
  EXPECT_FALSE(condition_true(*p, "Ready"));
  EXPECT_EQ(str_at(*p, {"status", "phase"}), "Running");
  c.find("pods", "default", "p")->at("metadata")["annotations"]["sim.dgd.dev/ready"] = "true";
  c.settle();
  EXPECT_TRUE(condition_true(*c.find("pods", "default", "p"), "Ready"));
}

TEST(ClusterKubelet, TerminatingPodTurnsUnreadyThenGoes) {
  FakeCluster c(KubeletOptions{0ms, 0ms, 1000ms, 5000ms});
  c.add("nodes", gpu_node("n1"));
  c.add("pods", make_pod("p"));
  c.settle();
  c.find("pods", "default", "p")->at("metadata")["deletionTimestamp"] = format_time(c.now());
  c.step();
  ASSERT_NE(c.find("pods", "default", "p"), nullptr);
  EXPECT_FALSE(condition_true(*c.find("pods", "default", "p"), "Ready"));
  c.settle(6000ms);
  EXPECT_EQ(c.find("pods", "default", "p"), nullptr);
}

TEST(ClusterJob, RunsToCompletionWithParallelism) {
  FakeCluster c(KubeletOptions{0ms, 0ms, 1000ms, 0ms});
  c.add("nodes", gpu_node("n1"));
  Json& j = c.add("jobs", job("dl", {{"completions", 3}, {"parallelism", 2}}));
  std::string uid = uid_of(j);
  c.step();
  EXPECT_EQ(c.pods_owned_by(uid).size(), 2u);
  const Json* p = c.pods_owned_by(uid)[0];
  EXPECT_EQ(str_at(*p, {"metadata", "labels", "job-name"}), "dl");
  EXPECT_EQ(str_at(*p, {"metadata", "labels", "batch.kubernetes.io/controller-uid"}), uid);
  EXPECT_EQ(name_of(*p).size(), std::string("dl-").size() + 5);
  c.settle(500ms);
  EXPECT_EQ(c.find("jobs", "default", "dl")->at("status").value("active", 0), 2);
  EXPECT_EQ(c.find("jobs", "default", "dl")->at("status").value("ready", -1), 2);
  c.settle(10000ms);
  const Json& done = *c.find("jobs", "default", "dl");
  EXPECT_EQ(done["status"].value("succeeded", 0), 3);
  EXPECT_FALSE(done["status"].contains("active"));
  ASSERT_NE(cond(done, "Complete"), nullptr);
  EXPECT_EQ(cond(done, "Complete")->value("status", ""), "True");
  EXPECT_EQ(cond(done, "Complete")->value("reason", ""), "CompletionsReached");
  EXPECT_TRUE(done["status"].contains("completionTime"));
  EXPECT_EQ(c.pods_owned_by(uid).size(), 3u);  // finished pods stay, as on a real cluster
  for (const Json* q : c.pods_owned_by(uid)) {
    EXPECT_EQ(str_at(*q, {"status", "phase"}), "Succeeded");
    EXPECT_EQ(q->at("status")["containerStatuses"][0]["state"]["terminated"]["reason"], "Completed");
  }
}

TEST(ClusterJob, FailAnnotationExhaustsTheBackoffLimit) {
  FakeCluster c(KubeletOptions{0ms, 0ms, 1000ms, 0ms});
  c.add("nodes", gpu_node("n1"));
  Json j = job("dl", {{"backoffLimit", 1}});
  j["metadata"]["annotations"]["sim.dgd.dev/fail"] = "401 Unauthorized: invalid Hugging Face token";
  std::string uid = uid_of(c.add("jobs", j));
  c.settle(60000ms);
  const Json& failed = *c.find("jobs", "default", "dl");
  EXPECT_EQ(failed["status"].value("failed", 0), 2);  // the first try plus one retry
  ASSERT_NE(cond(failed, "Failed"), nullptr);
  EXPECT_EQ(cond(failed, "Failed")->value("reason", ""), "BackoffLimitExceeded");
  EXPECT_EQ(cond(failed, "Failed")->value("message", ""), "Job has reached the specified backoff limit");
  EXPECT_EQ(cond(failed, "Complete"), nullptr);
  auto pods = c.pods_owned_by(uid);
  ASSERT_EQ(pods.size(), 2u);
  const Json& term = pods[0]->at("status")["containerStatuses"][0]["state"]["terminated"];
  EXPECT_EQ(term["exitCode"], 1);
  EXPECT_EQ(term["message"], "401 Unauthorized: invalid Hugging Face token");
}

TEST(ClusterJob, NamespaceAnnotationFailsItsJobsAndDurationAnnotationDelaysThem) {
  FakeCluster c(KubeletOptions{0ms, 0ms, 1000ms, 0ms});
  c.add("nodes", gpu_node("n1"));
  c.add("namespaces", {{"apiVersion", "v1"}, {"kind", "Namespace"},
                       {"metadata", {{"name", "bad"}, {"annotations", {{"sim.dgd.dev/fail", "disk full"}}}}}});
  Json j = job("dl", {{"backoffLimit", 0}});
  j["metadata"]["namespace"] = "bad";
  c.add("jobs", j);
  Json slow = job("slow");
  slow["metadata"]["annotations"]["sim.dgd.dev/duration"] = "30s";
  c.add("jobs", slow);
  c.settle(10000ms);
  EXPECT_EQ(cond(*c.find("jobs", "bad", "dl"), "Failed")->value("status", ""), "True");
  EXPECT_EQ(cond(*c.find("jobs", "default", "slow"), "Complete"), nullptr);  // still running at 10 s
  c.settle(30000ms);
  EXPECT_EQ(cond(*c.find("jobs", "default", "slow"), "Complete")->value("status", ""), "True");
}

TEST(ClusterJob, ActiveDeadlineFailsTheJob) {
  FakeCluster c(KubeletOptions{0ms, 0ms, 100000ms, 0ms});
  c.add("nodes", gpu_node("n1"));
  c.add("jobs", job("dl", {{"activeDeadlineSeconds", 5}}));
  c.settle(6000ms);
  const Json& j = *c.find("jobs", "default", "dl");
  EXPECT_EQ(cond(j, "Failed")->value("reason", ""), "DeadlineExceeded");
  EXPECT_FALSE(j["status"].contains("active"));
}

Json pvc(const std::string& name, Json storage_class = nullptr) {
  Json p = {{"apiVersion", "v1"},
            {"kind", "PersistentVolumeClaim"},
            {"metadata", {{"name", name}, {"namespace", "default"}}},
            {"spec", {{"accessModes", {"ReadWriteMany"}}, {"resources", {{"requests", {{"storage", "600Gi"}}}}}}}};
  if (!storage_class.is_null()) p["spec"]["storageClassName"] = storage_class;
  return p;
}

TEST(ClusterVolumes, BindsKnownClassesOnlyAndHonoursTheKnob) {
  FakeCluster c(KubeletOptions{}, StorageClasses{{"standard", "shared-rwx"}, "standard"});
  c.add("persistentvolumeclaims", pvc("default-class"));
  c.add("persistentvolumeclaims", pvc("rwx", "shared-rwx"));
  c.add("persistentvolumeclaims", pvc("unknown", "gold"));
  Json held = pvc("held");
  held["metadata"]["annotations"]["sim.dgd.dev/bind"] = "false";
  c.add("persistentvolumeclaims", held);
  c.settle();
  const Json& a = *c.find("persistentvolumeclaims", "default", "default-class");
  EXPECT_EQ(str_at(a, {"status", "phase"}), "Bound");
  EXPECT_EQ(str_at(a, {"spec", "storageClassName"}), "standard");
  EXPECT_EQ(str_at(a, {"spec", "volumeName"}), "pvc-" + uid_of(a));
  EXPECT_EQ(str_at(a, {"status", "capacity", "storage"}), "600Gi");
  EXPECT_EQ(a["status"]["accessModes"], Json::array({"ReadWriteMany"}));
  EXPECT_EQ(str_at(*c.find("persistentvolumeclaims", "default", "rwx"), {"status", "phase"}), "Bound");
  EXPECT_EQ(str_at(*c.find("persistentvolumeclaims", "default", "unknown"), {"status", "phase"}), "Pending");
  EXPECT_EQ(str_at(*c.find("persistentvolumeclaims", "default", "held"), {"status", "phase"}), "Pending");
  c.find("persistentvolumeclaims", "default", "held")->at("metadata")["annotations"].erase("sim.dgd.dev/bind");
  c.settle();
  EXPECT_EQ(str_at(*c.find("persistentvolumeclaims", "default", "held"), {"status", "phase"}), "Bound");
}

TEST(ClusterComputeDomain, CreatesItsTemplateAndReportsNodesOnceRunning) {
  FakeCluster c;
  c.add("nodes", gpu_node("a0", 4, {{"nvidia.com/gpu.clique", "uuid.7"}}));
  c.add("nodes", gpu_node("a1", 4, {{"nvidia.com/gpu.clique", "uuid.7"}}));
  Json cd = {{"apiVersion", "resource.nvidia.com/v1beta1"},
             {"kind", "ComputeDomain"},
             {"metadata", {{"name", "g-cd"}, {"namespace", "default"}}},
             {"spec", {{"numNodes", 2}, {"channel", {{"resourceClaimTemplate", {{"name", "g-channel"}}}}}}}};
  std::string cd_uid = uid_of(c.add("computedomains", cd));
  c.settle();
  const Json* rct = c.find("resourceclaimtemplates", "default", "g-channel");
  ASSERT_NE(rct, nullptr);
  EXPECT_TRUE(controlled_by(*rct, cd_uid));
  EXPECT_EQ(rct->at("spec")["spec"]["devices"]["requests"][0]["deviceClassName"],
            "compute-domain-default-channel.nvidia.com");
  EXPECT_EQ(str_at(*c.find("computedomains", "default", "g-cd"), {"status", "status"}), "NotReady");
  for (auto n : {"w0", "w1"}) {
    Json p = make_pod(n, {{"nvidia.com/gpu", "4"}});
    p["spec"]["resourceClaims"] = Json::array({{{"name", "imex"}, {"resourceClaimTemplateName", "g-channel"}}});
    c.add("pods", p);
  }
  c.settle();
  const Json& st = c.find("computedomains", "default", "g-cd")->at("status");
  EXPECT_EQ(st["status"], "Ready");
  ASSERT_EQ(st["nodes"].size(), 2u);
  EXPECT_EQ(st["nodes"][0]["name"], "a0");
  EXPECT_EQ(st["nodes"][0]["cliqueID"], "uuid.7");
  EXPECT_EQ(st["nodes"][1]["index"], 1);
  EXPECT_EQ(st["nodes"][0]["ipAddress"], node_internal_ip(0));
}

}  // namespace
}  // namespace kubesim::cluster::testing
