// The pod and node caches keep only placement's fields (cache_fields.h). Placement must
// reach the same conclusions from the projected objects as from whole ones, for every
// field it reads: each scenario below turns on one of them (taints, cordon, selector,
// capacity fallback, container/init/sidecar/overhead requests, anti-affinity with other
// pods, ComputeDomain cliques, gates, deletion, phases, the scheduler's message).
#include "dgd/reconcile/cache_fields.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "dgd/reconcile/placement.h"
#include "dgd/reconcile/placement_status.h"

namespace dgd::reconcile {
namespace {

using nlohmann::json;

const std::string kRack0 = "61248eac.20663", kRack1 = "61248eac.31442";

// What the cache hands placement: the object through the informer's text path.
json cached(const json& o, const runtime::FieldProjection& p) {
  std::string error;
  auto c = runtime::CachedObject::from_text(o.dump(), p, &error);
  EXPECT_NE(c, nullptr) << error;
  return c ? c->object() : json();
}
json cached_pod(const json& p) { return cached(p, pod_cache_fields()); }
json cached_node(const json& n) { return cached(n, node_cache_fields()); }

// Nodes and pods as a real cluster returns them: with the fields placement ignores.
json node(const std::string& name, int gpus, json labels, bool taint = true) {
  labels["kubernetes.io/hostname"] = name;
  json n = {{"apiVersion", "v1"},
            {"kind", "Node"},
            {"metadata", {{"name", name}, {"uid", "uid-" + name}, {"resourceVersion", "5"}, {"labels", labels}}},
            {"spec", {{"podCIDR", "10.1.0.0/24"}, {"providerID", "sim://" + name}}},
            {"status",
             {{"allocatable",
               {{"cpu", "224"}, {"memory", "2000Gi"}, {"pods", "110"}, {"nvidia.com/gpu", std::to_string(gpus)},
                {"rdma/ib", "8"}}},
              {"capacity", {{"cpu", "256"}, {"memory", "2048Gi"}, {"pods", "110"}, {"nvidia.com/gpu", "8"}}},
              {"conditions", json::array({{{"type", "Ready"}, {"status", "True"}, {"lastHeartbeatTime", "t"}}})},
              {"addresses", json::array({{{"type", "InternalIP"}, {"address", "10.0.0.1"}}})},
              {"images", json::array({{{"names", {"nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.7.1"}}, {"sizeBytes", 1}}})},
              {"nodeInfo", {{"kubeletVersion", "v1.32.0"}, {"osImage", "Ubuntu 22.04.5 LTS"}}}}}};
  if (taint) n["spec"]["taints"] = json::array({{{"key", "nvidia.com/gpu"}, {"effect", "NoSchedule"}}});
  return n;
}
json h200(const std::string& name) { return node(name, 8, {{"nvidia.com/gpu.product", "NVIDIA-H200"}}); }
json gb200(const std::string& name, const std::string& clique) {
  return node(name, 4, {{"nvidia.com/gpu.product", "NVIDIA-GB200"}, {"nvidia.com/gpu.clique", clique}});
}

json worker(const std::string& name, const std::string& type, int gpus, const std::string& product = "NVIDIA-H200") {
  const std::string component = type == "prefill" ? "PrefillWorker" : "DecodeWorker";
  return {{"apiVersion", "v1"},
          {"kind", "Pod"},
          {"metadata",
           {{"name", name},
            {"namespace", "ns"},
            {"uid", "uid-" + name},
            {"resourceVersion", "9"},
            {"labels",
             {{"nvidia.com/dynamo-graph-deployment-name", "g"},
              {"nvidia.com/dynamo-component", component},
              {"nvidia.com/dynamo-component-type", type}}}}},
          {"spec",
           {{"nodeSelector", {{"nvidia.com/gpu.product", product}}},
            {"tolerations", json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}})},
            {"containers",
             json::array({{{"name", "main"},
                           {"image", "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.7.1"},
                           {"args", {"--model", "deepseek-ai/DeepSeek-V4.1-Flash"}},
                           {"env", json::array({{{"name", "DYN_NAMESPACE"}, {"value", "g"}}})},
                           {"resources", {{"limits", {{"nvidia.com/gpu", std::to_string(gpus)}, {"rdma/ib", "4"}}}}}}})},
            {"volumes", json::array({{{"name", "shm"}, {"emptyDir", {{"medium", "Memory"}}}}})},
            {"serviceAccountName", "g-k8s-service-discovery"}}},
          {"status", {{"phase", "Pending"}, {"qosClass", "BestEffort"}}}};
}
json separated(json pod) {
  const std::string other = pod["metadata"]["labels"]["nvidia.com/dynamo-component-type"] == "prefill" ? "decode" : "prefill";
  pod["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = json::array(
      {{{"labelSelector",
         {{"matchLabels", {{"nvidia.com/dynamo-graph-deployment-name", "g"}, {"nvidia.com/dynamo-component-type", other}}}}},
        {"topologyKey", "kubernetes.io/hostname"}}});
  return pod;
}
json bound(json pod, const std::string& node) {
  pod["spec"]["nodeName"] = node;
  pod["status"]["phase"] = "Running";
  pod["status"]["podIP"] = "10.65.0.7";
  pod["status"]["containerStatuses"] = json::array({{{"name", "main"}, {"ready", true}, {"restartCount", 0}}});
  pod["status"]["conditions"] = json::array(
      {{{"type", "PodScheduled"}, {"status", "True"}, {"lastTransitionTime", "2026-11-30T12:00:00Z"}},
       {{"type", "Ready"}, {"status", "True"}, {"lastTransitionTime", "2026-11-30T12:00:01Z"}}});
  return pod;
}
json unschedulable(json pod, const std::string& message) {
  pod["status"]["conditions"] = json::array({{{"type", "PodScheduled"},
                                              {"status", "False"},
                                              {"reason", "Unschedulable"},
                                              {"message", message},
                                              {"lastProbeTime", nullptr},
                                              {"lastTransitionTime", "2026-11-30T12:00:00Z"}}});
  return pod;
}
json foreign(const std::string& name, const std::string& node, int gpus) {
  json p = worker(name, "decode", gpus);
  p["metadata"]["namespace"] = "other";
  p["metadata"]["labels"] = {{"app", "filler"}};
  return bound(p, node);
}

