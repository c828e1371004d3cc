#include "kubesim/body_codec.h"

#include "kubesim/api_error.h"

#include <yaml-cpp/yaml.h>

#include <regex>

namespace kubesim {

using nlohmann::json;

namespace {

json scalar(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (n.Tag() == "!" || n.Tag() == "tag:yaml.org,2002:str") return s;
  static const std::regex int_re("^[-+]?(0|[1-9][0-9]*)$");
  static const std::regex float_re("^[-+]?(\\.[0-9]+|[0-9]+(\\.[0-9]*)?)([eE][-+]?[0-9]+)?$");
  if (s == "null" || s == "Null" || s == "NULL" || s == "~" || s.empty()) return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (std::regex_match(s, int_re)) {
    try {
      return std::stoll(s);
    } catch (...) {
      return s;
    }
  }
  if (std::regex_match(s, float_re)) {
    try {
      return std::stod(s);
    } catch (...) {
      return s;
    }
  }
  return s;
}

json to_json(const YAML::Node& n) {
  switch (n.Type()) {
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
    case YAML::NodeType::Scalar:
      return scalar(n);
    case YAML::NodeType::Sequence: {
      json a = json::array();
      for (const auto& e : n) a.push_back(to_json(e));
      return a;
    }
    case YAML::NodeType::Map: {
      json o = json::object();
      for (const auto& kv : n) o[kv.first.as<std::string>()] = to_json(kv.second);
      return o;
    }
  }
  return nullptr;
}

}  // namespace

json parse_json_body(const std::string& body) {
  try {
    return json::parse(body);
  } catch (const json::exception& e) {
    throw ApiError::bad_request(std::string("couldn't get version/kind; json parse error: ") + e.what());
  }
}

json parse_yaml_body(const std::string& body) {
  try {
    return to_json(YAML::Load(body));
  } catch (const YAML::Exception& e) {
    throw ApiError::bad_request(std::string("error converting YAML to JSON: yaml: ") + e.what());
  }
}

json parse_body(const std::string& body, const std::string& content_type) {
  if (content_type.find("yaml") != std::string::npos) {
    // JSON is YAML, but parse it as JSON when it looks like JSON: exact numbers and strings.
    size_t i = body.find_first_not_of(" \t\r\n");
    if (i != std::string::npos && body[i] == '{') {
      try {
        return json::parse(body);
      } catch (...) {
      }
    }
    return parse_yaml_body(body);
  }
  return parse_json_body(body);
}

}  // namespace kubesim
