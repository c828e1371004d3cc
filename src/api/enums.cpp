// Spellings of the model's closed enumerations.
#include <array>
#include <utility>

#include "dgd/api/dgd.h"

namespace dgd::api {
namespace {

template <class E, size_t N>
const char* name_of(const std::array<std::pair<E, const char*>, N>& table, E v) {
  for (const auto& [e, s] : table) {
    if (e == v) return s;
  }
  return "";
}

template <class E, size_t N>
std::optional<E> value_of(const std::array<std::pair<E, const char*>, N>& table, std::string_view s) {
  for (const auto& [e, name] : table) {
    if (s == name) return e;
  }
  return std::nullopt;
}

constexpr std::array<std::pair<BackendFramework, const char*>, 3> kFrameworks{{
    {BackendFramework::kVllm, "vllm"}, {BackendFramework::kSglang, "sglang"}, {BackendFramework::kTrtllm, "trtllm"}}};
constexpr std::array<std::pair<ComponentType, const char*>, 6> kTypes{{{ComponentType::kFrontend, "frontend"},
                                                                       {ComponentType::kWorker, "worker"},
                                                                       {ComponentType::kPrefill, "prefill"},
                                                                       {ComponentType::kDecode, "decode"},
                                                                       {ComponentType::kPlanner, "planner"},
                                                                       {ComponentType::kEpp, "epp"}}};
constexpr std::array<std::pair<GpuProduct, const char*>, 3> kGpus{
    {{GpuProduct::kB200, "B200"}, {GpuProduct::kGB200, "GB200"}, {GpuProduct::kH200, "H200"}}};
constexpr std::array<std::pair<NicSelection, const char*>, 3> kNics{
    {{NicSelection::kSriov, "sriov"}, {NicSelection::kPcieMap, "pcieMap"}, {NicSelection::kNone, "none"}}};
constexpr std::array<std::pair<RouterMode, const char*>, 3> kModes{
    {{RouterMode::kKv, "kv"}, {RouterMode::kRoundRobin, "round-robin"}, {RouterMode::kRandom, "random"}}};

}  // namespace

const char* to_string(BackendFramework v) { return name_of(kFrameworks, v); }
const char* to_string(ComponentType v) { return name_of(kTypes, v); }
const char* to_string(GpuProduct v) { return name_of(kGpus, v); }
const char* to_string(NicSelection v) { return name_of(kNics, v); }
const char* to_string(RouterMode v) { return name_of(kModes, v); }
std::optional<BackendFramework> parse_backend_framework(std::string_view s) { return value_of(kFrameworks, s); }
std::optional<ComponentType> parse_component_type(std::string_view s) { return value_of(kTypes, s); }
std::optional<GpuProduct> parse_gpu_product(std::string_view s) { return value_of(kGpus, s); }
std::optional<NicSelection> parse_nic_selection(std::string_view s) { return value_of(kNics, s); }
std::optional<RouterMode> parse_router_mode(std::string_view s) { return value_of(kModes, s); }

bool is_worker_type(ComponentType t) {
  return t == ComponentType::kWorker || t == ComponentType::kPrefill || t == ComponentType::kDecode;
}

const Component* Dgd::find_component(std::string_view name) const {
  for (const auto& c : spec.components) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

Component* Dgd::find_component(std::string_view name) {
  for (auto& c : spec.components) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace dgd::api