PlacementInput whole_input(std::vector<json> pods, std::vector<json> nodes, std::vector<json> others = {}) {
  PlacementInput in;
  in.dgd_name = "g";
  in.components = {{"PrefillWorker", 1}, {"DecodeWorker", 1}};
  in.pods = std::move(pods);
  in.nodes = std::move(nodes);
  in.other_pods = std::move(others);
  return in;
}

PlacementInput projected(const PlacementInput& in) {
  PlacementInput out = in;
  for (auto& p : out.pods) p = cached_pod(p);
  for (auto& p : out.other_pods) p = cached_pod(p);
  for (auto& n : out.nodes) n = cached_node(n);
  return out;
}

// The condition from whole objects; the test fails if the projected ones say otherwise.
Condition same_condition(const PlacementInput& in) {
  auto whole = placement_condition(in);
  auto proj = placement_condition(projected(in));
  EXPECT_TRUE(whole.has_value());
  if (!whole) return {};
  EXPECT_TRUE(proj.has_value());
  if (!proj) return *whole;
  EXPECT_EQ(proj->status, whole->status);
  EXPECT_EQ(proj->reason, whole->reason);
  EXPECT_EQ(proj->message, whole->message);
  return *whole;
}

const std::string kNoGpu = "0/2 nodes are available: 2 Insufficient nvidia.com/gpu. preemption: x";

TEST(CacheFields, ResourcesOfBoundPodsAndAntiAffinity) {
  auto c = same_condition(whole_input(
      {bound(separated(worker("p", "prefill", 4)), "h1"),
       unschedulable(separated(worker("d", "decode", 4)),
                     "0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 node(s) didn't match pod anti-affinity "
                     "rules. preemption: x")},
      {h200("h0"), h200("h1")}, {foreign("busy", "h0", 8)}));
  EXPECT_EQ(c.message, "DecodeWorker: 1 pod pending: no node with 4 free nvidia.com/gpu and 4 rdma/ib other than the "
                       "prefill node (h1)");
}

