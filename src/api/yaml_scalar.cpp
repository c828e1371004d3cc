// Plain-scalar resolution and UTF-8 checks shared by the YAML readers and the emitter.
#include "api/yaml_scalar.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <initializer_list>
#include <limits>
#include <optional>

namespace dgd::api::yaml_detail {
namespace {

bool isOneOf(std::string_view s, std::initializer_list<std::string_view> options) {
  for (auto o : options) {
    if (s == o) return true;
  }
  return false;
}

// The null and boolean words are at most 5 characters and start with one of a few
// letters: most strings skip the lists after two comparisons.
bool mayBeWord(std::string_view s) {
  if (s.size() > 5) return false;
  if (s.empty()) return true;
  switch (s[0]) {
    case '~': case 'n': case 'N': case 't': case 'T': case 'y': case 'Y': case 'o': case 'O': case 'f': case 'F':
      return true;
    default:
      return false;
  }
}

bool isNullWord(std::string_view s) { return mayBeWord(s) && isOneOf(s, {"", "~", "null", "Null", "NULL"}); }

// YAML 1.1 booleans, as sigs.k8s.io/yaml (go-yaml v2) resolves them.
std::optional<bool> boolWord(std::string_view s) {
  if (!mayBeWord(s)) return std::nullopt;
  if (isOneOf(s, {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON", "y", "Y"})) return true;
  if (isOneOf(s, {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF", "n", "N"})) return false;
  return std::nullopt;
}

bool allDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::string_view withoutSign(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return s;
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?  (hand-written: std::regex recurses
// per character and overflows the stack on long hostile scalars).
bool looksLikeFloat(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  size_t intDigits = digits();
  size_t fracDigits = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    fracDigits = digits();
  }
  if (intDigits == 0 && fracDigits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

}  // namespace

nlohmann::json resolvePlain(std::string s) {
  if (isNullWord(s)) return nullptr;
  if (auto b = boolWord(s)) return *b;
  const std::string_view digits = withoutSign(s);
  if (allDigits(digits)) {
    const bool negative = s[0] == '-';
    errno = 0;
    if (negative) {
      long long v = std::strtoll(s.c_str(), nullptr, 10);
      if (errno == 0) return static_cast<int64_t>(v);
    } else {
      unsigned long long v = std::strtoull(s.c_str() + (s.size() - digits.size()), nullptr, 10);
      if (errno == 0) {
        if (v <= static_cast<unsigned long long>(std::numeric_limits<int64_t>::max())) {
          return static_cast<int64_t>(v);
        }
        return static_cast<uint64_t>(v);
      }
    }
    return std::strtod(s.c_str(), nullptr);  // out of 64-bit range: a float, as in Go
  }
  if (looksLikeFloat(s)) {
    double v = std::strtod(s.c_str(), nullptr);
    if (std::isfinite(v)) return v;
  }
  // .inf / .nan have no JSON form: keep them as strings.
  return s;
}

bool plainIsNull(std::string_view s) { return isNullWord(s); }

bool plainIsString(std::string_view s) {
  if (isNullWord(s) || boolWord(s)) return false;
  if (allDigits(withoutSign(s))) return false;  // an integer, or a float beyond 64 bits
  if (looksLikeFloat(s)) return !std::isfinite(std::strtod(std::string(s).c_str(), nullptr));
  return true;
}

bool validUtf8(std::string_view s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {  // ASCII: the common case
      ++i;
      continue;
    }
    size_t len = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    if (len == 2 && c < 0xc2) return false;  // overlong
    for (size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) >> 6) != 0x2) return false;
    }
    i += len;
  }
  return true;
}

}  // namespace dgd::api::yaml_detail
