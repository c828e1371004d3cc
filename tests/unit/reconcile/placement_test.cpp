#include "dgd/reconcile/placement.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "dgd/reconcile/placement_fit.h"
#include "dgd/reconcile/placement_plan.h"
#include "dgd/reconcile/placement_status.h"

namespace dgd::reconcile {
namespace {

using nlohmann::json;

constexpr const char* kGpuTaint = "nvidia.com/gpu";
const std::string kRack0 = "61248eac.20663", kRack1 = "61248eac.31442";

json node(const std::string& name, int gpus, int rdma, json labels = json::object(), bool taint = true) {
  labels["kubernetes.io/hostname"] = name;
  json n = {{"metadata", {{"name", name}, {"labels", labels}}},
            {"status",
             {{"allocatable",
               {{"cpu", "224"}, {"memory", "2000Gi"}, {"pods", "110"}, {"nvidia.com/gpu", std::to_string(gpus)},
                {"rdma/ib", std::to_string(rdma)}}}}}};
  if (taint) n["spec"]["taints"] = json::array({{{"key", kGpuTaint}, {"effect", "NoSchedule"}}});
  return n;
}

json h200(const std::string& name) {
  return node(name, 8, 8, {{"nvidia.com/gpu.product", "NVIDIA-H200"}, {"kubernetes.io/arch", "amd64"}});
}
json gb200(const std::string& name, const std::string& clique) {
  return node(name, 4, 0,
              {{"nvidia.com/gpu.product", "NVIDIA-GB200"}, {"kubernetes.io/arch", "arm64"}, {kCliqueLabel, clique}});
}
json cpu_node(const std::string& name) {
  json n = node(name, 0, 0, json::object(), false);
  n["status"]["allocatable"].erase("nvidia.com/gpu");
  n["status"]["allocatable"].erase("rdma/ib");
  return n;
}

// A worker pod of DGD "g" as render makes them: product selector, GPU toleration,
// GPUs and RDMA as limits, the component labels.
json worker(const std::string& name, const std::string& type, int gpus, int rdma, const std::string& product = "NVIDIA-H200") {
  json limits = {{"nvidia.com/gpu", std::to_string(gpus)}};
  if (rdma > 0) limits["rdma/ib"] = std::to_string(rdma);
  const std::string component = type == "prefill" ? "PrefillWorker" : type == "decode" ? "DecodeWorker" : "Worker";
  return {{"metadata",
           {{"name", name},
            {"namespace", "ns"},
            {"labels",
             {{"nvidia.com/dynamo-graph-deployment-name", "g"},
              {"nvidia.com/dynamo-component", component},
              {"nvidia.com/dynamo-component-type", type}}}}},
          {"spec",
           {{"nodeSelector", {{"nvidia.com/gpu.product", product}}},
            {"tolerations", json::array({{{"key", kGpuTaint}, {"operator", "Exists"}, {"effect", "NoSchedule"}}})},
            {"containers", json::array({{{"name", "main"}, {"resources", {{"limits", limits}}}}})}}}};
}

// Prefill and decode never share a node (placement.separatePrefillDecode).
json separated(json pod) {
  const std::string type = pod["metadata"]["labels"]["nvidia.com/dynamo-component-type"];
  const std::string other = type == "prefill" ? "decode" : "prefill";
  pod["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"] = json::array(
      {{{"labelSelector",
         {{"matchLabels", {{"nvidia.com/dynamo-graph-deployment-name", "g"}, {"nvidia.com/dynamo-component-type", other}}}}},
        {"topologyKey", "kubernetes.io/hostname"}}});
  return pod;
}

json with_claim(json pod) {
  pod["spec"]["resourceClaims"] = json::array({{{"name", "compute-domain"}, {"resourceClaimTemplateName", "g-channel"}}});
  return pod;
}

json bound(json pod, const std::string& node) {
  pod["spec"]["nodeName"] = node;
  pod["status"]["phase"] = "Running";
  return pod;
}

json unschedulable(json pod, const std::string& message) {
  pod["status"]["phase"] = "Pending";
  pod["status"]["conditions"] = json::array(
      {{{"type", "PodScheduled"}, {"status", "False"}, {"reason", "Unschedulable"}, {"message", message}}});
  return pod;
}

json foreign(const std::string& name, const std::string& node, int gpus) {
  json p = worker(name, "worker", gpus, 0);
  p["metadata"]["namespace"] = "other";
  p["metadata"]["labels"] = {{"app", "filler"}};
  return bound(p, node);
}

// --- ClusterFit: the scheduler's filters.

TEST(ClusterFit, RequestsAgainstAllocatableMinusBoundPods) {
  ClusterFit view({h200("h0")}, {foreign("busy", "h0", 6)});
  EXPECT_EQ(view.fit(worker("p", "worker", 2, 0)).node, "h0");
  FitResult r = view.fit(worker("p", "worker", 4, 0));
  ASSERT_FALSE(r.node);
  ASSERT_EQ(r.refused.size(), 1u);
  EXPECT_TRUE(r.refused[0].fails(FitFilter::kResources));
  ASSERT_EQ(r.refused[0].shortfalls.size(), 1u);
  EXPECT_EQ(r.refused[0].shortfalls[0].resource, "nvidia.com/gpu");
  EXPECT_EQ(r.refused[0].shortfalls[0].free, 2000);
  EXPECT_EQ(r.refused[0].shortfalls[0].allocatable, 8000);
}

TEST(ClusterFit, FinishedPodsFreeTheirCapacity) {
  json done = foreign("done", "h0", 8);
  done["status"]["phase"] = "Succeeded";
  ClusterFit view({h200("h0")}, {done});
  EXPECT_EQ(view.fit(worker("p", "worker", 8, 0)).node, "h0");
}

TEST(ClusterFit, TaintsSelectorsAndCordons) {
  json cordoned = h200("h1");
  cordoned["spec"]["unschedulable"] = true;
  ClusterFit view({h200("h0"), cordoned, cpu_node("c0")}, {});
  json untolerating = worker("p", "worker", 1, 0);
  untolerating["spec"].erase("tolerations");
  FitResult r = view.fit(untolerating);
  EXPECT_FALSE(r.node);
  for (const auto& n : r.refused) {
    if (n.node == "h0") {
      EXPECT_TRUE(n.fails(FitFilter::kTaint));
      EXPECT_EQ(n.taint, "nvidia.com/gpu:NoSchedule");
    } else if (n.node == "h1") {
      EXPECT_TRUE(n.fails(FitFilter::kUnschedulable));
    } else {
      EXPECT_TRUE(n.fails(FitFilter::kNodeSelector)) << n.node;
    }
  }
  EXPECT_EQ(view.fit(worker("p", "worker", 1, 0)).node, "h0");
  EXPECT_FALSE(view.fit(worker("p", "worker", 1, 0, "NVIDIA-B200")).node);
}

TEST(ClusterFit, RequiredNodeAffinityExpressions) {
  ClusterFit view({h200("h0"), h200("h1")}, {});
  json p = worker("p", "worker", 1, 0);
  p["spec"]["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"] =
      json::array({{{"matchExpressions",
                     json::array({{{"key", "kubernetes.io/hostname"}, {"operator", "NotIn"}, {"values", {"h0"}}}})}}});
  EXPECT_EQ(view.fit(p).node, "h1");
}

TEST(ClusterFit, GpuPodsArePackedOntoTheFullestNode) {
  ClusterFit view({h200("h0"), h200("h1")}, {foreign("busy", "h1", 4)});
  EXPECT_EQ(view.fit(worker("p", "worker", 4, 0)).node, "h1");
}

TEST(ClusterFit, PrefillAndDecodeAntiAffinity) {
  ClusterFit view({h200("h0"), h200("h1")}, {bound(separated(worker("pre", "prefill", 4, 4)), "h0")});
  EXPECT_EQ(view.fit(separated(worker("dec", "decode", 4, 4))).node, "h1");
  // Without its own anti-affinity, the decode pod is still kept off h0 by the prefill
  // pod's (existing pods' anti-affinity).
  FitResult r = view.fit(worker("dec", "decode", 4, 4), FitOptions{"", false});
  EXPECT_EQ(r.node, "h1");
  ASSERT_EQ(r.refused.size(), 1u);
  EXPECT_TRUE(r.refused[0].fails(FitFilter::kExistingAntiAffinity));
}

TEST(ClusterFit, ComputeDomainPodsShareTheCliqueOfTheFirstBoundPod) {
  ClusterFit view({gb200("r0-a", kRack0), gb200("r0-b", kRack0), gb200("r1-a", kRack1)},
                  {bound(with_claim(worker("w0", "prefill", 4, 0, "NVIDIA-GB200")), "r0-a")});
  json next = with_claim(worker("w1", "decode", 4, 0, "NVIDIA-GB200"));
  EXPECT_EQ(view.fixed_clique(next), kRack0);
  EXPECT_EQ(view.fit(next).node, "r0-b");
  view.bind(foreign("fill", "r0-b", 4), "r0-b");
  FitResult r = view.fit(next);
  ASSERT_FALSE(r.node) << "must not split the NVLink domain onto " << *r.node;
  bool clique_refusal = false;
  for (const auto& n : r.refused) clique_refusal |= n.node == "r1-a" && n.fails(FitFilter::kClique);
  EXPECT_TRUE(clique_refusal);
}

TEST(LabelSelector, MatchLabelsAndExpressions) {
  json labels = {{"a", "1"}, {"b", "2"}};
  EXPECT_TRUE(label_selector_matches(json(), labels));
  EXPECT_TRUE(label_selector_matches({{"matchLabels", {{"a", "1"}}}}, labels));
  EXPECT_FALSE(label_selector_matches({{"matchLabels", {{"a", "2"}}}}, labels));
  EXPECT_TRUE(label_selector_matches(
      {{"matchExpressions", json::array({{{"key", "b"}, {"operator", "In"}, {"values", {"2", "3"}}}})}}, labels));
  EXPECT_FALSE(label_selector_matches(
      {{"matchExpressions", json::array({{{"key", "c"}, {"operator", "Exists"}}})}}, labels));
  EXPECT_TRUE(label_selector_matches(
      {{"matchExpressions", json::array({{{"key", "c"}, {"operator", "DoesNotExist"}}})}}, labels));
}

// --- Sentences.

TEST(Describe, TooBigForAnyNodeNamesTheShortfall) {
  ClusterFit view({h200("h200-0"), cpu_node("cpu-0")}, {});
  json p = worker("w", "worker", 16, 0);
  auto problem = describe_refusal(p, failing_filters(view.fit(p)), view);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->reason, kReasonInsufficientResources);
  EXPECT_NE(problem->message.find("no node with 16 free nvidia.com/gpu"), std::string::npos) << problem->message;
  EXPECT_NE(problem->message.find("has 8 allocatable (h200-0)"), std::string::npos) << problem->message;
}

TEST(Describe, DecodeCannotShareThePrefillNode) {
  ClusterFit view({h200("h0"), h200("h1")},
                  {foreign("busy", "h0", 8), bound(separated(worker("pre", "prefill", 4, 4)), "h1")});
  json dec = separated(worker("dec", "decode", 4, 4));
  FitResult r = view.fit(dec);
  ASSERT_FALSE(r.node);
  auto problem = describe_refusal(dec, failing_filters(r), view);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->message, "no node with 4 free nvidia.com/gpu and 4 rdma/ib other than the prefill node (h1)");
}

