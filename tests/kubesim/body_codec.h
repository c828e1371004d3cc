// kube-sim: request bodies to JSON. JSON bodies are parsed as JSON; YAML bodies
// (Content-Type application/yaml or application/apply-patch+yaml) through
// yaml-cpp with YAML 1.1-ish scalar typing (quoted scalars stay strings).
// Throws ApiError 400 on malformed input, with the parser's message.
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace kubesim {

nlohmann::json parse_json_body(const std::string& body);
nlohmann::json parse_yaml_body(const std::string& body);
// Chooses by content type: Kubernetes protobuf for *protobuf* (protobuf/protobuf_body.h),
// YAML for *yaml*, JSON otherwise.
nlohmann::json parse_body(const std::string& body, const std::string& content_type);

}  // namespace kubesim
