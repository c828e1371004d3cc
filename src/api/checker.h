// Shared state of one validate() run (internal to the api part).
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "dgd/api/dgd.h"
#include "dgd/api/field_error.h"

namespace dgd::api::detail {

// One `env` entry wherever it sits (spec.env, components[].env, container main's env).
struct EnvRef {
  const EnvVar* var = nullptr;  // for typed lists
  std::string name;
  std::string value;            // literal value ("" when valueFrom)
  std::string path;             // e.g. spec.components[1].podTemplate.spec.containers[0].env[3]
  int component = -1;           // index, or -1 for spec.env
};

class Checker {
 public:
  Checker(const Dgd& dgd, bool complete) : dgd_(dgd), complete_(complete) {}

  void error(std::string path, std::string message) {
    out_.push_back({std::move(path), std::move(message), Severity::kError, {}});
  }
  // Fills FieldError::component from the paths, then hands the problems over.
  std::vector<FieldError> take();

  const Dgd& dgd() const { return dgd_; }
  bool complete() const { return complete_; }
  std::optional<BackendFramework> framework() const { return dgd_.spec.backendFramework; }
  std::optional<GpuProduct> gpu() const {
    return dgd_.spec.placement ? dgd_.spec.placement->gpu : std::nullopt;
  }

  // Range check of an optional integer; message "must be lo..hi".
  void range(const std::string& path, const std::optional<int64_t>& v, int64_t lo, int64_t hi);
  // Value must be one of `allowed` (message lists them).
  void oneOf(const std::string& path, const std::optional<std::string>& v,
             std::initializer_list<std::string_view> allowed);

  // Per-field checks (validate.cpp).
  void checkAll();
  // Cross-field rules over the whole graph (validate_graph.cpp).
  void checkGraph();
  // Engine and router blocks (validate_engine.cpp).
  void checkEngine(size_t ci, const Component& c, const Engine& e, const std::string& path);
  void checkRouter(size_t ci, const Component& c, const Router& r, const std::string& path);

  // Every env entry in the DGD (filled by checkAll).
  const std::vector<EnvRef>& envs() const { return envs_; }

 private:
  void checkMetadata();
  void checkSpec();
  void checkModel(const Model& m, const std::string& path);
  void checkPlacement(const Placement& p, const std::string& path);
  void checkSmokeTest(const SmokeTest& t, const std::string& path);  // validate_smoke.cpp
  void checkComponent(size_t ci, const Component& c);
  void checkPodTemplate(size_t ci, const Component& c, const std::string& path);
  void checkEnvList(const std::vector<EnvVar>& env, const std::string& path, int component);
  // Upstream fields outside the typed blocks (validate_upstream.cpp).
  void checkUpstreamSpecField(const std::string& key, const nlohmann::json& value);
  void checkUpstreamComponentField(size_t ci, const Component& c, const std::string& key, const nlohmann::json& value);
  void checkRestart(const nlohmann::json& value);  // spec.restart (validate_restart.cpp)
  void checkStringMap(const std::map<std::string, std::string>& m, const std::string& path, bool labels);

  const Dgd& dgd_;
  bool complete_;
  std::vector<FieldError> out_;
  std::vector<EnvRef> envs_;
};

// The `main` container of a pod template (nullptr when absent or malformed), and its
// index in spec.containers.
const nlohmann::json* mainContainer(const nlohmann::json& podTemplate, size_t* index = nullptr);

// GPUs requested by the main container (limits, else requests, of nvidia.com/gpu).
std::optional<int64_t> mainContainerGpus(const nlohmann::json& podTemplate);

bool contains(std::initializer_list<std::string_view> set, std::string_view v);
std::string listOf(std::initializer_list<std::string_view> set);

}  // namespace dgd::api::detail
