// YAML ⇄ JSON values, following what kubectl does with manifests (sigs.k8s.io/yaml):
// plain scalars resolve to null / bool / int / float (YAML 1.1 booleans such as `yes`,
// `on`, `y` included, so a manifest means here what it means to kubectl); quoted
// scalars are strings; duplicate mapping keys are an error; aliases are expanded with a
// size limit (no "billion laughs"). Pure: no I/O. Never crashes on hostile input.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace dgd::api {

struct YamlError : std::runtime_error {
  using std::runtime_error::runtime_error;  // message carries "line L, column C" when known
};

// All documents of a YAML stream (empty documents are skipped). Throws YamlError.
std::vector<nlohmann::json> yaml_to_json_documents(std::string_view text);

// Exactly one document (an empty stream gives null). Throws YamlError when the text has
// several documents or does not parse.
nlohmann::json yaml_to_json(std::string_view text);

// Block-style YAML for a JSON value, deterministic (object keys in nlohmann's sorted
// order), strings quoted only when a plain scalar would change their meaning; multi-line
// strings as literal blocks. Ends with a newline.
std::string json_to_yaml(const nlohmann::json& value);
// The same text, appended to `out` (several documents into one buffer).
void append_yaml(std::string& out, const nlohmann::json& value);

}  // namespace dgd::api