TEST(CacheFields, InitContainersSidecarsAndOverheadCount) {
  json d = worker("d", "decode", 4);
  d["spec"]["initContainers"] = json::array(
      {{{"name", "fetch"}, {"image", "x"}, {"resources", {{"requests", {{"nvidia.com/gpu", "12"}}}}}},
       {{"name", "proxy"}, {"restartPolicy", "Always"}, {"resources", {{"requests", {{"cpu", "300"}}}}}}});
  d["spec"]["overhead"] = {{"cpu", "1"}};
  auto c = same_condition(whole_input({bound(worker("p", "prefill", 4), "h0"), unschedulable(d, kNoGpu)},
                                      {h200("h0"), h200("h1")}));
  EXPECT_NE(c.message.find("12 nvidia.com/gpu"), std::string::npos) << c.message;
  // A sidecar (restartPolicy Always) runs next to the app containers; the overhead adds.
  json s = worker("s", "decode", 4);
  s["spec"]["initContainers"] = json::array(
      {{{"name", "proxy"}, {"restartPolicy", "Always"}, {"resources", {{"requests", {{"cpu", "300"}}}}}}});
  s["spec"]["overhead"] = {{"cpu", "1"}};
  s["spec"]["containers"][0]["resources"]["requests"] = {{"cpu", "100"}};  // 100 + 300 + 1, not max(100, 300) + 1
  c = same_condition(whole_input({bound(worker("p", "prefill", 4), "h0"),
                                  unschedulable(s, "0/2 nodes are available: 2 Insufficient cpu.")},
                                 {h200("h0"), h200("h1")}));
  EXPECT_NE(c.message.find("no node with 401 free cpu"), std::string::npos) << c.message;
}

TEST(CacheFields, TaintsCordonsSelectorsAndCapacityFallback) {
  json untolerating = worker("d", "decode", 4);
  untolerating["spec"].erase("tolerations");
  auto c = same_condition(whole_input(
      {bound(worker("p", "prefill", 4), "h0"),
       unschedulable(untolerating, "0/2 nodes are available: 2 node(s) had untolerated taint {nvidia.com/gpu: }.")},
      {h200("h0"), h200("h1")}));
  EXPECT_NE(c.message.find("carry taint nvidia.com/gpu:NoSchedule"), std::string::npos) << c.message;

  json cordoned0 = h200("h0"), cordoned1 = h200("h1");
  cordoned0["spec"]["unschedulable"] = true;
  cordoned1["spec"]["unschedulable"] = true;
  c = same_condition(whole_input({unschedulable(worker("p", "prefill", 4), "0/2 nodes are available: 2 node(s) were unschedulable."),
                                  unschedulable(worker("d", "decode", 4), "0/2 nodes are available: 2 node(s) were unschedulable.")},
                                 {cordoned0, cordoned1}));
  EXPECT_NE(c.message.find("cordoned"), std::string::npos) << c.message;

  json b200 = worker("d", "decode", 4, "NVIDIA-B200");
  b200["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"] =
      json::array({{{"matchExpressions", json::array({{{"key", "kubernetes.io/hostname"}, {"operator", "In"}, {"values", {"h9"}}}})}}});
  c = same_condition(whole_input(
      {bound(worker("p", "prefill", 4), "h0"),
       unschedulable(b200, "0/2 nodes are available: 2 node(s) didn't match Pod's node affinity/selector.")},
      {h200("h0"), h200("h1")}));
  EXPECT_EQ(c.reason, kReasonNoMatchingNode);

  // Nodes without allocatable: capacity stands in (8 GPUs there, so 12 do not fit).
  json a = h200("h0"), b = h200("h1");
  a["status"].erase("allocatable");
  b["status"].erase("allocatable");
  c = same_condition(whole_input({bound(worker("p", "prefill", 4), "h0"), unschedulable(worker("d", "decode", 12), kNoGpu)},
                                 {a, b}));
  EXPECT_NE(c.message.find("has 8 allocatable"), std::string::npos) << c.message;
}

