// The DynamoGraphDeployment (DGD) typed model: upstream Dynamo's v1beta1 shape plus the
// project's typed blocks (spec.recipe, spec.model, spec.placement, components[].engine,
// components[].router).
//
// Contract:
//  - Every field of a typed block is std::optional (or an empty list/map): "unset" means
//    "not stated here", so a recipe can be overlaid by a user DGD field by field and the
//    renderer emits a flag only for what is set. Defaults live in defaults.h, nowhere else.
//  - Fields outside the typed blocks that the model does not name (upstream's
//    `restart`, `topologyConstraint`, `multinode`, ...) are kept verbatim in `extra` and
//    serialized back, so a DGD written for the upstream operator round-trips unchanged.
//  - `podTemplate` is a raw corev1.PodTemplateSpec (its container `main` receives the
//    operator's defaults).
//  - JSON field names are the camelCase spellings of the member names below
//    (src/api/model_fields.h pairs each member with its JSON name). See docs/api.md for
//    what each field becomes (vLLM flag / SGLang config key / env var).
// Parse with parse.h, check with validate.h, serialize with parse.h's to_json().
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace dgd::api {

inline constexpr const char* kGroup = "nvidia.com";
inline constexpr const char* kVersion = "v1beta1";
inline constexpr const char* kApiVersion = "nvidia.com/v1beta1";
inline constexpr const char* kKind = "DynamoGraphDeployment";

// ---------------------------------------------------------------------------------------
// Closed enumerations. to_string() gives the JSON spelling; parse_x() the reverse (nullopt
// when unknown).

enum class BackendFramework { kVllm, kSglang, kTrtllm };            // "vllm" "sglang" "trtllm"
enum class ComponentType { kFrontend, kWorker, kPrefill, kDecode,   // "frontend" "worker" "prefill" "decode"
                           kPlanner, kEpp };                        // "planner" "epp" (epp parsed, rejected by validate)
enum class GpuProduct { kB200, kGB200, kH200 };                     // "B200" "GB200" "H200"
enum class NicSelection { kSriov, kPcieMap, kNone };                // "sriov" "pcieMap" "none"
enum class RouterMode { kKv, kRoundRobin, kRandom };                // "kv" "round-robin" "random"

const char* to_string(BackendFramework v);
const char* to_string(ComponentType v);
const char* to_string(GpuProduct v);
const char* to_string(NicSelection v);
const char* to_string(RouterMode v);
std::optional<BackendFramework> parse_backend_framework(std::string_view s);
std::optional<ComponentType> parse_component_type(std::string_view s);
std::optional<GpuProduct> parse_gpu_product(std::string_view s);
std::optional<NicSelection> parse_nic_selection(std::string_view s);
std::optional<RouterMode> parse_router_mode(std::string_view s);

// True for prefill / decode / worker (the types that run an engine).
bool is_worker_type(ComponentType t);

// ---------------------------------------------------------------------------------------
// Shared small types.

// corev1.EnvVar: exactly one of value / valueFrom (valueFrom kept raw).
struct EnvVar {
  std::string name;                   // variable name
  std::optional<std::string> value;   // literal value
  nlohmann::json value_from;           // raw EnvVarSource (null when absent)
  bool operator==(const EnvVar&) const = default;
};

// Reference to one key of a Secret in the DGD's namespace (never the secret's value).
struct SecretKeyRef {
  std::optional<std::string> name;    // Secret name
  std::optional<std::string> key;     // key inside the Secret (default HF_TOKEN)
  bool operator==(const SecretKeyRef&) const = default;
};

// The subset of ObjectMeta the operator reads; everything else (uid, resourceVersion,
// ownerReferences, managedFields, ...) is kept in `extra`.
struct ObjectMeta {
  std::string name;                                // DGD name (DNS-1035 label, ≤ 63 with children suffixes)
  std::string namespace_;                          // JSON "namespace"
  std::map<std::string, std::string> labels;       // metadata.labels
  std::map<std::string, std::string> annotations;  // metadata.annotations
  std::optional<int64_t> generation;               // metadata.generation (server-set)
  nlohmann::json extra = nlohmann::json::object(); // other metadata fields, verbatim
  bool operator==(const ObjectMeta&) const = default;
};

// ---------------------------------------------------------------------------------------
// spec.model

struct ModelCacheCreate {                        // operator creates the PVC when present
  std::optional<std::string> size;               // PVC size quantity, e.g. "1000Gi"
  std::optional<std::string> storage_class_name;   // storage class (cluster default when unset)
  std::optional<std::string> access_mode;         // ReadWriteMany (default) | ReadWriteOnce | ReadOnlyMany | ReadWriteOncePod
  bool operator==(const ModelCacheCreate&) const = default;
};

struct ModelCache {
  std::optional<std::string> claim_name;          // PVC name, e.g. "shared-model-cache"
  std::optional<std::string> mount_path;          // mount path in pods (default "/<claimName>"); HF_HOME points here
  std::optional<bool> read_only;                  // mount read-only in serving pods (default false)
  std::optional<ModelCacheCreate> create;        // create the PVC (owned by the DGD unless keepOnDelete)
  std::optional<bool> keep_on_delete;              // keep a created PVC when the DGD is deleted (default true)
  bool operator==(const ModelCache&) const = default;
};

struct ModelDownload {                           // one-shot Job filling the cache, pinned to model.revision
  std::optional<bool> enabled;                   // run the Job (default true when the block is present)
  std::optional<SecretKeyRef> token_secret_ref;    // Hugging Face token Secret (e.g. hf-token-secret / HF_TOKEN)
  std::optional<std::string> image;              // Job image (default python:3.10-slim)
  std::optional<bool> high_performance;           // HF_XET_HIGH_PERFORMANCE (default true; needs memory: V4 recipes set false with a 16Gi limit)
  std::vector<std::string> packages;             // pip pins installed before `hf download` (default huggingface_hub==1.16.4)
  nlohmann::json resources;                      // Job container corev1.ResourceRequirements (raw; null when absent)
  bool operator==(const ModelDownload&) const = default;
};

struct Model {
  std::optional<std::string> id;                 // Hugging Face model id → vLLM --model / SGLang model-path
  std::optional<std::string> served_name;         // → --served-model-name / served-model-name (default: id)
  std::optional<std::string> revision;           // pinned revision (commit) for the download Job
  std::optional<ModelCache> cache;               // model cache PVC
  std::optional<ModelDownload> download;         // download Job
  bool operator==(const Model&) const = default;
};

// ---------------------------------------------------------------------------------------
// spec.placement

struct PcieMapEntry {                            // one GPU → NIC pair (PCI bus ids)
  std::optional<std::string> gpu;                // GPU BDF, e.g. "00000000:18:00.0"
  std::optional<std::string> nic;                // NIC BDF, e.g. "0000:19:00.0"
  bool operator==(const PcieMapEntry&) const = default;
};

struct Rdma {
  std::optional<std::string> resource;           // extended resource, e.g. "rdma/ib" or "rdma/shared_ib"
  std::optional<int64_t> per_worker;              // count requested per worker pod (requests = limits)
  std::optional<NicSelection> nic_selection;      // sriov: UCX_NET_DEVICES from PCIDEVICE_* at start; pcieMap: VLLM_GPU_NIC_PCIE_MAPPING; none
  std::vector<PcieMapEntry> pcie_map;             // GPU order; required with nicSelection pcieMap
  bool operator==(const Rdma&) const = default;
};

struct NvLink {
  std::optional<bool> compute_domain;             // one ComputeDomain per DGD + pod resource claims (GB200)
  std::optional<bool> same_clique;                // keep workers in one nvidia.com/gpu.clique (pod affinity)
  bool operator==(const NvLink&) const = default;
};

struct Placement {
  std::optional<GpuProduct> gpu;                 // drives nvidia.com/gpu.product selector, arch, tolerations
  std::optional<Rdma> rdma;                      // RDMA devices for KV transfer
  std::optional<NvLink> nvlink;                  // NVLink / ComputeDomain placement
  std::optional<bool> separate_prefill_decode;     // required anti-affinity: prefill and decode on different nodes
  std::map<std::string, std::string> node_selector;  // extra node selector for every pod (cluster-specific)
  nlohmann::json tolerations;                    // extra corev1.Toleration list for every pod (raw; null when absent)
  bool operator==(const Placement&) const = default;
};

// ---------------------------------------------------------------------------------------
// components[].engine (workers). Rendered per framework: vLLM as CLI flags, SGLang as a
// config file (ConfigMap) plus the few flags that must stay on the command line.

struct Eplb {
  std::optional<bool> enabled;                   // vLLM --enable-eplb
  std::optional<std::string> communicator;       // --eplb-config {"communicator":...}, e.g. "torch_gloo"
  bool operator==(const Eplb&) const = default;
};

struct Attention {                               // vLLM --attention-config (or --attention-backend when only backend is set)
  std::optional<std::string> backend;            // "backend", e.g. FLASHMLA_MEGA_ATTN_DSV41 (Blackwell), FLASHINFER_MLA
  std::optional<std::string> indexer_kv_dtype;     // "indexer_kv_dtype", e.g. "mxfp4" (Blackwell)
  std::optional<bool> indexer_sparse_logits;       // "indexer_sparse_logits"
  std::optional<bool> use_fp4_indexer_cache;        // "use_fp4_indexer_cache" (V4, Blackwell)
  bool operator==(const Attention&) const = default;
};

struct Compilation {                             // vLLM --compilation-config
  std::optional<std::string> cudagraph_mode;      // "cudagraph_mode", e.g. FULL_AND_PIECEWISE
  std::vector<std::string> custom_ops;            // "custom_ops", e.g. ["all"]
  bool operator==(const Compilation&) const = default;
};

struct Speculative {                             // vLLM --speculative-config; SGLang speculative-* keys
  std::optional<bool> enabled;                   // false switches off an inherited block (default true)
  std::optional<std::string> method;             // dspark | mtp | eagle | eagle3 | nextn | ngram; SGLang speculative-algorithm (upper-cased)
  std::optional<int64_t> num_speculative_tokens;   // "num_speculative_tokens", 1..8
  std::optional<std::string> draft_sample_method;  // "draft_sample_method": probabilistic | greedy
  std::optional<std::string> rejection_sample_method;  // "rejection_sample_method": block | token
  std::optional<bool> adaptive_verification;      // "enable_adaptive_verification" (must stay false with dspark)
  std::optional<std::string> draft_model;         // "model" / speculative-draft-model-path
  std::optional<int64_t> num_steps;               // SGLang speculative-num-steps (EAGLE)
  std::optional<int64_t> eagle_topk;              // SGLang speculative-eagle-topk
  std::optional<int64_t> num_draft_tokens;         // SGLang speculative-num-draft-tokens
  std::optional<int64_t> dspark_block_size;        // SGLang speculative-dspark-block-size
  bool operator==(const Speculative&) const = default;
};

struct Parsers {
  std::optional<std::string> tokenizer_mode;      // vLLM --tokenizer-mode, e.g. deepseek_v41
  std::optional<std::string> reasoning_parser;    // engine --reasoning-parser / SGLang reasoning-parser
  std::optional<std::string> tool_call_parser;     // engine --tool-call-parser (not with dynToolCallParser)
  std::optional<std::string> dyn_reasoning_parser; // Dynamo --dyn-reasoning-parser
  std::optional<std::string> dyn_tool_call_parser;  // Dynamo --dyn-tool-call-parser
  std::optional<bool> dyn_enable_structural_tag;    // Dynamo --dyn-enable-structural-tag
  bool operator==(const Parsers&) const = default;
};

struct KvEvents {                                // --kv-events-config (ZMQ publisher for KV-aware routing)
  std::optional<bool> enabled;                   // false switches off an inherited block (default true)
  std::optional<std::string> publisher;          // "publisher" (default zmq)
  std::optional<std::string> topic;              // "topic" (default kv-events)
  std::optional<int64_t> port;                   // "endpoint" tcp://*:<port> and container port kv-events (default 5557)
  std::optional<bool> enable_kv_cache_events;       // "enable_kv_cache_events" (omitted when unset)
  bool operator==(const KvEvents&) const = default;
};

struct KvTransfer {                              // vLLM --kv-transfer-config; SGLang disaggregation-* keys
  std::optional<std::string> connector;          // "kv_connector", e.g. NixlConnector (vLLM)
  std::optional<std::string> role;               // "kv_role": kv_both | kv_producer | kv_consumer (default kv_both)
  std::optional<std::string> buffer_device;       // "kv_buffer_device": cuda | cpu (default cuda)
  std::vector<std::string> backends;             // "kv_connector_extra_config.backends", e.g. [UCX]
  std::optional<int64_t> num_threads;             // "kv_connector_extra_config.num_threads"
  std::optional<std::string> transfer_backend;    // SGLang disaggregation-transfer-backend: mooncake | nixl
  std::optional<int64_t> bootstrap_port;          // SGLang disaggregation-bootstrap-port (container port bootstrap)
  bool operator==(const KvTransfer&) const = default;
};

struct SglangSettings {                          // SGLang-only config keys without a vLLM twin
  std::optional<double> mem_fraction_static;       // mem-fraction-static (0,1)
  std::optional<int64_t> chunked_prefill_size;     // chunked-prefill-size
  std::optional<int64_t> max_prefill_tokens;       // max-prefill-tokens
  std::optional<std::string> load_balance_method;  // load-balance-method, e.g. round_robin
  std::optional<bool> prefill_round_robin_balance;  // CLI --prefill-round-robin-balance (decode)
  std::optional<int64_t> watchdog_timeout;        // watchdog-timeout (seconds)
  std::optional<bool> enable_metrics;             // enable-metrics
  std::optional<std::string> host;               // host (engine HTTP bind)
  std::optional<int64_t> port;                   // port (engine HTTP port)
  std::optional<int64_t> cuda_graph_max_bs_decode;   // CLI --cuda-graph-max-bs-decode (must stay off the config file)
  std::vector<int64_t> cuda_graph_bs;              // CLI --cuda-graph-bs v1 v2 ...
  nlohmann::json extra_config;                    // escape hatch: more config-file keys (object; null when absent)
  bool operator==(const SglangSettings&) const = default;
};

struct Engine {
  // Parallelism.
  std::optional<int64_t> tensor_parallel_size;     // --tensor-parallel-size / tp-size
  std::optional<int64_t> data_parallel_size;       // --data-parallel-size / dp-size
  std::optional<int64_t> pipeline_parallel_size;   // --pipeline-parallel-size / pp-size
  std::optional<bool> expert_parallel;            // vLLM --enable-expert-parallel
  std::optional<int64_t> expert_parallel_size;     // SGLang ep-size (vLLM derives EP = TP×DP)
  std::optional<Eplb> eplb;                      // expert-parallel load balancing
  std::optional<bool> ep_weight_filter;            // vLLM --enable-ep-weight-filter
  // Kernels and memory.
  std::optional<std::string> moe_backend;         // vLLM --moe-backend / SGLang moe-runner-backend
  std::optional<std::string> kv_cache_dtype;       // --kv-cache-dtype / kv-cache-dtype, e.g. fp8_ds_mla
  std::optional<Attention> attention;            // attention backend and sparse-indexer options
  std::optional<Compilation> compilation;        // vLLM --compilation-config
  std::optional<Speculative> speculative;        // speculative decoding
  // Limits and batching.
  std::optional<int64_t> max_model_len;            // --max-model-len / context-length
  std::optional<int64_t> max_num_seqs;             // --max-num-seqs / max-running-requests
  std::optional<int64_t> max_num_batched_tokens;    // --max-num-batched-tokens
  std::optional<double> gpu_memory_utilization;    // --gpu-memory-utilization (0,1]
  std::optional<int64_t> block_size;              // --block-size / page-size
  std::optional<int64_t> max_cudagraph_capture_size;      // --max-cudagraph-capture-size
  std::optional<int64_t> long_prefill_token_threshold;    // --long-prefill-token-threshold
  std::optional<int64_t> prefix_cache_retention_interval; // --prefix-cache-retention-interval
  std::optional<bool> prefix_caching;             // --enable-prefix-caching / --no-enable-prefix-caching
  std::optional<bool> async_scheduling;           // false → --no-async-scheduling
  std::optional<bool> scheduler_reserve_full_isl;   // false → --no-scheduler-reserve-full-isl
  std::optional<bool> flashinfer_autotune;        // false → --no-enable-flashinfer-autotune / disable-flashinfer-autotune
  // Model loading and process.
  std::optional<bool> trust_remote_code;           // --trust-remote-code / trust-remote-code
  std::optional<bool> numa_bind;                  // vLLM --numa-bind
  std::optional<bool> language_model_only;         // vLLM --language-model-only
  // Parsers, events, disaggregation.
  std::optional<Parsers> parsers;                // tokenizer mode and reasoning / tool-call parsers
  std::optional<KvEvents> kv_events;              // KV-cache event publishing for KV-aware routing
  std::optional<KvTransfer> kv_transfer;          // prefill → decode KV transfer (disaggregation mode comes from type)
  std::optional<SglangSettings> sglang;          // SGLang-only settings
  std::vector<std::string> extra_args;            // escape hatch: appended verbatim after the rendered flags
  bool operator==(const Engine&) const = default;
};

// ---------------------------------------------------------------------------------------
// components[].router (frontend). Rendered as DYN_ROUTER_* env / dynamo.frontend flags.

struct ConditionalDisaggregation {               // DYN_ROUTER_CONDITIONAL_DISAGG(_CONFIG)
  std::optional<bool> enabled;                   // DYN_ROUTER_CONDITIONAL_DISAGG=true
  std::optional<std::string> policy;             // "policy", e.g. isl_bounding (unset: runtime default policy)
  std::optional<int64_t> eff_isl_threshold;        // "eff_isl_threshold", tokens
  std::optional<double> eff_isl_ratio_threshold;    // "eff_isl_ratio_threshold", [0,1]
  std::optional<double> decode_busy_threshold;     // "decode_busy_threshold", [0,1]
  bool operator==(const ConditionalDisaggregation&) const = default;
};

struct Router {
  std::optional<RouterMode> mode;                // DYN_ROUTER_MODE / --router-mode
  std::optional<bool> kv_events;                  // --router-kv-events (consume worker KV events)
  std::optional<int64_t> block_size;              // --kv-cache-block-size (must match the workers' blockSize)
  std::optional<bool> reset_states;               // --router-reset-states
  std::optional<int64_t> decode_active_request_weight;  // DYN_ROUTER_DECODE_ACTIVE_REQUEST_WEIGHT
  std::optional<double> temperature;             // --router-temperature
  std::optional<ConditionalDisaggregation> conditional_disaggregation;
  std::optional<bool> trust_remote_code;           // frontend --trust-remote-code
  std::optional<std::string> http_host;           // frontend --http-host
  std::optional<int64_t> http_port;               // frontend --http-port (default 8000; the Service port)
  std::vector<std::string> extra_args;            // escape hatch: appended to the frontend args
  bool operator==(const Router&) const = default;
};

// ---------------------------------------------------------------------------------------
// spec.smokeTest: the operator's serving check. Once the graph is Ready it sends one chat
// completion to the frontend and reports the Serving condition (docs/troubleshooting.md).

struct SmokeTest {
  std::optional<bool> enabled;                   // default: true when spec.recipe names a catalog recipe
  std::optional<int64_t> max_tokens;              // max_tokens of the request (default 512; 1..1048576)
  std::optional<int64_t> timeout_seconds;         // answer deadline (default 60; 1..3600)
  std::optional<std::string> prompt;             // user message (default "Reply with exactly: READY")
  bool operator==(const SmokeTest&) const = default;
};

// ---------------------------------------------------------------------------------------
// The graph.

struct Component {
  std::string name;                              // logical name; children are <dgd>-<lowercase name>
  std::optional<ComponentType> type;             // frontend | worker | prefill | decode (immutable)
  std::optional<int32_t> replicas;               // pods (default 1)
  std::optional<std::string> shared_memory_size;   // /dev/shm size quantity (default 8Gi; "0" disables)
  nlohmann::json pod_template;                    // raw corev1.PodTemplateSpec (null when absent)
  std::vector<EnvVar> env;                       // project extension: env for container main, wins over spec.env
  std::optional<Engine> engine;                  // typed engine settings (workers)
  std::optional<Router> router;                  // typed router settings (frontend)
  nlohmann::json extra = nlohmann::json::object();  // upstream fields not modelled here, verbatim
  bool operator==(const Component&) const = default;
};

struct Spec {
  std::optional<std::string> recipe;             // catalog recipe, e.g. deepseek-v4.1-flash/vllm/disagg-h200-agentic
  std::optional<BackendFramework> backend_framework;  // vllm | sglang | trtllm
  std::vector<EnvVar> env;                       // env prepended to every component's main container
  std::map<std::string, std::string> annotations;  // propagated to all children
  std::map<std::string, std::string> labels;     // propagated to all children
  std::optional<Model> model;                    // model id, revision, cache, download
  std::optional<Placement> placement;            // GPU product, RDMA, NVLink, separation
  std::optional<SmokeTest> smoke_test;            // serving check after Ready (operator only; not lowered)
  std::vector<Component> components;             // the graph (list-map keyed by name)
  nlohmann::json extra = nlohmann::json::object();  // upstream spec fields not modelled here, verbatim
  bool operator==(const Spec&) const = default;
};

struct Dgd {
  std::string api_version = kApiVersion;          // nvidia.com/v1beta1
  std::string kind = kKind;                      // DynamoGraphDeployment
  ObjectMeta metadata;
  Spec spec;
  nlohmann::json status;                         // raw status (null when absent); the controller owns it
  bool operator==(const Dgd&) const = default;

  // The component with this name (exact match), or nullptr.
  const Component* find_component(std::string_view name) const;
  Component* find_component(std::string_view name);
};

}  // namespace dgd::api
