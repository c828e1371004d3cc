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
  std::optional<BackendFramework> framework() const { return dgd_.spec.backend_framework; }
  std::optional<GpuProduct> gpu() const {
    return dgd_.spec.placement ? dgd_.spec.placement->gpu : std::nullopt;
  }

  // Range check of an optional integer; message "must be lo..hi".
  void range(const std::string& path, const std::optional<int64_t>& v, int64_t lo, int64_t hi);
  // Value must be one of `allowed` (message lists them).
  void one_of(const std::string& path, const std::optional<std::string>& v,
             std::initializer_list<std::string_view> allowed);

  // Per-field checks (validate.cpp).
  void check_all();
  // Cross-field rules over the whole graph (validate_graph.cpp).
  void check_graph();
  // Engine and router blocks (validate_engine.cpp).
  void check_engine(size_t ci, const Component& c, const Engine& e, const std::string& path);
  void check_router(size_t ci, const Component& c, const Router& r, const std::string& path);

  // Every env entry in the DGD (filled by checkAll).
  const std::vector<EnvRef>& envs() const { return envs_; }

 private:
  void check_metadata();
  void check_spec();
  void check_model(const Model& m, const std::string& path);
  void check_placement(const Placement& p, const std::string& path);
  void check_smoke_test(const SmokeTest& t, const std::string& path);  // validate_smoke.cpp
  void check_component(size_t ci, const Component& c);
  void check_pod_template(size_t ci, const Component& c, const std::string& path);
  void check_env_list(const std::vector<EnvVar>& env, const std::string& path, int component);
  // Upstream fields outside the typed blocks (validate_upstream.cpp).
  void check_upstream_spec_field(const std::string& key, const nlohmann::json& value);
  void check_upstream_component_field(size_t ci, const Component& c, const std::string& key, const nlohmann::json& value);
  void check_restart(const nlohmann::json& value);  // spec.restart (validate_restart.cpp)
  void check_string_map(const std::map<std::string, std::string>& m, const std::string& path, bool labels);

  const Dgd& dgd_;
  bool complete_;
  std::vector<FieldError> out_;
  std::vector<EnvRef> envs_;
};

// The `main` container of a pod template (nullptr when absent or malformed), and its
// index in spec.containers.
const nlohmann::json* main_container(const nlohmann::json& pod_template, size_t* index = nullptr);

// GPUs requested by the main container (limits, else requests, of nvidia.com/gpu).
std::optional<int64_t> main_container_gpus(const nlohmann::json& pod_template);

bool contains(std::initializer_list<std::string_view> set, std::string_view v);
std::string list_of(std::initializer_list<std::string_view> set);

}  // namespace dgd::api::detail