TEST(CacheFields, ComputeDomainCliques) {
  auto claim = [](json p) {
    p["spec"]["resourceClaims"] = json::array({{{"name", "cd"}, {"resourceClaimTemplateName", "g-channel"}}});
    return p;
  };
  auto c = same_condition(whole_input(
      {bound(claim(worker("p", "prefill", 4, "NVIDIA-GB200")), "r0-a"),
       unschedulable(claim(worker("d", "decode", 4, "NVIDIA-GB200")),
                     "0/3 nodes are available: 1 Insufficient nvidia.com/gpu, 2 node(s) didn't match pod affinity "
                     "rules (nvidia.com/gpu.clique).")},
      {gb200("r0-a", kRack0), gb200("r1-a", kRack1), gb200("r1-b", kRack1)}));
  EXPECT_EQ(c.reason, kReasonNVLinkClique) << c.message;
  EXPECT_NE(c.message.find(kRack0), std::string::npos) << c.message;
}

TEST(CacheFields, GatesDeletionAndPhases) {
  json gated = worker("d", "decode", 4);
  gated["spec"]["schedulingGates"] = json::array({{{"name", "x"}}});
  EXPECT_EQ(same_condition(whole_input({bound(worker("p", "prefill", 4), "h0"), gated}, {h200("h0")})).reason,
            "SchedulingGated");
  json leaving = bound(worker("d", "decode", 4), "h0");
  leaving["metadata"]["deletionTimestamp"] = "2026-11-30T12:00:00Z";
  json done = bound(worker("d2", "decode", 4), "h0");
  done["status"]["phase"] = "Succeeded";
  EXPECT_EQ(same_condition(whole_input({bound(worker("p", "prefill", 4), "h0"), leaving, done}, {h200("h0")})).reason,
            "PodsNotCreated");
  EXPECT_EQ(same_condition(whole_input({bound(worker("p", "prefill", 4), "h0"), bound(worker("d", "decode", 4), "h0")},
                                       {h200("h0")}))
                .status,
            "True");
}

TEST(CacheFields, EventFiltersSeeTheSameChanges) {
  json p = worker("d", "decode", 4);
  const std::vector<std::pair<json, json>> pods = {
      {p, bound(p, "h0")},
      {p, unschedulable(p, "x")},
      {unschedulable(p, "x"), unschedulable(p, "y")},
      {unschedulable(p, "x"), unschedulable(p, "x")},
      {bound(p, "h0"), [&] { json r = bound(p, "h0"); r["status"]["podIP"] = "10.0.0.9"; return r; }()},
  };
  for (const auto& [a, b] : pods) {
    EXPECT_EQ(pod_placement_changed(cached_pod(a), cached_pod(b)), pod_placement_changed(a, b)) << b.dump();
  }
  EXPECT_EQ(dgd_of_pod(cached_pod(p)), "g");
  json n = h200("h0"), cordoned = n, relabelled = n, heartbeat = n;
  cordoned["spec"]["unschedulable"] = true;
  relabelled["metadata"]["labels"]["nvidia.com/gpu.clique"] = kRack0;
  heartbeat["status"]["conditions"][0]["lastHeartbeatTime"] = "t2";
  for (const json& b : {cordoned, relabelled, heartbeat}) {
    EXPECT_EQ(node_placement_changed(cached_node(n), cached_node(b)), node_placement_changed(n, b)) << b.dump();
  }
}

TEST(CacheFields, DropWhatPlacementDoesNotRead) {
  const json p = cached_pod(bound(worker("p", "prefill", 4), "h0"));
  EXPECT_FALSE(p["spec"].contains("volumes"));
  EXPECT_FALSE(p["spec"]["containers"][0].contains("env"));
  EXPECT_FALSE(p["status"].contains("containerStatuses"));
  EXPECT_FALSE(p["status"]["conditions"][0].contains("lastTransitionTime"));
  EXPECT_EQ(p["metadata"]["labels"]["nvidia.com/dynamo-graph-deployment-name"], "g");
  const json n = cached_node(h200("h0"));
  EXPECT_FALSE(n["status"].contains("images"));
  EXPECT_FALSE(n["status"].contains("conditions"));
  EXPECT_FALSE(n["spec"].contains("podCIDR"));
  EXPECT_EQ(n["status"]["allocatable"]["nvidia.com/gpu"], "8");
}

}  // namespace
}  // namespace dgd::reconcile
