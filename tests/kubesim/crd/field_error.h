// kube-sim: one field validation error as apimachinery's field.Error, and its rendering:
// ErrorBody() ("Invalid value: -1: must be ..."), the StatusCause of a 422, and the value
// printing of Go's fmt (%v for numbers, %q for strings) the real messages use.
#pragma once

#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace kubesim::crd {

struct FieldError {
  std::string type;      // StatusCause reason: FieldValueInvalid, FieldValueRequired, ...
  std::string field;     // "spec.components[0].replicas"; "<nil>" for a nil path
  nlohmann::json value;  // the bad value (null prints "null")
  std::string detail;
  bool omit_value = false;  // TooMany with an unknown count
  std::string printed_value{};  // when set, printed verbatim: Go's %#v of a typed value ([]string{"a"})

  static FieldError invalid(std::string field, nlohmann::json value, std::string detail);
  static FieldError type_invalid(std::string field, nlohmann::json value, std::string detail);
  static FieldError required(std::string field, std::string detail = "");
  static FieldError forbidden(std::string field, std::string detail);
  static FieldError not_supported(std::string field, nlohmann::json value, const std::vector<std::string>& valid);
  static FieldError duplicate(std::string field, nlohmann::json value);
  static FieldError too_long(std::string field, nlohmann::json value, int64_t max_length);
  static FieldError too_many(std::string field, int64_t actual, int64_t max_items);

  // "Invalid value: \"x\": detail", as field.Error.ErrorBody().
  std::string body() const;
  // {"reason", "field", "message"} as apierrors.NewInvalid builds each cause.
  nlohmann::json cause() const;
};

using FieldErrors = std::vector<FieldError>;

// Go's %v of a float64 ("1e+06", "0.5") and %q of a string.
std::string go_float(double v);
std::string go_quote(const std::string& s);
// A JSON value as fmt prints it in these messages: integers and floats with %v, strings with %q,
// objects and lists as JSON.
std::string go_value(const nlohmann::json& v);

}  // namespace kubesim::crd