TEST(Describe, ResourcesOfNodesOutsideTheSelectorAreNotNamed) {
  // The CPU node is short of GPUs and memory, but the pod may not run there anyway.
  ClusterFit view({h200("h0"), cpu_node("c0")}, {foreign("busy", "h0", 6)});
  json p = worker("w", "worker", 4, 0);
  p["spec"]["containers"][0]["resources"]["requests"] = {{"memory", "512Gi"}};
  Refusal r = failing_filters(view.fit(p));
  EXPECT_EQ(r.short_resources, (std::set<std::string>{"nvidia.com/gpu"}));
  auto problem = describe_refusal(p, r, view);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->message, "no node with 4 free nvidia.com/gpu");
}

TEST(Describe, NoNodeMatchesTheSelector) {
  ClusterFit view({h200("h0")}, {});
  json p = worker("w", "worker", 4, 0, "NVIDIA-GB200");
  auto problem = describe_refusal(p, failing_filters(view.fit(p)), view);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->reason, kReasonNoMatchingNode);
  EXPECT_EQ(problem->message, "no node matches nodeSelector nvidia.com/gpu.product=NVIDIA-GB200");
}

TEST(Describe, SchedulerMessageIsParsed) {
  Refusal r = parse_scheduler_message(
      "0/6 nodes are available: 1 node(s) didn't match pod anti-affinity rules, 2 node(s) didn't match Pod's node "
      "affinity/selector, 3 Insufficient nvidia.com/gpu, 3 Insufficient rdma/ib. preemption: 0/6 nodes are "
      "available: 1 No preemption victims found for incoming pod, 5 Preemption is not helpful for scheduling.");
  EXPECT_FALSE(r.other);
  EXPECT_EQ(r.filters, (std::set<FitFilter>{FitFilter::kPodAntiAffinity, FitFilter::kNodeSelector, FitFilter::kResources}));
  EXPECT_EQ(r.short_resources, (std::set<std::string>{"nvidia.com/gpu", "rdma/ib"}));
  EXPECT_TRUE(parse_scheduler_message(
                  "0/6 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/6 nodes "
                  "are available: 6 Preemption is not helpful for scheduling.")
                  .other);
}

