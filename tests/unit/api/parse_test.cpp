// Parsing and serialization of the DGD model: shapes, error paths, round trips.
#include <gtest/gtest.h>

#include <algorithm>

#include "dgd/api/parse.h"
#include "dgd/api/yaml.h"

namespace dgd::api {
namespace {

// The DESIGN.md §2 example: a user DGD on top of a recipe.
constexpr const char* kUserDgd = R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: dsv41-flash-vllm-h200-disagg-agentic
spec:
  recipe: deepseek-v4.1-flash/vllm/disagg-h200-agentic
  model:
    cache: {claimName: shared-model-cache}
    download: {tokenSecretRef: {name: hf-token-secret, key: HF_TOKEN}}
  placement:
    rdma: {resource: rdma/ib, perWorker: 4, nicSelection: sriov}
  components:
  - name: DecodeWorker            # overrides the recipe's component of the same name
    replicas: 2
)";

// The DESIGN.md §2 recipe worker.
constexpr const char* kRecipeWorker = R"(
name: PrefillWorker
type: prefill
replicas: 1
engine:
  tensorParallelSize: 4
  expertParallel: true
  eplb: {enabled: true}
  moeBackend: flashinfer_cutlass
  kvCacheDtype: fp8_ds_mla
  speculative: {method: dspark, numSpeculativeTokens: 3, draftSampleMethod: probabilistic,
                rejectionSampleMethod: block, adaptiveVerification: false}
  maxNumSeqs: 1024
  maxNumBatchedTokens: 8192
  gpuMemoryUtilization: 0.92
  maxCudagraphCaptureSize: 512
  prefixCacheRetentionInterval: 1024
  kvTransfer: {connector: NixlConnector, role: kv_both, bufferDevice: cuda, backends: [UCX], numThreads: 4}
)";

std::vector<std::string> paths(const std::vector<FieldError>& errors) {
  std::vector<std::string> out;
  for (const auto& e : errors) out.push_back(e.path);
  return out;
}

TEST(Parse, DesignExampleUserDgd) {
  auto r = parse(kUserDgd);
  ASSERT_TRUE(r.ok()) << r.errors.front().str();
  const Dgd& d = r.dgd;
  EXPECT_EQ(d.metadata.name, "dsv41-flash-vllm-h200-disagg-agentic");
  EXPECT_EQ(d.spec.recipe, "deepseek-v4.1-flash/vllm/disagg-h200-agentic");
  ASSERT_TRUE(d.spec.model && d.spec.model->cache && d.spec.model->download);
  EXPECT_EQ(d.spec.model->cache->claim_name, "shared-model-cache");
  EXPECT_EQ(d.spec.model->download->token_secret_ref->name, "hf-token-secret");
  EXPECT_EQ(d.spec.model->download->token_secret_ref->key, "HF_TOKEN");
  ASSERT_TRUE(d.spec.placement && d.spec.placement->rdma);
  EXPECT_EQ(d.spec.placement->rdma->resource, "rdma/ib");
  EXPECT_EQ(d.spec.placement->rdma->per_worker, 4);
  EXPECT_EQ(d.spec.placement->rdma->nic_selection, NicSelection::kSriov);
  ASSERT_EQ(d.spec.components.size(), 1u);
  EXPECT_EQ(d.spec.components[0].name, "DecodeWorker");
  EXPECT_EQ(d.spec.components[0].replicas, 2);
  EXPECT_FALSE(d.spec.components[0].type.has_value());  // unset: the recipe supplies it
}

