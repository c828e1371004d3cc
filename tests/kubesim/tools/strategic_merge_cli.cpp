// kubesim-strategic-merge: kube-sim's strategic merge patch on its own, for tests that
// compare it with another implementation (tests/e2e/kubesim/test_smp_differential.py).
//
// Reads JSON lines {"apiVersion", "kind", "object", "patch"} on stdin and writes one JSON
// line per input: {"object": result} or {"code": HTTP status, "message": Status message,
// "library_message": apimachinery's error text}. The type of the object is read from the
// Kubernetes OpenAPI document, as kube-sim does for a PATCH.
#include "kubesim/api_error.h"
#include "kubesim/apply/merge_schema.h"
#include "kubesim/apply/strategic_merge.h"

#include <nlohmann/json.hpp>

#include <iostream>
#include <string>

int main() {
  using nlohmann::json;
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    json out;
    try {
      const json in = json::parse(line);
      const std::string api_version = in.at("apiVersion").get<std::string>();
      const auto slash = api_version.find('/');
      const std::string group = slash == std::string::npos ? "" : api_version.substr(0, slash);
      const std::string version = slash == std::string::npos ? api_version : api_version.substr(slash + 1);
      const auto type = kubesim::apply::builtin_type(group, version, in.at("kind").get<std::string>());
      if (!type) throw std::runtime_error("the OpenAPI document has no " + api_version + " " + in.at("kind").dump());
      out["object"] = kubesim::apply::apply_strategic_merge_patch(in.at("object"), in.at("patch"), *type);
    } catch (const kubesim::apply::StrategicMergeError& e) {
      out = {{"code", e.code()}, {"message", e.what()}, {"library_message", e.library_message()}};
    } catch (const kubesim::ApiError& e) {
      out = {{"code", e.code()}, {"message", e.what()}, {"library_message", e.what()}};
    } catch (const std::exception& e) {
      out = {{"code", 0}, {"message", e.what()}, {"library_message", e.what()}};
    }
    std::cout << out.dump() << '\n' << std::flush;
  }
  return 0;
}
