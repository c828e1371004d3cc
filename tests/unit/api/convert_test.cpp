// v1alpha1 → v1beta1 conversion (api/convert.h), expected documents written by hand from
// upstream's conversion code (shared_spec_conversion.go: buildPodTemplateToHub,
// resourcesToNative, mergeEnvs; dynamographdeployment_conversion.go).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "dgd/api/convert.h"
#include "dgd/api/parse.h"
#include "dgd/api/validate.h"
#include "dgd/api/yaml.h"

namespace dgd::api {
namespace {

using nlohmann::json;

const char* kDisagg = R"(
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {name: vllm-disagg, namespace: team}
spec:
  backendFramework: vllm
  envs: [{name: HF_HUB_OFFLINE, value: "1"}]
  pvcs:
  - {name: model-cache, create: false}
  - {name: compile-cache, create: true, size: 50Gi, storageClass: fast, volumeAccessMode: ReadWriteMany}
  services:
    VllmPrefillWorker:
      componentType: worker
      subComponentType: prefill
      replicas: 2
      envFromSecret: hf-token-secret
      envs: [{name: A, value: base}, {name: B, value: base}]
      resources:
        requests: {cpu: "8", memory: 40Gi, gpu: "1", custom: {rdma/ib: "1"}}
        limits: {gpu: "1", gpuType: nvidia.com/mig-1g.10gb}
      sharedMemory: {size: 16Gi}
      volumeMounts:
      - {name: model-cache, mountPoint: /models}
      - {name: compile-cache, mountPoint: /cache, useAsCompilationCache: true}
      extraPodMetadata: {labels: {team: a}}
      extraPodSpec:
        nodeSelector: {pool: gpu}
        containers: [{name: sidecar, image: busybox}]
        mainContainer:
          image: vllm:1
          args: [--model, m]
          env: [{name: B, value: main}, {name: C, value: main}]
          volumeMounts: [{name: scratch, mountPath: /scratch}]
    Frontend:
      componentType: frontend
      sharedMemory: {disabled: true}
      extraPodSpec: {mainContainer: {image: vllm:1}}
)";

TEST(ConvertV1alpha1, UpstreamsMappingFieldByField) {
  json doc = yaml_to_json(kDisagg);
  ASSERT_TRUE(is_v1alpha1_dgd(doc));
  auto r = convert_v1alpha1(doc);
  for (const auto& e : r.errors) ADD_FAILURE() << e.str();
  const json& out = r.dgd;
  EXPECT_EQ(out["apiVersion"], "nvidia.com/v1beta1");
  EXPECT_EQ(out["metadata"]["namespace"], "team");
  EXPECT_EQ(out["spec"]["env"], json::parse(R"([{"name":"HF_HUB_OFFLINE","value":"1"}])"));
  EXPECT_FALSE(out["spec"].contains("envs"));
  EXPECT_FALSE(out["spec"].contains("pvcs"));
  const json& comps = out["spec"]["components"];
  ASSERT_EQ(comps.size(), 2u);
  // The services map's keys in sorted order.
  EXPECT_EQ(comps[0]["name"], "Frontend");
  EXPECT_EQ(comps[0]["type"], "frontend");
  EXPECT_EQ(comps[0]["sharedMemorySize"], "0");
  const json& w = comps[1];
  EXPECT_EQ(w["name"], "VllmPrefillWorker");
  EXPECT_EQ(w["type"], "prefill");  // worker + subComponentType prefill
  EXPECT_EQ(w["replicas"], 2);
  EXPECT_EQ(w["sharedMemorySize"], "16Gi");
  EXPECT_EQ(w["compilationCache"], json::parse(R"({"pvcName":"compile-cache","mountPath":"/cache"})"));
  const json& pt = w["podTemplate"];
  EXPECT_EQ(pt["metadata"]["labels"]["team"], "a");
  EXPECT_EQ(pt["spec"]["nodeSelector"]["pool"], "gpu");
  ASSERT_EQ(pt["spec"]["containers"].size(), 2u);
  const json& main = pt["spec"]["containers"][0];
  EXPECT_EQ(main["name"], "main");
  EXPECT_EQ(pt["spec"]["containers"][1]["name"], "sidecar");
  EXPECT_EQ(main["image"], "vllm:1");
  EXPECT_EQ(main["args"], json::parse(R"(["--model","m"])"));
  // mergeEnvs: mainContainer's B replaces the service's in place, C is appended.
  EXPECT_EQ(main["env"], json::parse(R"([{"name":"A","value":"base"},{"name":"B","value":"main"},{"name":"C","value":"main"}])"));
  EXPECT_EQ(main["envFrom"], json::parse(R"([{"secretRef":{"name":"hf-token-secret"}}])"));
  EXPECT_EQ(main["resources"], json::parse(R"({"requests":{"cpu":"8","memory":"40Gi","nvidia.com/gpu":"1","rdma/ib":"1"},
                                               "limits":{"nvidia.com/mig-1g.10gb":"1"}})"));
  // mainContainer's mounts first, then the service's; the cache mount comes from compilationCache.
  EXPECT_EQ(main["volumeMounts"], json::parse(R"([{"name":"scratch","mountPath":"/scratch"},{"name":"model-cache","mountPath":"/models"}])"));
  EXPECT_EQ(pt["spec"]["volumes"], json::parse(R"([{"name":"model-cache","persistentVolumeClaim":{"claimName":"model-cache"}}])"));
  // Only the PVC with create: true is written.
  ASSERT_EQ(r.claims.size(), 1u);
  EXPECT_EQ(r.claims[0]["metadata"]["name"], "compile-cache");
  EXPECT_EQ(r.claims[0]["spec"]["storageClassName"], "fast");
  EXPECT_EQ(r.claims[0]["spec"]["accessModes"], json::array({"ReadWriteMany"}));
  EXPECT_EQ(r.claims[0]["spec"]["resources"]["requests"]["storage"], "50Gi");
}

TEST(ConvertV1alpha1, OutputIsAValidV1beta1Dgd) {
  auto r = convert_v1alpha1(yaml_to_json(kDisagg));
  ASSERT_TRUE(r.ok());
  // Drop the prefill-only graph's disaggregation rule from the picture: add a decode side.
  json dgd = r.dgd;
  json decode = dgd["spec"]["components"][1];
  decode["name"] = "VllmDecodeWorker";
  decode["type"] = "decode";
  dgd["spec"]["components"].push_back(decode);
  auto parsed = from_json(dgd);
  for (const auto& e : parsed.errors) ADD_FAILURE() << e.str();
  for (const auto& e : validate(parsed.dgd)) ADD_FAILURE() << e.str();
}

TEST(ConvertV1alpha1, FieldsWithoutAV1beta1FormAreNamed) {
  auto r = convert_v1alpha1(yaml_to_json(R"(
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {name: x}
spec:
  futureField: 1
  services:
    Frontend:
      componentType: frontend
      dynamoNamespace: old
      ingress: {enabled: true}
      frontendSidecar: {image: x}
    Worker:
      componentType: frontend
      subComponentType: decode
)"));
  EXPECT_FALSE(r.ok());
  std::vector<std::string> paths;
  for (const auto& e : r.errors) paths.push_back(e.path);
  EXPECT_EQ(paths, (std::vector<std::string>{"spec.futureField", "spec.services.Frontend.dynamoNamespace",
                                             "spec.services.Frontend.frontendSidecar",
                                             "spec.services.Frontend.ingress",
                                             "spec.services.Worker.subComponentType"}));
}

TEST(ConvertV1alpha1, ExperimentalBlocksMoveWithV1beta1Spelling) {
  auto r = convert_v1alpha1(yaml_to_json(R"(
apiVersion: nvidia.com/v1alpha1
kind: DynamoGraphDeployment
metadata: {name: x}
spec:
  services:
    W:
      componentType: worker
      gpuMemoryService: {enabled: true, mode: interPod}
      failover: {enabled: false, mode: intraPod}
      scalingAdapter: {enabled: true}
)"));
  ASSERT_TRUE(r.ok());
  const json& w = r.dgd["spec"]["components"][0];
  EXPECT_EQ(w["experimental"], json::parse(R"({"gpuMemoryService":{"mode":"InterPod"}})"));
  EXPECT_EQ(w["scalingAdapter"], json::object());
  EXPECT_FALSE(w.contains("podTemplate"));
}

TEST(ConvertV1alpha1, HostileShapesAreReportedNotCrashed) {
  for (const char* text : {"{apiVersion: nvidia.com/v1alpha1, kind: DynamoGraphDeployment, spec: 5}",
                           "{apiVersion: nvidia.com/v1alpha1, kind: DynamoGraphDeployment, spec: {services: [1]}}",
                           "{apiVersion: nvidia.com/v1alpha1, kind: DynamoGraphDeployment, spec: {services: {a: 1}, pvcs: 3}}",
                           "{apiVersion: nvidia.com/v1alpha1, kind: DynamoGraphDeployment, spec: {services: {a: "
                           "{resources: {requests: 1}, volumeMounts: [1, {name: 2}], extraPodSpec: {mainContainer: "
                           "{env: 3, volumeMounts: 4}, containers: 5}}}}}"}) {
    SCOPED_TRACE(text);
    ConversionResult r;
    EXPECT_NO_THROW(r = convert_v1alpha1(yaml_to_json(text)));
    EXPECT_NO_THROW((void)r.dgd.dump());
  }
}

}  // namespace
}  // namespace dgd::api
