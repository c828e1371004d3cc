// validate(): modes, defaults, names, and rules the corpus files do not isolate.
#include <gtest/gtest.h>

#include <algorithm>

#include "dgd/api/defaults.h"
#include "dgd/api/parse.h"
#include "dgd/api/validate.h"

namespace dgd::api {
namespace {

Dgd parsed(const std::string& text) {
  auto r = parse(text);
  EXPECT_TRUE(r.ok()) << (r.errors.empty() ? "" : r.errors.front().str());
  return r.dgd;
}

bool has_path(const std::vector<FieldError>& errs, const std::string& path) {
  return std::any_of(errs.begin(), errs.end(), [&](const FieldError& e) { return e.path == path; });
}

std::string dump(const std::vector<FieldError>& errs) {
  std::string out;
  for (const auto& e : errs) out += "\n  " + e.str();
  return out;
}

constexpr const char* kOverlay = R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: dsv41-flash-vllm-h200-disagg-agentic}
spec:
  recipe: deepseek-v4.1-flash/vllm/disagg-h200-agentic
  components:
  - name: DecodeWorker
    replicas: 2
    engine: {maxNumSeqs: 512}
)";

TEST(Validate, OverlayOnARecipeMayBePartial) {
  Dgd d = parsed(kOverlay);
  EXPECT_TRUE(validate(d).empty()) << dump(validate(d));
  // The same document judged as a complete graph misses what the recipe would supply.
  auto errs = validate(d, {ValidationMode::kComplete});
  EXPECT_TRUE(has_path(errs, "spec.components[0].type")) << dump(errs);
  EXPECT_TRUE(has_path(errs, "spec.components[0].podTemplate")) << dump(errs);
  EXPECT_TRUE(has_path(errs, "spec.backendFramework")) << dump(errs);
  EXPECT_TRUE(has_path(errs, "spec.model.id")) << dump(errs);
}

TEST(Validate, OverlayStillChecksWhatItStates) {
  Dgd d = parsed(kOverlay);
  d.spec.components[0].replicas = -3;
  d.spec.components[0].engine->max_num_seqs = 0;
  auto errs = validate(d);
  EXPECT_TRUE(has_path(errs, "spec.components[0].replicas")) << dump(errs);
  EXPECT_TRUE(has_path(errs, "spec.components[0].engine.maxNumSeqs")) << dump(errs);
  EXPECT_EQ(errs.size(), 2u) << dump(errs);
}

TEST(Validate, ReportsEveryProblemNotJustTheFirst) {
  Dgd d = parsed(kOverlay);
  d.metadata.name = "Bad_Name";
  d.spec.components[0].replicas = 100000;
  d.spec.components[0].shared_memory_size = "lots";
  d.spec.components[0].engine->block_size = 3;
  d.spec.components[0].engine->speculative = Speculative{};
  d.spec.components[0].engine->speculative->num_speculative_tokens = 0;
  auto errs = validate(d);
  for (const char* p : {"metadata.name", "spec.components[0].replicas", "spec.components[0].sharedMemorySize",
                        "spec.components[0].engine.blockSize",
                        "spec.components[0].engine.speculative.numSpeculativeTokens"}) {
    EXPECT_TRUE(has_path(errs, p)) << p << dump(errs);
  }
  auto msg = std::find_if(errs.begin(), errs.end(), [](const FieldError& e) {
    return e.path == "spec.components[0].engine.speculative.numSpeculativeTokens";
  });
  ASSERT_NE(msg, errs.end());
  EXPECT_EQ(msg->str(), "spec.components[0].engine.speculative.numSpeculativeTokens: must be 1..8, got 0");
  EXPECT_EQ(msg->component, "DecodeWorker");
  auto meta = std::find_if(errs.begin(), errs.end(), [](const FieldError& e) { return e.path == "metadata.name"; });
  ASSERT_NE(meta, errs.end());
  EXPECT_EQ(meta->component, "");
}

TEST(Validate, ChildNameBudgetCountsTheSuffix) {
  EXPECT_EQ(child_name("dsv41", "Decode.Worker"), "dsv41-decode-worker");
  Dgd d = parsed(kOverlay);
  d.metadata.name = std::string(50, 'a');
  d.spec.components[0].type = ComponentType::kFrontend;
  d.spec.components[0].name = std::string(12, 'B');  // 50 + 1 + 12 = 63: fits
  EXPECT_FALSE(has_path(validate(d), "spec.components[0].name"));
  d.spec.components[0].name = std::string(13, 'B');  // 64: does not
  auto errs = validate(d);
  ASSERT_TRUE(has_path(errs, "spec.components[0].name")) << dump(errs);
  EXPECT_NE(errs.front().message.find("64 characters"), std::string::npos);
  // A worker's Deployment adds its generation, "-<8 hex>": 50 + 1 + 3 + 9 = 63 fits.
  d.spec.components[0].type = ComponentType::kDecode;
  d.spec.components[0].name = std::string(3, 'B');
  EXPECT_FALSE(has_path(validate(d), "spec.components[0].name"));
  d.spec.components[0].name = std::string(4, 'B');
  errs = validate(d);
  auto name = std::find_if(errs.begin(), errs.end(), [](const FieldError& e) { return e.path == "spec.components[0].name"; });
  ASSERT_NE(name, errs.end()) << dump(errs);
  EXPECT_NE(name->message.find("64 characters"), std::string::npos) << name->message;
  EXPECT_NE(name->message.find("worker Deployment name"), std::string::npos) << name->message;
}