TEST(Parse, DesignExampleRecipeWorker) {
  std::vector<FieldError> errors;
  Component c = component_from_json(yaml_to_json(kRecipeWorker), "spec.components[1]", errors);
  ASSERT_TRUE(errors.empty()) << errors.front().str();
  EXPECT_EQ(c.type, ComponentType::kPrefill);
  ASSERT_TRUE(c.engine);
  const Engine& e = *c.engine;
  EXPECT_EQ(e.tensor_parallel_size, 4);
  EXPECT_EQ(e.expert_parallel, true);
  EXPECT_EQ(e.eplb->enabled, true);
  EXPECT_FALSE(e.eplb->communicator.has_value());
  EXPECT_EQ(e.moe_backend, "flashinfer_cutlass");
  EXPECT_EQ(e.speculative->method, "dspark");
  EXPECT_EQ(e.speculative->num_speculative_tokens, 3);
  EXPECT_EQ(e.speculative->adaptive_verification, false);
  EXPECT_DOUBLE_EQ(*e.gpu_memory_utilization, 0.92);
  EXPECT_EQ(e.kv_transfer->backends, std::vector<std::string>{"UCX"});
  EXPECT_EQ(e.kv_transfer->num_threads, 4);
  EXPECT_FALSE(e.max_model_len.has_value());  // unset stays unset: no flag is rendered
}

TEST(Parse, RoundTripIsIdentityAndDeterministic) {
  auto r = parse(kUserDgd);
  ASSERT_TRUE(r.ok());
  nlohmann::json j = to_json(r.dgd);
  auto again = from_json(j);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again.dgd, r.dgd);
  EXPECT_EQ(to_json(again.dgd).dump(), j.dump());
  // Only what was stated is written.
  EXPECT_FALSE(j["spec"].contains("backendFramework"));
  EXPECT_FALSE(j["spec"]["components"][0].contains("type"));
  EXPECT_EQ(j["spec"]["placement"]["rdma"]["nicSelection"], "sriov");
}

TEST(Parse, UpstreamFieldsOutsideTypedBlocksPassThrough) {
  auto r = parse(R"({
    "apiVersion": "nvidia.com/v1beta1", "kind": "DynamoGraphDeployment",
    "metadata": {"name": "x", "uid": "abc", "resourceVersion": "7"},
    "spec": {"restart": {"id": "r1"}, "priorityClassName": "high",
             "components": [{"name": "Frontend", "type": "frontend", "minAvailable": 1,
                             "podTemplate": {"spec": {"containers": [{"name": "main", "image": "i",
                                             "args": ["-m", "dynamo.frontend"], "futureField": 1}]}}}]},
    "status": {"state": "successful"}})");
  ASSERT_TRUE(r.ok()) << r.errors.front().str();
  EXPECT_EQ(r.dgd.metadata.extra["uid"], "abc");
  EXPECT_EQ(r.dgd.spec.extra["restart"]["id"], "r1");
  EXPECT_EQ(r.dgd.spec.components[0].extra["minAvailable"], 1);
  auto j = to_json(r.dgd);
  EXPECT_EQ(j["spec"]["priorityClassName"], "high");
  EXPECT_EQ(j["spec"]["components"][0]["podTemplate"]["spec"]["containers"][0]["futureField"], 1);
  EXPECT_EQ(j["metadata"]["resourceVersion"], "7");
  EXPECT_EQ(j["status"]["state"], "successful");
}

TEST(Parse, UnknownFieldInTypedBlockIsAnErrorWithItsPath) {
  auto r = parse(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: x}
spec:
  placement: {gpu: H200, rdma: {resources: rdma/ib}}
  components:
  - name: W
    type: worker
    engine: {tensorParalelSize: 4, speculative: {numTokens: 3}}
)");
  EXPECT_FALSE(r.ok());
  auto p = paths(r.errors);
  EXPECT_NE(std::find(p.begin(), p.end(), "spec.placement.rdma.resources"), p.end());
  EXPECT_NE(std::find(p.begin(), p.end(), "spec.components[0].engine.tensorParalelSize"), p.end());
  EXPECT_NE(std::find(p.begin(), p.end(), "spec.components[0].engine.speculative.numTokens"), p.end());
  // The good fields of a block with errors are still parsed.
  EXPECT_EQ(r.dgd.spec.placement->gpu, GpuProduct::kH200);
}

