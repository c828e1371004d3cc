// render: graph → children with upstream's names, labels, env, ports, placement.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "dgd/api/parse.h"
#include "dgd/api/yaml.h"
#include "dgd/recipes/catalog.h"
#include "dgd/recipes/expand.h"
#include "dgd/render/render.h"

namespace dgd::render {
namespace {

using nlohmann::json;

api::Dgd graph_of(const std::string& text) {
  auto p = api::parse(text);
  EXPECT_TRUE(p.ok()) << (p.errors.empty() ? "" : p.errors.front().str());
  auto e = recipes::expand(recipes::Catalog::builtin(), p.dgd);
  EXPECT_TRUE(e.ok()) << (e.errors.empty() ? "" : e.errors.front().str());
  return e.graph;
}

api::Dgd recipe_graph(const char* name) {
  return graph_of(std::string("apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata: {name: g, namespace: ns1}\nspec: {recipe: ") +
                 name + "}\n");
}

// The object `kind`/`name`; a worker Deployment's name without its generation
// ("-<hash>", worker_generation.h).
const json* find(const std::vector<json>& objs, const std::string& kind, const std::string& name) {
  for (const auto& o : objs) {
    const std::string hash =
        kind == "Deployment" ? o["metadata"]["labels"].value("nvidia.com/dynamo-worker-hash", "") : "";
    if (o["kind"] == kind && (o["metadata"]["name"] == name || (!hash.empty() && o["metadata"]["name"] == name + "-" + hash))) {
      return &o;
    }
  }
  return nullptr;
}

const json& main_of(const json& deployment) {
  for (const auto& c : deployment["spec"]["template"]["spec"]["containers"]) {
    if (c["name"] == "main") return c;
  }
  throw std::runtime_error("no main");
}

std::map<std::string, json> env_of(const json& container) {
  std::map<std::string, json> m;
  for (const auto& e : container["env"]) m[e["name"]] = e.contains("value") ? e["value"] : e["valueFrom"];
  return m;
}

TEST(Render, ChildrenAreNamedAndLabelledAsUpstream) {
  auto r = render(recipe_graph("deepseek-v4.1-flash/vllm/disagg-h200-agentic"));
  ASSERT_TRUE(r.ok());
  std::vector<std::string> kinds;
  std::string hash;
  for (const auto& o : r.objects) hash = o["metadata"]["labels"].value("nvidia.com/dynamo-worker-hash", hash);
  ASSERT_EQ(hash.size(), 8u);
  for (const auto& o : r.objects) kinds.push_back(o["kind"].get<std::string>() + "/" + o["metadata"]["name"].get<std::string>());
  EXPECT_EQ(kinds, (std::vector<std::string>{
                       "ServiceAccount/g-k8s-service-discovery", "Role/g-k8s-service-discovery-role",
                       "RoleBinding/g-k8s-service-discovery-binding", "Job/shared-model-cache-download-9081b636",
                       "Service/g-decodeworker", "Service/g-frontend", "Service/g-prefillworker",
                       "Deployment/g-decodeworker-" + hash, "Deployment/g-frontend",
                       "Deployment/g-prefillworker-" + hash}));
  const json& d = *find(r.objects, "Deployment", "g-prefillworker");
  const json& labels = d["spec"]["template"]["metadata"]["labels"];
  EXPECT_EQ(labels["nvidia.com/dynamo-graph-deployment-name"], "g");
  EXPECT_EQ(labels["nvidia.com/dynamo-component"], "PrefillWorker");
  EXPECT_EQ(labels["nvidia.com/dynamo-component-type"], "prefill");
  EXPECT_EQ(labels["nvidia.com/dynamo-namespace"], "ns1-g");
  EXPECT_EQ(labels["nvidia.com/selector"], "g-prefillworker-" + hash);
  EXPECT_EQ(labels["nvidia.com/dynamo-worker-hash"], hash);
  EXPECT_EQ(d["spec"]["selector"]["matchLabels"], (json{{"nvidia.com/selector", "g-prefillworker-" + hash}}));
  EXPECT_EQ(d["metadata"]["namespace"], "ns1");
  const json& owner = d["metadata"]["ownerReferences"][0];
  EXPECT_EQ(owner["kind"], "DynamoGraphDeployment");
  EXPECT_EQ(owner["name"], "g");
  EXPECT_EQ(owner["uid"], "");
  EXPECT_EQ(owner["controller"], true);
  EXPECT_EQ(d["spec"]["template"]["spec"]["serviceAccountName"], "g-k8s-service-discovery");
}

TEST(Render, ServicesSelectTheirPodsOnUpstreamPorts) {
  auto r = render(recipe_graph("deepseek-v4.1-flash/vllm/agg-b200-agentic"));
  const json& fe = *find(r.objects, "Service", "g-frontend");
  EXPECT_EQ(fe["spec"]["ports"], json::parse(R"([{"name":"http","port":8000,"protocol":"TCP","targetPort":"http"}])"));
  const json& w = *find(r.objects, "Service", "g-worker");
  EXPECT_EQ(w["spec"]["ports"][0]["port"], 9090);
  EXPECT_EQ(w["spec"]["ports"][0]["name"], "system");
  EXPECT_EQ(w["metadata"]["labels"]["nvidia.com/dynamo-discovery-backend"], "kubernetes");
  // Every selector label is on the pods.
  const json& pods = find(r.objects, "Deployment", "g-worker")->at("spec")["template"]["metadata"]["labels"];
  for (auto it = w["spec"]["selector"].begin(); it != w["spec"]["selector"].end(); ++it) {
    EXPECT_EQ(pods[it.key()], it.value()) << it.key();
  }
  EXPECT_EQ(main_of(*find(r.objects, "Deployment", "g-frontend"))["ports"][0]["containerPort"], 8000);
}

TEST(Render, InjectsUpstreamEnvAndUserEnvWins) {
  auto g = recipe_graph("deepseek-v4.1-flash/vllm/agg-b200-agentic");
  g.spec.env.push_back({"DYN_SYSTEM_PORT", std::string("9999"), nullptr});
  auto r = render(g);
  auto env = env_of(main_of(*find(r.objects, "Deployment", "g-worker")));
  EXPECT_EQ(env["DYN_NAMESPACE"], "ns1-g");
  EXPECT_EQ(env["DYN_DISCOVERY_BACKEND"], "kubernetes");
  EXPECT_EQ(env["DYN_SYSTEM_ENABLED"], "true");
  EXPECT_EQ(env["DYN_SYSTEM_PORT"], "9999");
  EXPECT_EQ(env["DYN_COMPONENT"], "worker");
  EXPECT_EQ(env["POD_UID"], json::parse(R"({"fieldRef":{"fieldPath":"metadata.uid"}})"));
  EXPECT_EQ(env["HF_HOME"], "/shared-model-cache");
  EXPECT_EQ(env["VLLM_ENGINE_READY_TIMEOUT_S"], "3600");
  auto fenv = env_of(main_of(*find(r.objects, "Deployment", "g-frontend")));
  EXPECT_EQ(fenv["DYN_ROUTER_MODE"], "kv");
  EXPECT_EQ(fenv["DYN_ROUTER_DECODE_ACTIVE_REQUEST_WEIGHT"], "50");
  EXPECT_EQ(fenv["HF_HUB_OFFLINE"], "1");
  EXPECT_EQ(fenv.count("HF_HOME"), 0u) << "the frontend mounts no cache in V4.1";
  // Env is sorted by name.
  const json& list = main_of(*find(r.objects, "Deployment", "g-worker"))["env"];
  for (size_t i = 1; i < list.size(); ++i) EXPECT_LT(list[i - 1]["name"], list[i]["name"]);
}

TEST(Render, SharedMemoryDefaultsToUpstreams8GiAndZeroDisablesIt) {
  auto g = graph_of(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: g}
spec:
  components:
  - {name: A, type: worker, podTemplate: {spec: {containers: [{name: main, image: i, args: [x]}]}}}
  - {name: B, type: worker, sharedMemorySize: "0", podTemplate: {spec: {containers: [{name: main, image: i, args: [x]}]}}}
  - {name: C, type: worker, sharedMemorySize: 2048Mi, podTemplate: {spec: {containers: [{name: main, image: i, args: [x]}]}}}
)");
  auto r = render(g);
  auto vol = [&](const char* n) { return find(r.objects, "Deployment", n)->at("spec")["template"]["spec"].value("volumes", json::array()); };
  EXPECT_EQ(vol("g-a"), json::parse(R"([{"emptyDir":{"medium":"Memory","sizeLimit":"8Gi"},"name":"shared-memory"}])"));
  EXPECT_EQ(vol("g-b"), json::array());
  EXPECT_EQ(vol("g-c")[0]["emptyDir"]["sizeLimit"], "2Gi") << "quantities are canonical";
  EXPECT_EQ(main_of(*find(r.objects, "Deployment", "g-a"))["volumeMounts"][0]["mountPath"], "/dev/shm");
}

// Upstream's rollout annotations set the Deployment's strategy (api/rollout.h); without
// them the recipes' Deployments carry Kubernetes' default, written out.
TEST(Render, RolloutAnnotationsBecomeTheDeploymentStrategy) {
  api::Dgd g = recipe_graph("deepseek-v4.1-flash/sglang/disagg-gb200");
  auto plain = render(g, RenderOptions{});
  ASSERT_TRUE(plain.ok());
  for (const auto& o : plain.objects) {
    if (o["kind"] == "Deployment") {
      EXPECT_EQ(o["spec"]["strategy"]["rollingUpdate"]["maxSurge"], "25%") << o["metadata"]["name"];
    }
  }
  g.spec.annotations["nvidia.com/deployment-rolling-update-max-surge"] = "0";
  g.spec.annotations["nvidia.com/deployment-rolling-update-max-unavailable"] = "1";
  auto r = render(g, RenderOptions{});
  ASSERT_TRUE(r.ok());
  int deployments = 0;
  for (const auto& o : r.objects) {
    if (o["kind"] != "Deployment") continue;
    ++deployments;
    EXPECT_EQ(o["spec"]["strategy"],
              json::parse(R"({"type":"RollingUpdate","rollingUpdate":{"maxSurge":0,"maxUnavailable":1}})"))
        << o["metadata"]["name"];
  }
  EXPECT_EQ(deployments, 3);
}

TEST(Render, UpstreamStyleDgdKeepsItsArgsUntouched) {
  auto g = graph_of(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: up, namespace: team}
spec:
  backendFramework: vllm
  components:
  - name: VllmDecodeWorker
    type: decode
    replicas: 3
    podTemplate:
      spec:
        containers:
        - name: main
          image: nvcr.io/nvidia/ai-dynamo/vllm-runtime:1.3.0
          command: [/bin/bash, -lc]
          args: ["python3 -m dynamo.vllm --model x --kv-transfer-config '{\"kv_connector\":\"NixlConnector\"}'"]
          env: [{name: DYN_NAMESPACE, value: custom}]
)");
  auto r = render(g);
  ASSERT_TRUE(r.ok());
  const json& d = *find(r.objects, "Deployment", "up-vllmdecodeworker");
  const json& main = main_of(d);
  EXPECT_EQ(main["command"], json::parse(R"(["/bin/bash","-lc"])"));
  EXPECT_EQ(main["args"][0], "python3 -m dynamo.vllm --model x --kv-transfer-config '{\"kv_connector\":\"NixlConnector\"}'");
  EXPECT_EQ(d["spec"]["replicas"], 3);
  EXPECT_EQ(env_of(main)["DYN_NAMESPACE"], "custom") << "a user's env wins over the injected one";
  EXPECT_EQ(env_of(main)["DYN_SYSTEM_PORT"], "9090");
  EXPECT_EQ(main["ports"][0]["name"], "system");
  EXPECT_TRUE(main.contains("startupProbe")) << "upstream's default probes apply";
}

