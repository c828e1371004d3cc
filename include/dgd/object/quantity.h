// Kubernetes resource quantities (apimachinery resource.Quantity): parsing,
// canonical string form, comparison.
//
// Grammar: [+-] digits [. digits] suffix, suffix one of binary SI (Ki Mi Gi Ti
// Pi Ei), decimal SI (n u m "" k M G T P E) or a decimal exponent (e3, E-6).
// Values are rounded up to nano (1e-9), as upstream. The canonical form keeps
// the input's format family (binary SI falls back to decimal SI below 1024 or
// when not an integer): 1000m -> 1, 0.5 -> 500m, 1024Mi -> 1Gi, 1.5Gi -> 1536Mi,
// 1000 -> 1k, 1e3 -> 1e3, 0.5Gi -> 512Mi, 1.5Ki -> 1536, 1000E -> 1e21.
//
// Pure; thread-compatible. Magnitudes up to about 1e29 are supported (far
// beyond any real resource); larger ones are rejected as invalid.
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

namespace dgd::object {

class Quantity {
 public:
  enum class Format { kDecimalSI, kBinarySI, kDecimalExponent };

  // Parses `text`; nullopt if it does not match the grammar.
  static std::optional<Quantity> parse(std::string_view text);

  // The canonical string, as the apiserver stores it.
  std::string to_string() const;
  Format format() const { return format_; }
  bool is_zero() const { return nanos_ == 0; }
  // Value in milli-units rounded up (MilliValue()), saturating at int64 limits.
  long long milli_value() const;
  // Value rounded up to an integer (Value()), saturating at int64 limits.
  long long value() const;

  // Compares by numeric value only (1Gi == 1073741824, format ignored).
  int compare(const Quantity& other) const;
  friend bool operator==(const Quantity& a, const Quantity& b) { return a.compare(b) == 0; }

 private:
  __int128 nanos_ = 0;  // value * 1e9, rounded up
  Format format_ = Format::kDecimalSI;
};

// Canonical string of a quantity given as JSON string or number (4 -> "4",
// "1024Mi" -> "1Gi"); nullopt if not a valid quantity.
std::optional<std::string> canonical_quantity(const nlohmann::json& value);

// Thrown by canonicalize_quantities: names the field path and the bad value.
class QuantityError : public std::invalid_argument {
 public:
  QuantityError(std::string path, const std::string& message)
      : std::invalid_argument(message), path_(std::move(path)) {}
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Rewrites, in place, every value at a schema node marked `quantity` into its
// canonical string: containers' / initContainers' resources.requests/limits,
// pod overhead, emptyDir.sizeLimit, PVC spec.resources, in any object the
// schema covers (Pod, templates in Deployment/Job/..., PVC). What the apiserver
// does on every write of a built-in kind. Throws QuantityError on a bad value
// (upstream answers 400 with "quantities must match the regular expression ...").
class FieldSchema;
void canonicalize_quantities(nlohmann::json& object, const FieldSchema& schema);

// canonicalize_quantities for a bare PodSpec (containers, initContainers,
// ephemeralContainers, overhead, volumes[].emptyDir.sizeLimit).
void canonicalize_resources(nlohmann::json& pod_spec);

}  // namespace dgd::object
