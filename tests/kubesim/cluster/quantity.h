// kube-sim: Kubernetes resource quantities, as the API server stores them and as the
// simulated scheduler compares them.
//
// parse_milli("500m") == 500, parse_milli("2Gi") == 2147483648000. Accepts the
// API's quantity grammar (decimal and binary SI suffixes, e exponents). Values
// saturate at the int64 range instead of overflowing. Throws std::invalid_argument
// with the offending text on a malformed quantity.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace kubesim::cluster {

int64_t parse_milli(const std::string& text);
// Why resource.ParseQuantity refuses `text`, in its words: "quantities must match the
// regular expression '...'" (ErrFormatWrong) or "unable to parse quantity's suffix"
// (ErrSuffix); empty when it parses. Its grammar: an optional sign, digits, an optional
// fraction, then one of Ki..Ei, n, u, m, k, M..E, or e/E and a signed exponent.
std::string quantity_problem(const std::string& text);
// The scheduler's unit for a resource: millicores for "cpu", whole units
// (rounded up, as resource.Quantity.Value() does) for everything else.
int64_t scheduler_units(const std::string& resource, const std::string& text);
// Formats scheduler units back to a readable quantity ("4", "500m", "2Ti").
std::string format_units(const std::string& resource, int64_t units);

// The canonical form the API server stores a quantity in (ParseQuantity then String()):
// the input's suffix family is kept (binary SI falls back to decimal below 1024 or for a
// fraction), the value is rounded up to nano units and written with the largest suffix
// that keeps it whole: "1000m" -> "1", "0.5" -> "500m", "1024Mi" -> "1Gi", "1.5Gi" ->
// "1536Mi", "1000" -> "1k", "1e3" -> "1e3", "1.3E+6" -> "1300e3". nullopt when `text` is
// not a quantity (the grammar ^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$ with a known
// suffix).
std::optional<std::string> canonical_quantity(const std::string& text);

}  // namespace kubesim::cluster