TEST(Validate, HostileValuesNeverCrashAndMessagesStayShort) {
  Dgd d = parsed(kOverlay);
  d.metadata.name = std::string(1 << 20, 'x');
  d.spec.components[0].name = "\xe2\x98\x83snow\xff";  // unicode + an invalid byte
  d.spec.components[0].replicas = std::numeric_limits<int32_t>::min();
  auto errs = validate(d);
  EXPECT_GE(errs.size(), 3u);
  for (const auto& e : errs) {
    EXPECT_LT(e.message.size(), 1000u) << e.path;
    EXPECT_NO_THROW((void)nlohmann::json(e.str()).dump()) << "messages must be valid UTF-8";
  }
}

TEST(Validate, DefaultsFillOnlyWhatTheRendererNeedsAndAreIdempotent) {
  Dgd d = parsed(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: x}
spec:
  backendFramework: vllm
  model:
    id: deepseek-ai/DeepSeek-V4.1-Flash
    cache: {claimName: shared-model-cache, create: {size: 1000Gi}}
    download: {tokenSecretRef: {name: hf-token-secret}}
  placement: {rdma: {resource: rdma/ib, perWorker: 4}}
  components:
  - name: W
    type: worker
    engine:
      kvEvents: {enableKvCacheEvents: true}
      kvTransfer: {connector: NixlConnector}
      eplb: {communicator: torch_gloo}
)");
  apply_defaults(d);
  EXPECT_EQ(d.spec.components[0].replicas, 1);
  EXPECT_FALSE(d.spec.components[0].shared_memory_size.has_value());
  const Model& m = *d.spec.model;
  EXPECT_EQ(m.served_name, "deepseek-ai/DeepSeek-V4.1-Flash");
  EXPECT_EQ(m.cache->mount_path, "/shared-model-cache");
  EXPECT_EQ(m.cache->keep_on_delete, true);
  EXPECT_EQ(m.cache->create->access_mode, "ReadWriteMany");
  EXPECT_EQ(m.download->enabled, true);
  EXPECT_EQ(m.download->image, "python:3.10-slim");
  EXPECT_EQ(m.download->token_secret_ref->key, "HF_TOKEN");
  EXPECT_EQ(d.spec.placement->rdma->nic_selection, NicSelection::kNone);
  const Engine& e = *d.spec.components[0].engine;
  EXPECT_EQ(e.kv_events->port, 5557);
  EXPECT_EQ(e.kv_events->topic, "kv-events");
  EXPECT_EQ(e.kv_transfer->role, "kv_both");
  EXPECT_EQ(e.kv_transfer->buffer_device, "cuda");
  EXPECT_EQ(e.eplb->enabled, true);
  // Unset engine settings stay unset (the engine's own default applies).
  EXPECT_FALSE(e.max_num_seqs || e.block_size || e.kv_cache_dtype || e.speculative || e.attention);
  Dgd again = d;
  apply_defaults(again);
  EXPECT_EQ(again, d);
}

TEST(Validate, ExplicitModelValuesWinOverDefaults) {
  Dgd d = parsed(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: x}
spec:
  model: {id: a/b, servedName: other, cache: {claimName: c, mountPath: /models}}
)");
  apply_defaults(d);
  EXPECT_EQ(d.spec.model->served_name, "other");
  EXPECT_EQ(d.spec.model->cache->mount_path, "/models");
}

TEST(Validate, MtpOnDecodeOnlyIsAllowedButDsparkIsNot) {
  // V4-Flash disagg-h200 runs MTP on decode only: a real recipe, must stay valid.
  const char* base = R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: x}
spec:
  backendFramework: vllm
  model: {id: deepseek-ai/DeepSeek-V4-Flash}
  components:
  - name: P
    type: prefill
    engine: {kvTransfer: {connector: NixlConnector}}
    podTemplate: {spec: {containers: [{name: main, image: i}]}}
  - name: D
    type: decode
    engine: {kvTransfer: {connector: NixlConnector}, speculative: {method: METHOD, numSpeculativeTokens: 1}}
    podTemplate: {spec: {containers: [{name: main, image: i}]}}
)";
  std::string mtp = base;
  mtp.replace(mtp.find("METHOD"), 6, "mtp");
  EXPECT_TRUE(validate(parsed(mtp)).empty()) << dump(validate(parsed(mtp)));
  std::string dspark = base;
  dspark.replace(dspark.find("METHOD"), 6, "dspark");
  EXPECT_TRUE(has_path(validate(parsed(dspark)), "spec.components[0].engine.speculative"));
}

TEST(Validate, SglangOnB200ExplicitStyleIsNotARecipeQuestion) {
  // Without typed engine settings or a recipe, the user runs their own args: no recipe needed.
  Dgd d = parsed(R"(
apiVersion: nvidia.com/v1beta1
kind: DynamoGraphDeployment
metadata: {name: x}
spec:
  backendFramework: sglang
  placement: {gpu: B200}
  components:
  - name: W
    type: worker
    podTemplate: {spec: {containers: [{name: main, image: i, args: [-m, dynamo.sglang]}]}}
)");
  EXPECT_TRUE(validate(d).empty()) << dump(validate(d));
}

}  // namespace
}  // namespace dgd::api
