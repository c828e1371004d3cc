// Engine and router blocks → flags / env, checked against the argument blocks of
// shared/reference/recipes.md §2.4, §2.6, §3 and §5.4 (expected strings written by hand
// from the reference, not produced by the code under test).
#include <gtest/gtest.h>

#include <algorithm>

#include <nlohmann/json.hpp>

#include "dgd/api/parse.h"
#include "dgd/recipes/catalog.h"
#include "dgd/render/engine_args.h"

namespace dgd::render {
namespace {

using Args = std::vector<std::string>;

const api::Dgd& recipe(const char* name) {
  const auto* r = recipes::Catalog::builtin().find(name);
  if (r == nullptr) throw std::runtime_error(name);
  return r->dgd();
}
const api::Component& comp(const api::Dgd& d, const char* name) { return *d.find_component(name); }

// Splits a space-separated reference line into arguments; '...' quotes one argument.
Args words(const std::string& s) {
  Args out;
  std::string cur;
  bool quoted = false;
  for (char c : s) {
    if (c == '\'') {
      quoted = !quoted;
    } else if (c == ' ' && !quoted) {
      if (!cur.empty()) out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  return out;
}

// Flag → value ("" for a switch), for order-independent comparison.
std::map<std::string, std::string> flag_map(const Args& args) {
  std::map<std::string, std::string> m;
  for (size_t i = 0; i < args.size(); ++i) {
    if (args[i].rfind("--", 0) != 0) continue;
    const bool has_value = i + 1 < args.size() && args[i + 1].rfind("--", 0) != 0;
    EXPECT_EQ(m.count(args[i]), 0u) << "flag twice: " << args[i];
    m[args[i]] = has_value ? args[i + 1] : "";
  }
  return m;
}

const std::string A =
    "--model deepseek-ai/DeepSeek-V4.1-Flash --served-model-name deepseek-ai/DeepSeek-V4.1-Flash "
    "--tokenizer-mode deepseek_v41 --tensor-parallel-size 4 ";
const std::string P =
    "--reasoning-parser deepseek_v41 --dyn-reasoning-parser deepseek_v41 --dyn-tool-call-parser deepseek_v41 "
    "--dyn-enable-structural-tag "
    "--kv-events-config '{\"publisher\":\"zmq\",\"topic\":\"kv-events\",\"endpoint\":\"tcp://*:5557\",\"enable_kv_cache_events\":true}' ";
const std::string SPEC =
    "--speculative-config '{\"method\":\"dspark\",\"num_speculative_tokens\":3,\"draft_sample_method\":\"probabilistic\","
    "\"rejection_sample_method\":\"block\",\"enable_adaptive_verification\":false}' ";
const std::string ATTN =
    "--attention-config '{\"indexer_kv_dtype\":\"mxfp4\",\"indexer_sparse_logits\":true,\"backend\":\"FLASHMLA_MEGA_ATTN_DSV41\"}' ";
const std::string EPB =
    "--enable-expert-parallel --moe-backend deep_gemm_mega_moe --enable-ep-weight-filter --enable-eplb "
    "--eplb-config '{\"communicator\":\"torch_gloo\"}' --numa-bind --language-model-only ";
const std::string NIXL_UCX4 =
    "--kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\",\"kv_buffer_device\":\"cuda\","
    "\"kv_connector_extra_config\":{\"backends\":[\"UCX\"],\"num_threads\":4}}' ";
const std::string NIXL_PLAIN =
    "--kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\",\"kv_buffer_device\":\"cuda\"}' ";

void expect_flags(const char* recipe_name, const char* component, const std::string& reference) {
  const auto& d = recipe(recipe_name);
  const auto& c = comp(d, component);
  ASSERT_TRUE(c.engine.has_value());
  Args got = vllm_args(*d.spec.model, *c.type, *c.engine);
  Args want = words(reference);
  ASSERT_GE(got.size(), 2u);
  EXPECT_EQ(got[0], "-m");
  EXPECT_EQ(got[1], "dynamo.vllm");
  EXPECT_EQ(flag_map(got), flag_map(want)) << recipe_name << " " << component;
  EXPECT_EQ(got.size(), want.size()) << recipe_name << " " << component;
}

TEST(VllmArgs, V41BlackwellAggregated) {
  const std::string row = "-m dynamo.vllm " + A + EPB + P +
                          "--max-cudagraph-capture-size 512 --prefix-cache-retention-interval 1024 --kv-cache-dtype fp8_ds_mla "
                          "--max-num-seqs 1024 --max-num-batched-tokens 16384 --gpu-memory-utilization 0.92 --block-size 128 "
                          "--max-model-len 1048576 " + ATTN + SPEC;
  expect_flags("deepseek-v4.1-flash/vllm/agg-b200-agentic", "Worker", row);
  expect_flags("deepseek-v4.1-flash/vllm/agg-gb200-agentic", "Worker", row);
}

TEST(VllmArgs, V41B200Disaggregated) {
  expect_flags("deepseek-v4.1-flash/vllm/disagg-b200-agentic", "PrefillWorker",
              "-m dynamo.vllm --disaggregation-mode prefill " + NIXL_UCX4 + A + EPB + P +
                  "--max-num-batched-tokens 32768 --long-prefill-token-threshold 4096 --max-cudagraph-capture-size 512 "
                  "--prefix-cache-retention-interval 1024 " + ATTN + SPEC);
  expect_flags("deepseek-v4.1-flash/vllm/disagg-b200-agentic", "DecodeWorker",
              "-m dynamo.vllm --disaggregation-mode decode " + NIXL_UCX4 + A + EPB + P +
                  "--max-cudagraph-capture-size 1024 --prefix-cache-retention-interval 1024 " + ATTN + SPEC);
}

TEST(VllmArgs, V41GB200Disaggregated) {
  expect_flags("deepseek-v4.1-flash/vllm/disagg-gb200-agentic", "PrefillWorker",
              "-m dynamo.vllm --disaggregation-mode prefill " + NIXL_PLAIN + A + EPB + P +
                  "--max-num-batched-tokens 16384 --long-prefill-token-threshold 4096 --max-cudagraph-capture-size 512 "
                  "--prefix-cache-retention-interval 1024 --kv-cache-dtype fp8_ds_mla --max-num-seqs 1024 "
                  "--gpu-memory-utilization 0.92 --block-size 128 --max-model-len 1048576 " + ATTN + SPEC);
  expect_flags("deepseek-v4.1-flash/vllm/disagg-gb200-agentic", "DecodeWorker",
              "-m dynamo.vllm --disaggregation-mode decode " + NIXL_PLAIN + A + EPB + P +
                  "--max-cudagraph-capture-size 1024 --prefix-cache-retention-interval 1024 --kv-cache-dtype fp8_ds_mla "
                  "--max-num-seqs 1024 --max-num-batched-tokens 16384 --gpu-memory-utilization 0.92 --block-size 128 "
                  "--max-model-len 1048576 " + ATTN + SPEC);
}

TEST(VllmArgs, V41H200) {
  const std::string h200 = A +
                           "--kv-cache-dtype fp8_ds_mla --enable-expert-parallel --moe-backend flashinfer_cutlass "
                           "--enable-ep-weight-filter --numa-bind --language-model-only " + P +
                           "--max-cudagraph-capture-size 512 --prefix-cache-retention-interval 1024 " + SPEC +
                           "--enable-eplb --gpu-memory-utilization 0.92 --max-num-batched-tokens 8192 --max-num-seqs 1024";
  expect_flags("deepseek-v4.1-flash/vllm/agg-h200-agentic", "Worker", "-m dynamo.vllm " + h200);
  expect_flags("deepseek-v4.1-flash/vllm/disagg-h200-agentic", "PrefillWorker",
              "-m dynamo.vllm --disaggregation-mode prefill " + NIXL_UCX4 + h200);
  expect_flags("deepseek-v4.1-flash/vllm/disagg-h200-agentic", "DecodeWorker",
              "-m dynamo.vllm --disaggregation-mode decode " + NIXL_UCX4 + h200);
}

TEST(VllmArgs, V4Flash) {
  const std::string common =
      "--trust-remote-code --kv-cache-dtype fp8 --block-size 256 --tokenizer-mode deepseek_v4 "
      "--dyn-tool-call-parser deepseek_v4 --dyn-reasoning-parser deepseek_v4 ";
  const std::string COMP = "--compilation-config '{\"cudagraph_mode\":\"FULL_AND_PIECEWISE\",\"custom_ops\":[\"all\"]}' ";
  const std::string FP4 = "--attention-config '{\"use_fp4_indexer_cache\":true}' ";
  const std::string KVEV =
      "--kv-events-config '{\"publisher\":\"zmq\",\"topic\":\"kv-events\",\"endpoint\":\"tcp://*:5571\",\"enable_kv_cache_events\":true}' ";
  const std::string NIXL8 =
      "--kv-transfer-config '{\"kv_connector\":\"NixlConnector\",\"kv_role\":\"kv_both\",\"kv_buffer_device\":\"cuda\","
      "\"kv_connector_extra_config\":{\"num_threads\":8}}' ";
  auto model = [](const char* m) { return std::string("--model ") + m + " --served-model-name " + m + " "; };
  const char* nvfp4 = "nvidia/DeepSeek-V4-Flash-NVFP4";
  const char* pub = "deepseek-ai/DeepSeek-V4-Flash";
  expect_flags("deepseek-v4-flash/vllm/agg-b200-agentic", "VllmDecodeWorker",
              "-m dynamo.vllm " + model(nvfp4) + common +
                  "--tensor-parallel-size 4 --max-num-seqs 64 --max-num-batched-tokens 16384 --no-scheduler-reserve-full-isl "
                  "--gpu-memory-utilization 0.92 --max-model-len 1048576 " + COMP + FP4 + "--moe-backend flashinfer_trtllm");
  expect_flags("deepseek-v4-flash/vllm/agg-h200-agentic", "VllmDecodeWorker",
              "-m dynamo.vllm " + model(pub) + common +
                  "--data-parallel-size 4 --tensor-parallel-size 1 --enable-expert-parallel --max-num-seqs 64 "
                  "--moe-backend marlin --speculative-config '{\"method\":\"mtp\",\"num_speculative_tokens\":1}' "
                  "--attention-backend FLASHINFER_MLA " + COMP);
  expect_flags("deepseek-v4-flash/vllm/disagg-b200-agentic", "VllmPrefillWorker",
              "-m dynamo.vllm " + model(nvfp4) + common +
                  "--gpu-memory-utilization 0.92 --max-model-len 1048576 --max-num-seqs 64 --max-num-batched-tokens 16384 "
                  "--tensor-parallel-size 4 --no-scheduler-reserve-full-isl --no-async-scheduling --enable-prefix-caching " +
                  FP4 + "--moe-backend flashinfer_trtllm " + NIXL_PLAIN + "--disaggregation-mode prefill " + KVEV);
  expect_flags("deepseek-v4-flash/vllm/disagg-b200-agentic", "VllmDecodeWorker",
              "-m dynamo.vllm " + model(nvfp4) + common +
                  "--gpu-memory-utilization 0.92 --max-model-len 1048576 --max-num-seqs 128 --max-num-batched-tokens 16384 "
                  "--tensor-parallel-size 4 --no-scheduler-reserve-full-isl " + FP4 + "--moe-backend flashinfer_trtllm " + COMP +
                  NIXL8 + "--disaggregation-mode decode");
  expect_flags("deepseek-v4-flash/vllm/disagg-h200-agentic", "VllmPrefillWorker",
              "-m dynamo.vllm " + model(pub) + common +
                  "--gpu-memory-utilization 0.92 --max-model-len 1048576 --max-num-seqs 128 --max-num-batched-tokens 16384 "
                  "--data-parallel-size 4 --enable-expert-parallel --tensor-parallel-size 1 --enable-prefix-caching "
                  "--moe-backend marlin " + NIXL_PLAIN + "--disaggregation-mode prefill " + KVEV);
  expect_flags("deepseek-v4-flash/vllm/disagg-h200-agentic", "VllmDecodeWorker",
              "-m dynamo.vllm " + model(pub) + common +
                  "--max-model-len 1048576 --max-num-seqs 128 --data-parallel-size 4 --enable-expert-parallel "
                  "--tensor-parallel-size 1 --moe-backend marlin --speculative-config '{\"method\":\"mtp\",\"num_speculative_tokens\":1}' " +
                  COMP + "--attention-backend FLASHINFER_MLA " + NIXL8 + "--disaggregation-mode decode");
}

TEST(VllmArgs, JsonFlagsKeepTheRecipesKeyOrderAndAppearOnce) {
  const auto& d = recipe("deepseek-v4.1-flash/vllm/disagg-b200-agentic");
  Args got = vllm_args(*d.spec.model, api::ComponentType::kPrefill, *comp(d, "PrefillWorker").engine);
  auto at = std::find(got.begin(), got.end(), "--speculative-config");
  ASSERT_NE(at, got.end());
  EXPECT_EQ(*(at + 1),
            R"({"method":"dspark","num_speculative_tokens":3,"draft_sample_method":"probabilistic","rejection_sample_method":"block","enable_adaptive_verification":false})");
  // The disaggregation flags come right after the module, as upstream writes them.
  EXPECT_EQ(got[2], "--disaggregation-mode");
  EXPECT_EQ(got[4], "--kv-transfer-config");
}

TEST(VllmArgs, UnsetMeansEngineDefaultAndSwitchedOffBlocksVanish) {
  api::Engine e;
  e.tensor_parallel_size = 2;
  e.speculative = api::Speculative{};
  e.speculative->enabled = false;
  e.speculative->method = "dspark";
  e.kv_events = api::KvEvents{};
  e.kv_events->enabled = false;
  e.eplb = api::Eplb{};
  e.eplb->enabled = false;
  e.extra_args = {"--foo", "bar"};
  Args got = vllm_args(api::Model{}, api::ComponentType::kWorker, e);
  EXPECT_EQ(got, (Args{"-m", "dynamo.vllm", "--tensor-parallel-size", "2", "--foo", "bar"}));
}

TEST(Sglang, Gb200AggregatedConfigFileAndCommandLine) {
  const auto& d = recipe("deepseek-v4.1-flash/sglang/agg-gb200");
  const auto& w = comp(d, "Worker");
  nlohmann::json cfg = sglang_config(*d.spec.model, *w.type, *w.engine);
  // recipes.md §3, GB200 agg ConfigMap worker.yaml.
  nlohmann::json want = {{"model-path", "deepseek-ai/DeepSeek-V4.1-Flash"},
                         {"served-model-name", "deepseek-ai/DeepSeek-V4.1-Flash"},
                         {"trust-remote-code", true}, {"tp-size", 4}, {"ep-size", 4}, {"page-size", 256},
                         {"mem-fraction-static", 0.8}, {"max-running-requests", 256},
                         {"speculative-algorithm", "DSPARK"}, {"speculative-dspark-block-size", 5},
                         {"reasoning-parser", "auto"}, {"enable-metrics", true}, {"watchdog-timeout", 3600},
                         {"host", "0.0.0.0"}, {"port", 30000}};
  EXPECT_EQ(cfg, want) << cfg.dump(1);
  Args args = sglang_args("/etc/sglang/worker.yaml", *w.type, *w.engine);
  EXPECT_EQ(args, words("-m dynamo.sglang --config /etc/sglang/worker.yaml "
                        "--kv-events-config '{\"publisher\":\"zmq\",\"topic\":\"kv-events\",\"endpoint\":\"tcp://*:5557\"}' "
                        "--dyn-reasoning-parser deepseek_v41 --dyn-tool-call-parser deepseek_v41 --dyn-enable-structural-tag "
                        "--cuda-graph-max-bs-decode 64"));
}

TEST(Sglang, Gb200DisaggregatedRoles) {
  const auto& d = recipe("deepseek-v4.1-flash/sglang/disagg-gb200");
  const auto& p = comp(d, "PrefillWorker");
  const auto& dec = comp(d, "DecodeWorker");
  nlohmann::json pc = sglang_config(*d.spec.model, *p.type, *p.engine);
  nlohmann::json dc = sglang_config(*d.spec.model, *dec.type, *dec.engine);
  EXPECT_EQ(pc["disaggregation-mode"], "prefill");
  EXPECT_EQ(dc["disaggregation-mode"], "decode");
  for (const auto* c : {&pc, &dc}) {
    EXPECT_EQ((*c)["disaggregation-transfer-backend"], "mooncake");
    EXPECT_EQ((*c)["disaggregation-bootstrap-port"], 30001);
    EXPECT_FALSE(c->contains("speculative-algorithm")) << "disagg SGLang runs without spec decode";
  }
  EXPECT_EQ(pc["max-prefill-tokens"], 16384);
  EXPECT_EQ(pc["load-balance-method"], "round_robin");
  EXPECT_FALSE(dc.contains("max-prefill-tokens"));
  const std::string tail = "--dyn-reasoning-parser deepseek_v41 --dyn-tool-call-parser deepseek_v41 --dyn-enable-structural-tag";
  EXPECT_EQ(sglang_args("/etc/sglang/prefill.yaml", *p.type, *p.engine),
            words("-m dynamo.sglang --config /etc/sglang/prefill.yaml " + tail));
  EXPECT_EQ(sglang_args("/etc/sglang/decode.yaml", *dec.type, *dec.engine),
            words("-m dynamo.sglang --config /etc/sglang/decode.yaml " + tail + " --prefill-round-robin-balance"));
}

TEST(Router, ConditionalDisaggregationEnvAsTheRecipesWriteIt) {
  const auto& d = recipe("deepseek-v4.1-flash/vllm/disagg-h200-agentic");
  auto env = router_env(*comp(d, "Frontend").router);
  std::vector<std::pair<std::string, std::string>> want = {
      {"DYN_ROUTER_MODE", "kv"},
      {"DYN_ROUTER_DECODE_ACTIVE_REQUEST_WEIGHT", "50"},
      {"DYN_ROUTER_CONDITIONAL_DISAGG", "true"},
      {"DYN_ROUTER_CONDITIONAL_DISAGG_CONFIG",
       R"({"policy":"isl_bounding","eff_isl_threshold":2048,"eff_isl_ratio_threshold":0.70,"decode_busy_threshold":0.50})"}};
  EXPECT_EQ(env, want);
  EXPECT_EQ(frontend_args(*comp(d, "Frontend").router), words("-m dynamo.frontend --http-port 8000"));

  const auto& gb = recipe("deepseek-v4.1-flash/vllm/disagg-gb200-agentic");
  std::vector<std::pair<std::string, std::string>> gb_want = {{"DYN_ROUTER_MODE", "kv"},
                                                             {"DYN_ROUTER_CONDITIONAL_DISAGG", "true"}};
  EXPECT_EQ(router_env(*comp(gb, "Frontend").router), gb_want) << "GB200: default policy, no config";
}

TEST(Router, V4DisaggregatedFrontendFlags) {
  const auto& d = recipe("deepseek-v4-flash/vllm/disagg-b200-agentic");
  EXPECT_EQ(frontend_args(*comp(d, "Frontend").router),
            words("-m dynamo.frontend --router-kv-events --kv-cache-block-size 256 --router-reset-states "
                  "--http-host 0.0.0.0 --http-port 8000"));
  const auto& agg = recipe("deepseek-v4-flash/vllm/agg-h200-agentic");
  EXPECT_EQ(frontend_args(*comp(agg, "Frontend").router),
            words("-m dynamo.frontend --trust-remote-code --http-port 8000"));
}

TEST(FormatNumber, ShortestTextAndPaddedRatios) {
  EXPECT_EQ(format_number(0.92), "0.92");
  EXPECT_EQ(format_number(0.8), "0.8");
  EXPECT_EQ(format_number(8192), "8192");
  EXPECT_EQ(format_number(0.7, 2), "0.70");
  EXPECT_EQ(format_number(0.5, 2), "0.50");
  EXPECT_EQ(format_number(0.125, 2), "0.125");
  EXPECT_EQ(format_number(1, 2), "1.00");
}

}  // namespace
}  // namespace dgd::render