TEST(Parse, WrongTypesReportEveryPath) {
  auto r = parse(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: x}
spec:
  backendFramework: pytorch
  env: [{name: A, value: 1}]
  components:
  - name: W
    type: worker
    replicas: "2"
    engine: {tensorParallelSize: 4.5, gpuMemoryUtilization: high, expertParallel: "yes", extraArgs: --foo}
  - name: F
    type: gateway
    replicas: 99999999999
)");
  EXPECT_FALSE(r.ok());
  auto p = paths(r.errors);
  for (const char* want : {"spec.backendFramework", "spec.env[0].value", "spec.components[0].replicas",
                           "spec.components[0].engine.tensorParallelSize",
                           "spec.components[0].engine.gpuMemoryUtilization",
                           "spec.components[0].engine.expertParallel", "spec.components[0].engine.extraArgs",
                           "spec.components[1].type", "spec.components[1].replicas"}) {
    EXPECT_NE(std::find(p.begin(), p.end(), want), p.end()) << want;
  }
  EXPECT_EQ(r.dgd.spec.components.size(), 2u);
}

TEST(Parse, BadYamlIsOneErrorNotACrash) {
  auto r = parse("spec: [unclosed\n  - x: {");
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_NE(r.errors[0].message.find("line"), std::string::npos);
  EXPECT_FALSE(parse("").ok());
  EXPECT_FALSE(parse("- a\n- b\n").ok());
  EXPECT_FALSE(parse("a: 1\n---\nb: 2\n").ok());
}

TEST(Parse, NullMeansAbsent) {
  auto r = parse("apiVersion: nvidia.com/v1beta1\nkind: DynamoGraphDeployment\nmetadata: {name: x}\n"
                 "spec: {recipe: null, model: null, components: [{name: A, replicas: ~}]}\n");
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r.dgd.spec.recipe.has_value());
  EXPECT_FALSE(r.dgd.spec.components[0].replicas.has_value());
}

TEST(ModelFieldPaths, CoverTypedBlocks) {
  auto all = model_field_paths();
  auto has = [&](const std::string& p) { return std::find(all.begin(), all.end(), p) != all.end(); };
  EXPECT_TRUE(has("spec.components[].engine.kvTransfer.backends[]"));
  EXPECT_TRUE(has("spec.components[].podTemplate{}"));
  EXPECT_TRUE(has("spec.placement.rdma.pcieMap[].gpu"));
  EXPECT_TRUE(has("spec.components[].router.conditionalDisaggregation.effIslRatioThreshold"));
  EXPECT_TRUE(has("metadata.name"));
}

// from_json(json&&) moves podTemplates and passthrough fields out of the document instead
// of copying them; what it reads must be exactly what the copying form reads.
TEST(Parse, ConsumedDocumentReadsAsTheCopiedOne) {
  const nlohmann::json doc = yaml_to_json(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata:
  name: d
  labels: {team: a}
  finalizers: [x]
spec:
  backendFramework: vllm
  futureField: {kept: true}
  components:
  - name: Frontend
    type: frontend
    upstreamOnly: [1, 2]
    podTemplate:
      metadata: {annotations: {a: b}}
      spec:
        containers:
        - name: main
          image: img
          env: [{name: A, valueFrom: {fieldRef: {fieldPath: metadata.name}}}]
    env:
    - name: B
      valueFrom: {secretKeyRef: {name: s, key: k}}
  - name: bad
    replicas: "two"
status: {observedGeneration: 3}
)");
  const ParseResult copied = from_json(doc);
  nlohmann::json consumable = doc;
  const ParseResult consumed = from_json(std::move(consumable));
  EXPECT_EQ(to_json(consumed.dgd), to_json(copied.dgd));
  ASSERT_EQ(consumed.errors.size(), copied.errors.size());
  for (size_t i = 0; i < copied.errors.size(); ++i) EXPECT_EQ(consumed.errors[i].str(), copied.errors[i].str());
  // The copying form leaves its argument alone.
  EXPECT_EQ(doc["spec"]["components"][0]["podTemplate"]["spec"]["containers"][0]["image"], "img");
  EXPECT_EQ(copied.dgd.spec.components[0].pod_template["spec"]["containers"][0]["image"], "img");
}

}  // namespace
}  // namespace dgd::api