// The two-rack case as the operator sees it: the filler pods of rack 0 are not its own
// (so its view thinks rack 0 is free); the scheduler's message says which filters
// refused; the sentence names the clique the first worker fixed.
TEST(Describe, CliqueFromTheSchedulerMessage) {
  ClusterFit view({gb200("r0-a", kRack0), gb200("r0-b", kRack0), gb200("r1-a", kRack1)},
                  {bound(with_claim(worker("w0", "prefill", 4, 0, "NVIDIA-GB200")), "r0-a")});
  json w1 = with_claim(worker("w1", "decode", 4, 0, "NVIDIA-GB200"));
  Refusal r = parse_scheduler_message(
      "0/3 nodes are available: 1 node(s) were not in the nvidia.com/gpu.clique " + kRack0 +
      " of ComputeDomain g-cd, 2 Insufficient nvidia.com/gpu. preemption: ...");
  auto problem = describe_refusal(w1, r, view);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->reason, kReasonNVLinkClique);
  EXPECT_NE(problem->message.find("must join nvidia.com/gpu.clique " + kRack0), std::string::npos) << problem->message;
  EXPECT_NE(problem->message.find("no node there has 4 free nvidia.com/gpu"), std::string::npos) << problem->message;
  EXPECT_NE(problem->message.find("NVLink domain is not split"), std::string::npos) << problem->message;
}

