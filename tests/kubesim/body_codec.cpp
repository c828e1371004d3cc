#include "kubesim/body_codec.h"

#include "kubesim/api_error.h"
#include "kubesim/protobuf/protobuf_body.h"

#include <yaml-cpp/yaml.h>

#include <string>

namespace kubesim {

using nlohmann::json;

namespace {

// Hand-written instead of std::regex: libstdc++'s regex matcher recurses once per character
// and overflows the stack on a long scalar (a 100,000-digit number in a 3 MiB body crashed
// kube-sim). Both run in linear time.
size_t digits_at(const std::string& s, size_t& i) {
  size_t start = i;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
  return i - start;
}

// [-+]?(0|[1-9][0-9]*)
bool is_int(const std::string& s) {
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  if (i < s.size() && s[i] == '0') return i + 1 == s.size();
  return digits_at(s, i) > 0 && i == s.size();
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
bool is_float(const std::string& s) {
  size_t i = (!s.empty() && (s[0] == '-' || s[0] == '+')) ? 1 : 0;
  size_t int_digits = digits_at(s, i), frac_digits = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    frac_digits = digits_at(s, i);
  }
  if (int_digits == 0 && frac_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits_at(s, i) == 0) return false;
  }
  return i == s.size();
}

json scalar(const YAML::Node& n) {
  const std::string& s = n.Scalar();
  if (n.Tag() == "!" || n.Tag() == "tag:yaml.org,2002:str") return s;
  if (s == "null" || s == "Null" || s == "NULL" || s == "~" || s.empty()) return nullptr;
  if (s == "true" || s == "True" || s == "TRUE") return true;
  if (s == "false" || s == "False" || s == "FALSE") return false;
  if (is_int(s)) {
    try {
      return std::stoll(s);
    } catch (...) {
      return s;
    }
  }
  if (is_float(s)) {
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
  if (content_type.find("protobuf") != std::string::npos) return decode_protobuf_body(body);
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
