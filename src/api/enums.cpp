// Spellings of the model's closed enumerations.
#include <array>
#include <utility>

#include "dgd/api/dgd.h"

namespace dgd::api {
namespace {

template <class E, size_t N>
const char* nameOf(const std::array<std::pair<E, const char*>, N>& table, E v) {
  for (const auto& [e, s] : table) {
    if (e == v) return s;
  }
  return "";
}

template <class E, size_t N>
std::optional<E> valueOf(const std::array<std::pair<E, const char*>, N>& table, std::string_view s) {
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

const char* toString(BackendFramework v) { return nameOf(kFrameworks, v); }
const char* toString(ComponentType v) { return nameOf(kTypes, v); }
const char* toString(GpuProduct v) { return nameOf(kGpus, v); }
const char* toString(NicSelection v) { return nameOf(kNics, v); }
const char* toString(RouterMode v) { return nameOf(kModes, v); }
std::optional<BackendFramework> parseBackendFramework(std::string_view s) { return valueOf(kFrameworks, s); }
std::optional<ComponentType> parseComponentType(std::string_view s) { return valueOf(kTypes, s); }
std::optional<GpuProduct> parseGpuProduct(std::string_view s) { return valueOf(kGpus, s); }
std::optional<NicSelection> parseNicSelection(std::string_view s) { return valueOf(kNics, s); }
std::optional<RouterMode> parseRouterMode(std::string_view s) { return valueOf(kModes, s); }

bool isWorkerType(ComponentType t) {
  return t == ComponentType::kWorker || t == ComponentType::kPrefill || t == ComponentType::kDecode;
}

const Component* Dgd::findComponent(std::string_view name) const {
  for (const auto& c : spec.components) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

Component* Dgd::findComponent(std::string_view name) {
  for (auto& c : spec.components) {
    if (c.name == name) return &c;
  }
  return nullptr;
}

}  // namespace dgd::api