TEST(Describe, NoCliqueHoldsTheGroup) {
  ClusterFit view({gb200("r0-a", kRack0), gb200("r0-b", kRack0), gb200("r1-a", kRack1), gb200("r1-b", kRack1)},
                  {foreign("f0", "r0-a", 4), foreign("f1", "r1-a", 4)});
  std::vector<json> group = {with_claim(worker("w0", "prefill", 4, 0, "NVIDIA-GB200")),
                             with_claim(worker("w1", "decode", 4, 0, "NVIDIA-GB200"))};
  auto problem = clique_capacity_problem(group, view);
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->message,
            "workers need one nvidia.com/gpu.clique with room for 2 (4 nvidia.com/gpu each); the largest has room "
            "for 1 (" + kRack0 + ")");
  // One tray freed in rack 1: it holds both.
  ClusterFit freed({gb200("r0-a", kRack0), gb200("r0-b", kRack0), gb200("r1-a", kRack1), gb200("r1-b", kRack1)},
                   {foreign("f0", "r0-a", 4)});
  EXPECT_FALSE(clique_capacity_problem(group, freed));
}

// --- The condition.

PlacementInput input(std::vector<json> pods) {
  PlacementInput in;
  in.dgd_name = "g";
  in.components = {{"PrefillWorker", 1}, {"DecodeWorker", 1}};
  in.pods = std::move(pods);
  in.nodes = {h200("h0"), h200("h1")};
  return in;
}

