// kube-sim: the client of the CEL evaluator process (crd/cel/cel_server.mjs, run by node).
//
// One process per kube-sim, started on first use, restarted when it dies. Requests are
// serialized: one JSON line out, one JSON line back. Schemas are sent once per process and
// then named by a key. When node or the evaluator's node_modules are missing, or the process
// does not answer, calls throw CelUnavailable with the reason.
#pragma once

#include <nlohmann/json.hpp>

#include <mutex>
#include <set>
#include <stdexcept>
#include <string>

namespace kubesim::crd {

struct CelUnavailable : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class CelEvaluator {
 public:
  static CelEvaluator& instance();
  ~CelEvaluator();

  // The folder holding cel_server.mjs and its node_modules (default: the source tree's, set at
  // build time; kube-sim's --cel-evaluator DIR).
  void set_directory(const std::string& dir);
  std::string directory() const;

  // Rules of `schema` that do not compile: [{path, field, detail}].
  nlohmann::json compile(const std::string& key, const nlohmann::json& schema);
  // Rule violations of `object` (with `old` on updates): [{type, field, value, detail}].
  nlohmann::json validate(const std::string& key, const nlohmann::json& schema, const nlohmann::json& object,
                          const nlohmann::json* old);

 private:
  CelEvaluator() = default;
  void start();
  void stop();
  nlohmann::json call(nlohmann::json request, const std::string& key, const nlohmann::json& schema);
  nlohmann::json exchange(const nlohmann::json& request);

  mutable std::mutex mu_;
  std::string dir_;
  int pid_ = -1;
  int to_child_ = -1;
  int from_child_ = -1;
  std::string buffer_;
  std::set<std::string> sent_;  // schema keys the running process has
  uint64_t next_id_ = 1;
};

}  // namespace kubesim::crd
