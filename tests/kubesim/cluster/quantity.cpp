#include "kubesim/cluster/quantity.h"

#include <cctype>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace kubesim::cluster {
namespace {

constexpr long double kMax = static_cast<long double>(std::numeric_limits<int64_t>::max());

int64_t saturate(long double v) {
  if (v >= kMax) return std::numeric_limits<int64_t>::max();
  if (v <= -kMax) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

long double suffix_multiplier(const std::string& s, const std::string& text) {
  if (s.empty()) return 1;
  if (s == "Ki") return 1024.0L;
  if (s == "Mi") return 1024.0L * 1024;
  if (s == "Gi") return 1024.0L * 1024 * 1024;
  if (s == "Ti") return 1024.0L * 1024 * 1024 * 1024;
  if (s == "Pi") return 1024.0L * 1024 * 1024 * 1024 * 1024;
  if (s == "Ei") return 1024.0L * 1024 * 1024 * 1024 * 1024 * 1024;
  if (s == "n") return 1e-9L;
  if (s == "u") return 1e-6L;
  if (s == "m") return 1e-3L;
  if (s == "k") return 1e3L;
  if (s == "M") return 1e6L;
  if (s == "G") return 1e9L;
  if (s == "T") return 1e12L;
  if (s == "P") return 1e15L;
  if (s == "E") return 1e18L;
  if ((s[0] == 'e' || s[0] == 'E') && s.size() > 1) {
    size_t i = 1;
    if (s[i] == '+' || s[i] == '-') ++i;
    if (i == s.size()) throw std::invalid_argument("invalid quantity \"" + text + "\"");
    for (size_t j = i; j < s.size(); ++j)
      if (!std::isdigit(static_cast<unsigned char>(s[j]))) throw std::invalid_argument("invalid quantity \"" + text + "\"");
    return std::pow(10.0L, std::stold(s.substr(1)));
  }
  throw std::invalid_argument("invalid quantity \"" + text + "\": unknown suffix \"" + s + "\"");
}

}  // namespace

std::string quantity_problem(const std::string& text) {
  static const std::string kFormat =
      "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
  static const std::string kSuffix = "unable to parse quantity's suffix";
  auto digit = [&](size_t i) { return std::isdigit(static_cast<unsigned char>(text[i])) != 0; };
  if (text.empty()) return kFormat;
  // parseQuantityString: sign, digits, '.', digits; a string that ends there parses.
  size_t pos = 0, end = text.size();
  if (text[0] == '+' || text[0] == '-') ++pos;
  while (pos < end && digit(pos)) ++pos;
  if (pos == end) return "";
  if (text[pos] == '.') {
    ++pos;
    while (pos < end && digit(pos)) ++pos;
    if (pos == end) return "";
  }
  // The suffix: letters of "eEinumkKMGTP", an optional sign, digits, nothing else.
  const size_t suffix_start = pos;
  while (pos < end && std::string("eEinumkKMGTP").find(text[pos]) != std::string::npos) ++pos;
  if (pos < end && (text[pos] == '+' || text[pos] == '-')) ++pos;
  while (pos < end && digit(pos)) ++pos;
  if (pos != end) return kFormat;
  // quantitySuffixer.interpret.
  const std::string suffix = text.substr(suffix_start);
  static const char* const kSuffixes[] = {"Ki", "Mi", "Gi", "Ti", "Pi", "Ei", "n", "u", "m",
                                          "k", "M", "G", "T", "P", "E"};
  for (const char* s : kSuffixes)
    if (suffix == s) return "";
  if (suffix.size() > 1 && (suffix[0] == 'e' || suffix[0] == 'E')) {
    size_t j = 1;
    if (suffix[j] == '+' || suffix[j] == '-') ++j;
    bool digits = j < suffix.size();
    for (; j < suffix.size(); ++j) digits = digits && std::isdigit(static_cast<unsigned char>(suffix[j]));
    if (digits) return "";
  }
  return kSuffix;
}

int64_t parse_milli(const std::string& text) {
  size_t i = 0;
  bool neg = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) neg = text[i++] == '-';
  size_t num_start = i;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.')) ++i;
  if (i == num_start) throw std::invalid_argument("invalid quantity \"" + text + "\"");
  long double number = std::stold(text.substr(num_start, i - num_start));
  long double v = number * suffix_multiplier(text.substr(i), text) * 1000.0L;
  v = std::ceil(v - 1e-6L);  // milli precision, rounding up like the API does
  return saturate(neg ? -v : v);
}

int64_t scheduler_units(const std::string& resource, const std::string& text) {
  int64_t milli = parse_milli(text);
  if (resource == "cpu") return milli;
  if (milli >= 0) return milli / 1000 + (milli % 1000 != 0 ? 1 : 0);
  return milli / 1000;
}

std::string format_units(const std::string& resource, int64_t units) {
  if (resource == "cpu") {
    if (units % 1000 == 0) return std::to_string(units / 1000);
    return std::to_string(units) + "m";
  }
  static const char* kBin[] = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};
  if (units != 0 && (resource == "memory" || resource == "ephemeral-storage" || resource.rfind("hugepages-", 0) == 0)) {
    int64_t div = int64_t(1) << 60;
    for (const char* s : kBin) {
      if (units % div == 0) return std::to_string(units / div) + s;
      div >>= 10;
    }
  }
  return std::to_string(units);
}

}  // namespace kubesim::cluster
