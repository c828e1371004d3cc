// kube-sim cluster: Kubernetes resource quantities as the scheduler compares them.
//
// parse_milli("500m") == 500, parse_milli("2Gi") == 2147483648000. Accepts the
// API's quantity grammar (decimal and binary SI suffixes, e exponents). Values
// saturate at the int64 range instead of overflowing. Throws std::invalid_argument
// with the offending text on a malformed quantity.
#pragma once

#include <cstdint>
#include <string>

namespace kubesim::cluster {

int64_t parse_milli(const std::string& text);
// The scheduler's unit for a resource: millicores for "cpu", whole units
// (rounded up, as resource.Quantity.Value() does) for everything else.
int64_t scheduler_units(const std::string& resource, const std::string& text);
// Formats scheduler units back to a readable quantity ("4", "500m", "2Ti").
std::string format_units(const std::string& resource, int64_t units);

}  // namespace kubesim::cluster