TEST(PlacementCondition, AbsentBeforeAnyPod) { EXPECT_FALSE(placement_condition(input({}))); }

TEST(PlacementCondition, TrueOnceEveryPodIsBound) {
  auto c = placement_condition(
      input({bound(worker("p", "prefill", 4, 4), "h0"), bound(worker("d", "decode", 4, 4), "h1")}));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->status, "True");
  EXPECT_EQ(c->message, "all 2 pod(s) are bound to nodes");
}

TEST(PlacementCondition, UnknownWhileWaiting) {
  auto c = placement_condition(input({bound(worker("p", "prefill", 4, 4), "h0")}));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->status, "Unknown");
  EXPECT_EQ(c->reason, "PodsNotCreated");
  EXPECT_EQ(c->message, "DecodeWorker: 0 of 1 pod(s) created and bound");

  c = placement_condition(input({bound(worker("p", "prefill", 4, 4), "h0"), worker("d", "decode", 4, 4)}));
  EXPECT_EQ(c->reason, "Scheduling");
  json gated = worker("d", "decode", 4, 4);
  gated["spec"]["schedulingGates"] = json::array({{{"name", "x"}}});
  c = placement_condition(input({bound(worker("p", "prefill", 4, 4), "h0"), gated}));
  EXPECT_EQ(c->reason, "SchedulingGated");
}

TEST(PlacementCondition, FalseNamesWhatIsMissingPerComponent) {
  PlacementInput in = input({bound(separated(worker("p", "prefill", 4, 4)), "h1"),
                             unschedulable(separated(worker("d", "decode", 4, 4)),
                                           "0/2 nodes are available: 1 Insufficient nvidia.com/gpu, 1 Insufficient "
                                           "rdma/ib, 1 node(s) didn't match pod anti-affinity rules. preemption: x")});
  in.other_pods = {foreign("busy", "h0", 8)};
  auto c = placement_condition(in);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->status, "False");
  EXPECT_EQ(c->reason, kReasonInsufficientResources);
  EXPECT_EQ(c->message,
            "DecodeWorker: 1 pod pending: no node with 4 free nvidia.com/gpu and 4 rdma/ib other than the prefill "
            "node (h1)");
  // The same observations give the same condition (stable at rest).
  EXPECT_EQ(placement_condition(in)->message, c->message);
}

TEST(PlacementCondition, UnknownSchedulerTextIsQuoted) {
  const std::string msg =
      "0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. preemption: 0/2 nodes are "
      "available: 2 Preemption is not helpful for scheduling.";
  auto c = placement_condition(input({bound(worker("p", "prefill", 4, 4), "h0"), unschedulable(worker("d", "decode", 4, 4), msg)}));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->reason, kReasonUnschedulable);
  EXPECT_EQ(c->message, "DecodeWorker: 1 pod pending: scheduler: " + msg);
}

TEST(PlacementStatus, WhichEventsMatter) {
  json p = worker("d", "decode", 4, 4);
  json ready = p;
  ready["status"]["conditions"] = json::array({{{"type", "Ready"}, {"status", "True"}}});
  EXPECT_FALSE(pod_placement_changed(p, ready));
  EXPECT_TRUE(pod_placement_changed(p, bound(p, "h0")));
  EXPECT_TRUE(pod_placement_changed(p, unschedulable(p, "x")));
  EXPECT_FALSE(pod_placement_changed(unschedulable(p, "x"), unschedulable(p, "x")));
  EXPECT_TRUE(pod_placement_changed(unschedulable(p, "x"), unschedulable(p, "y")));
  EXPECT_EQ(dgd_of_pod(p), "g");

  json n = h200("h0"), heartbeat = n, cordoned = n;
  heartbeat["status"]["conditions"] = json::array({{{"type", "Ready"}, {"lastHeartbeatTime", "t"}}});
  cordoned["spec"]["unschedulable"] = true;
  EXPECT_FALSE(node_placement_changed(n, heartbeat));
  EXPECT_TRUE(node_placement_changed(n, cordoned));

  json dgd = {{"status",
               {{"conditions", json::array({{{"type", "Ready"}, {"status", "True"}, {"reason", "r"}},
                                            {{"type", "Placement"}, {"status", "False"}, {"message", "m"}}})}}}};
  EXPECT_TRUE(placement_pending(dgd));
  dgd["status"]["conditions"][1]["status"] = "Unknown";
  EXPECT_TRUE(placement_pending(dgd));
  dgd["status"]["conditions"][1]["status"] = "True";
  EXPECT_FALSE(placement_pending(dgd));
  dgd["status"]["conditions"].erase(1);
  EXPECT_FALSE(placement_pending(dgd));
}

