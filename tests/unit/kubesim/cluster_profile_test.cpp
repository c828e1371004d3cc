// Cluster profiles: the shipped files load and describe what the issues need.
#include "kubesim/cluster/profile.h"
#include "kubesim/cluster/scheduler.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

namespace kubesim::cluster {
namespace {

Profile shipped(const std::string& name) {
  return load_profile(std::string(DGD_SOURCE_DIR) + "/tests/kubesim/profiles/" + name + ".yaml", TimePoint{});
}

struct Summary {
  std::map<std::string, int> by_product;  // nvidia.com/gpu.product -> nodes
  std::set<std::string> cliques;
  int64_t gpus = 0;
  int cpu_nodes = 0;
};

Summary summarize(const Profile& p) {
  Summary s;
  for (const auto& n : p.nodes) {
    const Json& labels = n["metadata"]["labels"];
    std::string product = labels.value("nvidia.com/gpu.product", "");
    if (product.empty()) ++s.cpu_nodes;
    else ++s.by_product[product];
    if (labels.contains("nvidia.com/gpu.clique")) s.cliques.insert(labels["nvidia.com/gpu.clique"]);
    ResourceList a = node_allocatable(n);
    s.gpus += a["nvidia.com/gpu"];
  }
  return s;
}

TEST(ClusterProfile, ShippedProfilesHaveTheAdvertisedShape) {
  Summary h200 = summarize(shipped("h200-4x"));
  EXPECT_EQ(h200.by_product["NVIDIA-H200"], 4);
  EXPECT_EQ(h200.gpus, 32);
  EXPECT_GE(h200.cpu_nodes, 1);
  Summary one = summarize(shipped("h200-1x"));
  EXPECT_EQ(one.gpus, 8);
  Summary b200 = summarize(shipped("b200-2x"));
  EXPECT_EQ(b200.by_product["NVIDIA-B200"], 2);
  EXPECT_EQ(b200.gpus, 16);
  Summary rack = summarize(shipped("gb200-nvl72"));
  EXPECT_EQ(rack.by_product["NVIDIA-GB200"], 18);
  EXPECT_EQ(rack.gpus, 72);
  EXPECT_EQ(rack.cliques.size(), 1u);
  Summary two = summarize(shipped("gb200-2rack"));
  EXPECT_EQ(two.by_product["NVIDIA-GB200"], 36);
  EXPECT_EQ(two.cliques.size(), 2u);
  Profile large = shipped("large");
  EXPECT_EQ(large.nodes.size(), 500u);
}

TEST(ClusterProfile, NodesCarryLabelsTaintsAndStatus) {
  Profile p = shipped("gb200-nvl72");
  const Json* tray = nullptr;
  for (const auto& n : p.nodes)
    if (n["metadata"]["labels"].value("nvidia.com/gpu.product", "") == "NVIDIA-GB200") tray = &n;
  ASSERT_NE(tray, nullptr);
  const Json& labels = (*tray)["metadata"]["labels"];
  EXPECT_EQ(labels["kubernetes.io/arch"], "arm64");
  EXPECT_EQ(labels["kubernetes.io/hostname"], (*tray)["metadata"]["name"]);
  EXPECT_EQ(labels["nvidia.com/gpu.clique"], "61248eac-4785-4fbf-9cbd-231635e37e9d.20663");
  EXPECT_EQ((*tray)["spec"]["taints"],
            Json::parse(R"([{"key":"nvidia.com/gpu","effect":"NoSchedule"},
                            {"key":"kubernetes.io/arch","value":"arm64","effect":"NoSchedule"}])"));
  EXPECT_EQ((*tray)["status"]["nodeInfo"]["architecture"], "arm64");
  EXPECT_EQ((*tray)["status"]["capacity"], (*tray)["status"]["allocatable"]);
  EXPECT_TRUE(condition_true(*tray, "Ready"));
}

TEST(ClusterProfile, H200WorkersOfTheDisaggRecipeFitWithSeparation) {
  // 4 prefill + 3 decode workers of 4 GPUs and 4 rdma/ib each, prefill and decode
  // on different nodes: packing GPU pods is what makes this fit on 4 nodes.
  Profile p = shipped("h200-4x");
  Snapshot s;
  s.nodes = p.nodes;
  Scheduler sch;
  auto worker = [](const std::string& name, const std::string& role, const std::string& other) {
    Json pod = {{"metadata", {{"name", name}, {"namespace", "d"}, {"labels", {{"role", role}}}}},
                {"spec",
                 {{"nodeSelector", {{"nvidia.com/gpu.product", "NVIDIA-H200"}}},
                  {"tolerations", Json::array({{{"key", "nvidia.com/gpu"}, {"operator", "Exists"}, {"effect", "NoSchedule"}}})},
                  {"affinity",
                   {{"podAntiAffinity",
                     {{"requiredDuringSchedulingIgnoredDuringExecution",
                       Json::array({{{"labelSelector", {{"matchLabels", {{"role", other}}}}},
                                     {"topologyKey", "kubernetes.io/hostname"}}})}}}}},
                  {"containers",
                   Json::array({{{"name", "main"},
                                 {"resources", {{"limits", {{"nvidia.com/gpu", "4"}, {"rdma/ib", "4"}}}}}}})}}}};
    return pod;
  };
  std::map<std::string, std::set<std::string>> nodes_by_role;
  for (int i = 0; i < 7; ++i) {
    std::string role = i < 4 ? "prefill" : "decode";
    Json pod = worker(role + std::to_string(i), role, i < 4 ? "decode" : "prefill");
    Placement pl = sch.place(s, pod);
    ASSERT_TRUE(pl.node) << pl.message;
    nodes_by_role[role].insert(*pl.node);
    pod["spec"]["nodeName"] = *pl.node;
    s.pods.push_back(pod);
  }
  for (const auto& n : nodes_by_role["prefill"]) EXPECT_FALSE(nodes_by_role["decode"].count(n));
  // A frontend without tolerations lands on the CPU pool.
  Json fe = {{"metadata", {{"name", "fe"}, {"namespace", "d"}}},
             {"spec", {{"containers", Json::array({{{"name", "main"}}})}}}};
  EXPECT_EQ(sch.place(s, fe).node->rfind("cpu-", 0), 0u);
}

TEST(ClusterProfile, ErrorsNameTheFileAndField) {
  auto err = [](const std::string& yaml) {
    try {
      parse_profile(yaml, "p.yaml", TimePoint{});
    } catch (const std::runtime_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(err("nodePools: [{name: a, count: 2, allocatable: {cpu: 'x1'}}]"),
            "profile p.yaml: nodePools[0].allocatable.cpu: invalid quantity \"x1\"");
  EXPECT_EQ(err("nodePools: [{name: a, allocatable: {cpu: '1'}, taints: ['k=v']}]"),
            "profile p.yaml: nodePools[0].taints[0]: \"k=v\" lacks \":<effect>\"");
  EXPECT_EQ(err("nodePools: [{name: a, allocatable: {cpu: '1'}}]\nnodes: [{name: a-0, allocatable: {cpu: '1'}}]"),
            "profile p.yaml: nodes[0]: duplicate node name \"a-0\"");
  EXPECT_EQ(err("name: empty"), "profile p.yaml: nodePools: the profile defines no node");
  Profile ok = parse_profile("nodes: [{name: x, allocatable: {cpu: '2'}, taints: ['a=b:NoExecute']}]", "p.yaml", TimePoint{});
  EXPECT_EQ(ok.nodes[0]["spec"]["taints"][0], Json::parse(R"({"key":"a","value":"b","effect":"NoExecute"})"));
  EXPECT_EQ(ok.nodes[0]["status"]["allocatable"]["pods"], "110");
}

}  // namespace
}  // namespace kubesim::cluster