TEST(Render, H200DisaggregatedRdmaNicSelectionAndSeparation) {
  auto r = render(recipe_graph("deepseek-v4.1-flash/vllm/disagg-h200-agentic"));
  const json& d = *find(r.objects, "Deployment", "g-decodeworker");
  const json& main = main_of(d);
  EXPECT_EQ(main["resources"]["requests"]["rdma/ib"], "4");
  EXPECT_EQ(main["resources"]["limits"]["rdma/ib"], "4");
  ASSERT_EQ(main["command"].size(), 5u);
  EXPECT_EQ(main["command"][0], "/bin/bash");
  EXPECT_NE(main["command"][2].get<std::string>().find("PCIDEVICE_RDMA_IB"), std::string::npos);
  EXPECT_EQ(main["command"][3], "--");
  EXPECT_EQ(main["command"][4], "python3");
  EXPECT_EQ(main["args"][0], "-m") << "the wrapper execs python3 with the engine args";
  EXPECT_EQ(env_of(main).count("UCX_NET_DEVICES"), 0u) << "never a static UCX_NET_DEVICES";
  EXPECT_EQ(env_of(main)["UCX_TLS"], "rc_x,rc,cuda_copy,cuda_ipc,tcp");
  const json& anti = d["spec"]["template"]["spec"]["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0];
  EXPECT_EQ(anti["topologyKey"], "kubernetes.io/hostname");
  EXPECT_EQ(anti["labelSelector"]["matchLabels"]["nvidia.com/dynamo-component-type"], "prefill");
  EXPECT_EQ(d["spec"]["template"]["spec"]["nodeSelector"]["nvidia.com/gpu.product"], "NVIDIA-H200");
  // The frontend gets neither GPU placement nor RDMA.
  const json& fe = *find(r.objects, "Deployment", "g-frontend");
  EXPECT_FALSE(fe["spec"]["template"]["spec"].contains("nodeSelector"));
  EXPECT_FALSE(main_of(fe)["resources"]["requests"].contains("rdma/ib"));
}

TEST(Render, OtherRdmaResourceNamesSetTheWrapperVariables) {
  auto g = recipe_graph("deepseek-v4.1-flash/vllm/disagg-h200-agentic");
  g.spec.placement->rdma->resource = "nvidia.com/rdma_ib-a";
  g.spec.placement->rdma->per_worker = 2;
  auto env = env_of(main_of(*find(render(g).objects, "Deployment", "g-prefillworker")));
  EXPECT_EQ(env["RDMA_PCIDEVICE_VAR"], "PCIDEVICE_NVIDIA_COM_RDMA_IB_A");
  EXPECT_EQ(env["RDMA_NIC_COUNT"], "2");
}

TEST(Render, Gb200DisaggregatedComputeDomainAndClique) {
  auto r = render(recipe_graph("deepseek-v4.1-flash/vllm/disagg-gb200-agentic"));
  const json* cd = find(r.objects, "ComputeDomain", "g-compute-domain");
  ASSERT_NE(cd, nullptr);
  EXPECT_EQ((*cd)["apiVersion"], "resource.nvidia.com/v1beta1");
  EXPECT_EQ((*cd)["spec"], json::parse(R"({"numNodes":0,"channel":{"allocationMode":"Single","resourceClaimTemplate":{"name":"g-compute-domain-channel"}}})"));
  for (const char* n : {"g-prefillworker", "g-decodeworker"}) {
    const json& pod = find(r.objects, "Deployment", n)->at("spec")["template"]["spec"];
    EXPECT_EQ(pod["resourceClaims"], json::parse(R"([{"name":"compute-domain-channel","resourceClaimTemplateName":"g-compute-domain-channel"}])"));
    EXPECT_EQ(main_of(*find(r.objects, "Deployment", n))["resources"]["claims"], json::parse(R"([{"name":"compute-domain-channel"}])"));
    const json& aff = pod["affinity"]["podAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0];
    EXPECT_EQ(aff["topologyKey"], "nvidia.com/gpu.clique");
    EXPECT_EQ(pod["nodeSelector"]["kubernetes.io/arch"], "arm64");
  }
  EXPECT_EQ(find(render(recipe_graph("deepseek-v4.1-flash/vllm/agg-gb200-agentic")).objects, "ComputeDomain", "g-compute-domain"), nullptr);
}

TEST(Render, SglangConfigMapIsMountedAndReferenced) {
  auto r = render(recipe_graph("deepseek-v4.1-flash/sglang/disagg-gb200"));
  const json* cm = find(r.objects, "ConfigMap", "g-sglang-config");
  ASSERT_NE(cm, nullptr);
  ASSERT_TRUE((*cm)["data"].contains("prefill.yaml"));
  ASSERT_TRUE((*cm)["data"].contains("decode.yaml"));
  json prefill = api::yaml_to_json((*cm)["data"]["prefill.yaml"].get<std::string>());
  EXPECT_EQ(prefill["disaggregation-mode"], "prefill");
  EXPECT_EQ(prefill["tp-size"], 4);
  const json& d = *find(r.objects, "Deployment", "g-prefillworker");
  const json& main = main_of(d);
  EXPECT_EQ(main["args"][3], "/etc/sglang/prefill.yaml");
  bool mounted = false;
  for (const auto& m : main["volumeMounts"]) mounted |= m["mountPath"] == "/etc/sglang" && m["readOnly"] == true;
  EXPECT_TRUE(mounted);
  bool bootstrap = false;
  for (const auto& p : main["ports"]) bootstrap |= p["name"] == "bootstrap" && p["containerPort"] == 30001;
  EXPECT_TRUE(bootstrap);
}

TEST(Render, V4DisaggregatedPcieMapAndRdmaLimits) {
  auto r = render(recipe_graph("deepseek-v4-flash/vllm/disagg-b200-agentic"));
  const json& main = main_of(*find(r.objects, "Deployment", "g-vllmprefillworker"));
  auto env = env_of(main);
  EXPECT_EQ(env["VLLM_NIC_SELECTION_VARS"], "UCX_NET_DEVICES:1");
  EXPECT_EQ(env["VLLM_GPU_NIC_PCIE_MAPPING"],
            "00000000:18:00.0=0000:19:00.0,00000000:29:00.0=0000:2a:00.0,00000000:3A:00.0=0000:3b:00.0,"
            "00000000:4B:00.0=0000:4c:00.0,00000000:9A:00.0=0000:9b:00.0,00000000:AA:00.0=0000:ab:00.0,"
            "00000000:BA:00.0=0000:bc:00.0,00000000:CA:00.0=0000:cb:00.0");
  EXPECT_EQ(main["resources"]["requests"]["rdma/shared_ib"], "1");
  EXPECT_NE(main["command"][2].get<std::string>().find("ulimit -l unlimited"), std::string::npos);
  EXPECT_EQ(env["HF_HOME"], "/model-cache");
  EXPECT_EQ(env["HF_HUB_CACHE"], "/model-cache/hub");
}

TEST(Render, ModelCacheJobTakesTheTokenByReferenceAndPinsTheRevision) {
  auto g = recipe_graph("deepseek-v4.1-flash/vllm/agg-h200-agentic");
  g.spec.model->cache->create = api::ModelCacheCreate{std::string("1000Gi"), std::string("nfs"), std::string("ReadWriteMany")};
  auto r = render(g);
  const json* pvc = find(r.objects, "PersistentVolumeClaim", "shared-model-cache");
  ASSERT_NE(pvc, nullptr);
  EXPECT_EQ((*pvc)["spec"]["resources"]["requests"]["storage"], "1000Gi");
  EXPECT_EQ((*pvc)["spec"]["storageClassName"], "nfs");
  EXPECT_FALSE((*pvc)["metadata"].contains("ownerReferences")) << "a kept cache has no owner";
  const json* job = nullptr;
  for (const auto& o : r.objects) {
    if (o["kind"] == "Job") job = &o;
  }
  ASSERT_NE(job, nullptr);
  const json& c = (*job)["spec"]["template"]["spec"]["containers"][0];
  auto env = env_of(c);
  EXPECT_EQ(env["MODEL_REVISION"], "dba1be0a40aa45a94ad051997016db3960a90277");
  EXPECT_EQ(env["HF_TOKEN"], json::parse(R"({"secretKeyRef":{"key":"HF_TOKEN","name":"hf-token-secret"}})"));
  EXPECT_EQ(c["command"][2].get<std::string>().find("DeepSeek"), std::string::npos) << "model id only via env";
  EXPECT_NE(c["command"][2].get<std::string>().find("--revision \"$MODEL_REVISION\""), std::string::npos);
  // A new revision is a new Job; the same revision from another DGD is the same Job.
  auto other = recipe_graph("deepseek-v4.1-flash/vllm/agg-b200-agentic");
  other.metadata.name = "other";
  const auto other_objects = render(other).objects;
  const json* same_job = nullptr;
  for (const auto& o : other_objects) {
    if (o["kind"] == "Job") same_job = &o;
  }
  ASSERT_NE(same_job, nullptr);
  EXPECT_EQ((*same_job)["metadata"]["name"], (*job)["metadata"]["name"]);
  // Nothing in the shared Job names one DGD, so DGDs sharing it never rewrite it.
  EXPECT_EQ((*same_job)["spec"], (*job)["spec"]);
  EXPECT_EQ((*same_job)["metadata"]["labels"], (*job)["metadata"]["labels"]);
  EXPECT_EQ((*job)["metadata"]["labels"]["nvidia.com/model-cache"], "shared-model-cache");
  EXPECT_FALSE((*job)["metadata"]["labels"].contains("nvidia.com/dynamo-graph-deployment-name"));
  EXPECT_EQ(c["terminationMessagePolicy"], "FallbackToLogsOnError");
  EXPECT_NE(c["command"][2].get<std::string>().find("pip install --no-cache-dir huggingface_hub==1.16.4\n"),
            std::string::npos);
  g.spec.model->revision = "0123456789abcdef0123456789abcdef01234567";
  const auto new_revision = render(g).objects;
  for (const auto& o : new_revision) {
    if (o["kind"] == "Job") {
      EXPECT_NE(o["metadata"]["name"], (*job)["metadata"]["name"]);
    }
  }
}

TEST(Render, DiscoveryRbacGrantsWhatTheRuntimeUses) {
  auto r = render(recipe_graph("deepseek-v4.1-flash/vllm/agg-b200-agentic"));
  const json& role = *find(r.objects, "Role", "g-k8s-service-discovery-role");
  EXPECT_EQ(role["rules"][2]["resources"], json::parse(R"(["dynamoworkermetadatas"])"));
  const json& rb = *find(r.objects, "RoleBinding", "g-k8s-service-discovery-binding");
  EXPECT_EQ(rb["subjects"][0]["name"], "g-k8s-service-discovery");
  EXPECT_EQ(rb["subjects"][0]["namespace"], "ns1");
  EXPECT_EQ(rb["roleRef"]["name"], "g-k8s-service-discovery-role");
}

TEST(Render, IsDeterministic) {
  for (const auto& rec : recipes::Catalog::builtin().all()) {
    auto a = render(recipe_graph(rec.name.c_str()));
    auto b = render(recipe_graph(rec.name.c_str()));
    ASSERT_EQ(a.objects.size(), b.objects.size());
    for (size_t i = 0; i < a.objects.size(); ++i) {
      EXPECT_EQ(api::json_to_yaml(a.objects[i]), api::json_to_yaml(b.objects[i])) << rec.name;
    }
  }
}

TEST(Render, UpstreamFormRendersToTheSamePods) {
  // toUpstream lowers the typed blocks; rendering that explicit DGD gives the same
  // Deployments and Services as rendering the typed graph.
  for (const auto& rec : recipes::Catalog::builtin().all()) {
    auto graph = recipe_graph(rec.name.c_str());
    auto up = to_upstream(graph);
    ASSERT_TRUE(up.ok()) << rec.name;
    ASSERT_EQ(up.objects[0]["kind"], "DynamoGraphDeployment");
    EXPECT_FALSE(up.objects[0]["spec"].contains("model"));
    EXPECT_FALSE(up.objects[0]["spec"]["components"][1].contains("engine"));
    auto reparsed = api::from_json(up.objects[0]);
    ASSERT_TRUE(reparsed.ok()) << rec.name << ": " << reparsed.errors.front().str();
    auto a = render(graph), b = render(reparsed.dgd);
    for (const auto& o : a.objects) {
      if (o["kind"] != "Deployment" && o["kind"] != "Service") continue;
      const json* other = find(b.objects, o["kind"], o["metadata"]["name"]);
      ASSERT_NE(other, nullptr) << rec.name;
      EXPECT_EQ(o, *other) << rec.name << " " << o["metadata"]["name"];
    }
  }
}

}  // namespace
}  // namespace dgd::render

namespace dgd::render {
namespace {

TEST(Render, ModelCachePvcSizeIsCanonical) {
  auto g = recipe_graph("deepseek-v4-flash/vllm/agg-h200-agentic");
  g.spec.model->cache->create = api::ModelCacheCreate{std::string("1024Gi"), std::nullopt, std::string("ReadWriteMany")};
  g.spec.model->cache->keep_on_delete = false;
  auto r = render(g);
  const json* pvc = find(r.objects, "PersistentVolumeClaim", "model-cache");
  ASSERT_NE(pvc, nullptr);
  EXPECT_EQ((*pvc)["spec"]["resources"]["requests"]["storage"], "1Ti");
  EXPECT_FALSE((*pvc)["spec"].contains("storageClassName")) << "cluster default when unset";
  EXPECT_EQ((*pvc)["metadata"]["ownerReferences"][0]["kind"], "DynamoGraphDeployment") << "keepOnDelete: false";
}

}  // namespace
}  // namespace dgd::render
