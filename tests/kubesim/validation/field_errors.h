// kube-sim validation: a field.ErrorList as apimachinery builds it.
//
// Each error has the cause type (FieldValueInvalid, ...), the field path and the
// body ErrorBody() prints: "Required value", "Invalid value: <value>: <detail>",
// "Unsupported value: <value>: supported values: ...". Values are printed as
// Go's fmt prints them for a 1.32 API server (%q for strings, %v for numbers, %#v
// for maps, selectors and IntOrString); the go_* helpers produce that text.
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kubesim::validation {

class ErrorList {
 public:
  // `value` arguments are already formatted (go_quote, go_int, go_map, ...).
  void required(const std::string& field, const std::string& detail = "");
  void invalid(const std::string& field, const std::string& value, const std::string& detail);
  void not_supported(const std::string& field, const std::string& value, const std::vector<std::string>& supported);
  void forbidden(const std::string& field, const std::string& detail);
  void duplicate(const std::string& field, const std::string& value);
  void not_found(const std::string& field, const std::string& value);
  // field.TooLong: "Too long: must have at most N bytes".
  void too_long(const std::string& field, int64_t max_bytes);
  // Several messages from an Is* check, each an Invalid error on `field`.
  void invalid_each(const std::string& field, const std::string& value, const std::vector<std::string>& messages);

  void append(const ErrorList& other);

  bool empty() const { return causes_.empty(); }
  size_t size() const { return causes_.size(); }
  // StatusCause objects: {reason, field, message}.
  const nlohmann::json& causes() const { return causes_; }

 private:
  void add(const char* reason, const std::string& field, const std::string& body);
  nlohmann::json causes_ = nlohmann::json::array();
};

// strconv.Quote: a Go double-quoted string literal.
std::string go_quote(const std::string& s);
std::string go_int(int64_t v);
// %#v of map[string]string: map[string]string{"a":"b", "c":"d"} (keys sorted), nil
// for a missing map.
std::string go_map(const nlohmann::json& labels);
// %#v of []string.
std::string go_string_slice(const nlohmann::json& list);
// %#v of a v1.LabelSelector value.
std::string go_label_selector(const nlohmann::json& selector);
// %#v of an intstr.IntOrString.
std::string go_int_or_string(const nlohmann::json& v);

// Tolerant readers: a field of the wrong JSON type reads as absent (field types are
// checked elsewhere).
const nlohmann::json* child(const nlohmann::json& obj, const char* key);
std::string str_of(const nlohmann::json& obj, const char* key);
bool has_str(const nlohmann::json& obj, const char* key);
const nlohmann::json& array_of(const nlohmann::json& obj, const char* key);   // empty array when absent
const nlohmann::json& object_of(const nlohmann::json& obj, const char* key);  // empty object when absent
std::string index_path(const std::string& base, size_t i);                    // base[i]
std::string key_path(const std::string& base, const std::string& key);        // base[key]

}  // namespace kubesim::validation