// --- The plan.

json deployment(const json& pod_template, int replicas) {
  return {{"kind", "Deployment"},
          {"metadata", {{"name", "g-" + pod_template["metadata"]["labels"]["nvidia.com/dynamo-component"].get<std::string>()}}},
          {"spec", {{"replicas", replicas}, {"template", pod_template}}}};
}

TEST(PlacementPlan, DisaggregatedWorkersOnSeparateNodes) {
  auto plan = plan_placement({deployment(separated(worker("", "prefill", 4, 4)), 1),
                              deployment(separated(worker("", "decode", 4, 4)), 1)},
                             {h200("h0"), h200("h1"), cpu_node("c0")}, {foreign("busy", "h0", 2)}, "ns", "g");
  ASSERT_TRUE(plan.fits());
  ASSERT_EQ(plan.replicas.size(), 2u);
  EXPECT_EQ(plan.replicas[0].node, "h0");  // packed onto the node already in use
  EXPECT_EQ(plan.replicas[1].node, "h1");
}

TEST(PlacementPlan, OwnPodsCountAsFreeAndShortfallIsNamed) {
  auto plan = plan_placement({deployment(worker("", "worker", 16, 0), 1)}, {h200("h200-0"), cpu_node("cpu-0")},
                             {bound(worker("old", "worker", 8, 0), "h200-0")}, "ns", "g");
  EXPECT_EQ(plan.ignored_own_pods, 1);
  ASSERT_FALSE(plan.fits());
  ASSERT_TRUE(plan.replicas[0].problem);
  EXPECT_NE(plan.replicas[0].problem->message.find("no node with 16 free nvidia.com/gpu"), std::string::npos);
}

TEST(PlacementPlan, ComputeDomainGroupGoesToOneClique) {
  std::vector<json> nodes = {gb200("r0-a", kRack0), gb200("r0-b", kRack0), gb200("r1-a", kRack1), gb200("r1-b", kRack1)};
  auto plan = plan_placement({deployment(with_claim(worker("", "prefill", 4, 0, "NVIDIA-GB200")), 1),
                              deployment(with_claim(worker("", "decode", 4, 0, "NVIDIA-GB200")), 1)},
                             nodes, {foreign("f0", "r0-a", 4)}, "ns", "g");
  ASSERT_TRUE(plan.fits());
  // Rack 0 has one free tray only: both go to rack 1 rather than split.
  EXPECT_EQ(plan.replicas[0].clique, kRack1);
  EXPECT_EQ(plan.replicas[1].clique, kRack1);

  plan = plan_placement({deployment(with_claim(worker("", "prefill", 4, 0, "NVIDIA-GB200")), 1),
                         deployment(with_claim(worker("", "decode", 4, 0, "NVIDIA-GB200")), 1)},
                        nodes, {foreign("f0", "r0-a", 4), foreign("f1", "r1-a", 4)}, "ns", "g");
  ASSERT_FALSE(plan.fits());
  ASSERT_EQ(plan.group_problems.size(), 1u);
  EXPECT_NE(plan.group_problems[0].message.find("the largest has room for 1"), std::string::npos);
  EXPECT_EQ(plan.replicas[0].problem->reason, kReasonNVLinkClique);
}

}  // namespace
}  // namespace dgd::reconcile
