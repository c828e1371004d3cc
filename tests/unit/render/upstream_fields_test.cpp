// Upstream component fields outside the typed blocks, rendered as upstream's operator does:
// compilationCache (applyCompilationCache / applyCompilationCacheVolume, VLLM_CACHE_ROOT) and
// globalDynamoNamespace (ComputeDynamoNamespace).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "dgd/api/parse.h"
#include "dgd/api/validate.h"
#include "dgd/render/render.h"

namespace dgd::render {
namespace {

using nlohmann::json;

api::Dgd explicit_graph(const std::string& worker_extra, const std::string& framework = "vllm") {
  auto p = api::parse(
      "apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata: {name: g, namespace: ns1}\n"
      "spec:\n  backendFramework: " + framework + "\n  components:\n"
      "  - {name: Frontend, type: frontend, podTemplate: {spec: {containers: [{name: main, image: 'rt:1'}]}}}\n"
      "  - name: Worker\n    type: worker\n" + worker_extra +
      "    podTemplate: {spec: {containers: [{name: main, image: 'rt:1', command: [python3, -m, dynamo." + framework +
      "]}]}}\n");
  EXPECT_TRUE(p.ok()) << (p.errors.empty() ? "" : p.errors.front().str());
  return p.dgd;
}

const json& deployment(const RenderResult& r, const std::string& name) {
  for (const auto& o : r.objects) {
    // A worker's Deployment name ends in its generation (worker_generation.h).
    const std::string hash = o["metadata"]["labels"].value("nvidia.com/dynamo-worker-hash", "");
    const std::string named = hash.empty() ? name : name + "-" + hash;
    if (o["kind"] == "Deployment" && o["metadata"]["name"] == named) return o;
  }
  throw std::runtime_error("no Deployment " + name);
}

const json& main_of(const json& d) {
  for (const auto& c : d["spec"]["template"]["spec"]["containers"]) {
    if (c["name"] == "main") return c;
  }
  throw std::runtime_error("no main");
}

std::string env_value(const json& container, const std::string& name) {
  for (const auto& e : container["env"]) {
    if (e["name"] == name) return e.value("value", std::string("<valueFrom>"));
  }
  return "<unset>";
}

TEST(UpstreamFields, CompilationCacheMountsThePvcAndPointsVllmAtIt) {
  auto g = explicit_graph("    compilationCache: {pvcName: compile-cache}\n");
  EXPECT_TRUE(api::validate(g).empty());
  auto r = render(g);
  ASSERT_TRUE(r.ok());
  const json& d = deployment(r, "g-worker");
  const json& main = main_of(d);
  EXPECT_EQ(env_value(main, "VLLM_CACHE_ROOT"), "/root/.cache/vllm");
  bool mounted = false;
  for (const auto& m : main["volumeMounts"]) {
    mounted = mounted || (m["name"] == "compile-cache" && m["mountPath"] == "/root/.cache/vllm" && !m.contains("readOnly"));
  }
  EXPECT_TRUE(mounted) << main["volumeMounts"].dump();
  bool volume = false;
  for (const auto& v : d["spec"]["template"]["spec"]["volumes"]) {
    volume = volume || (v["name"] == "compile-cache" && v["persistentVolumeClaim"]["claimName"] == "compile-cache");
  }
  EXPECT_TRUE(volume);
  EXPECT_EQ(env_value(main_of(deployment(r, "g-frontend")), "VLLM_CACHE_ROOT"), "<unset>");
}

TEST(UpstreamFields, CompilationCacheOfSglangNeedsItsMountPathAndSetsNoVllmEnv) {
  auto missing = api::validate(explicit_graph("    compilationCache: {pvcName: compile-cache}\n", "sglang"));
  ASSERT_EQ(missing.size(), 1u);
  EXPECT_EQ(missing[0].path, "spec.components[1].compilationCache.mountPath");
  auto g = explicit_graph("    compilationCache: {pvcName: compile-cache, mountPath: /cache}\n", "sglang");
  EXPECT_TRUE(api::validate(g).empty());
  auto r = render(g);
  const json& main = main_of(deployment(r, "g-worker"));
  EXPECT_EQ(env_value(main, "VLLM_CACHE_ROOT"), "<unset>");
  bool mounted = false;
  for (const auto& m : main["volumeMounts"]) mounted = mounted || (m["name"] == "compile-cache" && m["mountPath"] == "/cache");
  EXPECT_TRUE(mounted);
}

TEST(UpstreamFields, GlobalDynamoNamespaceMovesOnlyThatComponent) {
  auto r = render(explicit_graph("    globalDynamoNamespace: true\n"));
  ASSERT_TRUE(r.ok());
  const json& worker = deployment(r, "g-worker");
  EXPECT_EQ(env_value(main_of(worker), "DYN_NAMESPACE"), "dynamo");
  EXPECT_EQ(worker["spec"]["template"]["metadata"]["labels"]["nvidia.com/dynamo-namespace"], "dynamo");
  EXPECT_EQ(env_value(main_of(deployment(r, "g-frontend")), "DYN_NAMESPACE"), "ns1-g");
}

TEST(UpstreamFields, DecodeOnlyExplicitGraphIsAcceptedAsUpstreamAcceptsIt) {
  auto p = api::parse(
      "apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata: {name: g}\nspec:\n  components:\n"
      "  - {name: Frontend, type: frontend, podTemplate: {spec: {containers: [{name: main, image: 'rt:1'}]}}}\n"
      "  - {name: Worker, type: decode, podTemplate: {spec: {containers: [{name: main, image: 'rt:1'}]}}}\n");
  ASSERT_TRUE(p.ok());
  EXPECT_TRUE(api::validate(p.dgd).empty());
}

}  // namespace
}  // namespace dgd::render
