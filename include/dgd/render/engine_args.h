// Typed engine and router blocks → what the containers run: vLLM CLI flags, the SGLang
// config file plus the flags that must stay on its command line, the frontend's flags and
// DYN_ROUTER_* env. Pure and deterministic.
//
// Only set fields produce output: an unset field means "the engine's own default", which
// several recipes depend on (B200 disaggregated leaves kv-cache-dtype to the engine).
// JSON-valued flags are compact and keep the key order the upstream recipes use, e.g.
//   --speculative-config {"method":"dspark","num_speculative_tokens":3,...}
// Flag order is fixed (docs/api.md); vLLM and SGLang do not depend on it.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "dgd/api/dgd.h"

namespace dgd::render {

// Where the SGLang config file is mounted in the worker container.
inline constexpr const char* kSglangConfigDir = "/etc/sglang";

// `args` of a vLLM worker: "-m", "dynamo.vllm", then the flags. `type` decides
// --disaggregation-mode (prefill / decode).
std::vector<std::string> vllm_args(const api::Model& model, api::ComponentType type,
                                  const api::Engine& engine);

// The SGLang config file (keys as SGLang's --config YAML spells them).
nlohmann::json sglang_config(const api::Model& model, api::ComponentType type, const api::Engine& engine);

// `args` of an SGLang worker: "-m", "dynamo.sglang", "--config", <configPath>, then the
// flags that must stay on the command line (Dynamo parsers, KV events, CUDA-graph sizes).
std::vector<std::string> sglang_args(const std::string& config_path, api::ComponentType type,
                                    const api::Engine& engine);

// `args` of the frontend: "-m", "dynamo.frontend", router flags, "--http-port", <port>.
std::vector<std::string> frontend_args(const api::Router& router);

// DYN_ROUTER_* env of the frontend (name, value), in a fixed order.
std::vector<std::pair<std::string, std::string>> router_env(const api::Router& router);

// The engine's KV-events port when it publishes events, else 0.
int kv_events_port(const api::Engine& engine);

// Number text without float noise: 0.92 → "0.92", 8192 → "8192". `minDecimals` pads
// the fraction ("0.7" → "0.70" with 2), as the recipes write ratios.
std::string format_number(double v, int min_decimals = 0);

}  // namespace dgd::render
