// Plain-scalar resolution and UTF-8 checks shared by the YAML reader and the emitter.
#include "api/yaml_scalar.h"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>

namespace dgd::api::yaml_detail {
namespace {

// The null and YAML 1.1 boolean words (as sigs.k8s.io/yaml, i.e. go-yaml v2, resolves
// them), found by length and first letter: every scalar and key passes here, most of them
// after one or two comparisons.
enum class Word { kNone, kNull, kTrue, kFalse };

Word plain_word(std::string_view s) {
  const auto is = [&](std::string_view lower, std::string_view title, std::string_view upper) {
    return s == lower || s == title || s == upper;
  };
  switch (s.size()) {
    case 0:
      return Word::kNull;
    case 1:
      switch (s[0]) {
        case '~': return Word::kNull;
        case 'y': case 'Y': return Word::kTrue;
        case 'n': case 'N': return Word::kFalse;
        default: return Word::kNone;
      }
    case 2:
      if (is("on", "On", "ON")) return Word::kTrue;
      if (is("no", "No", "NO")) return Word::kFalse;
      return Word::kNone;
    case 3:
      if (is("yes", "Yes", "YES")) return Word::kTrue;
      if (is("off", "Off", "OFF")) return Word::kFalse;
      return Word::kNone;
    case 4:
      if (is("true", "True", "TRUE")) return Word::kTrue;
      if (is("null", "Null", "NULL")) return Word::kNull;
      return Word::kNone;
    case 5:
      return is("false", "False", "FALSE") ? Word::kFalse : Word::kNone;
    default:
      return Word::kNone;
  }
}

bool is_null_word(std::string_view s) { return plain_word(s) == Word::kNull; }

bool all_digits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::string_view without_sign(std::string_view s) {
  if (!s.empty() && (s[0] == '-' || s[0] == '+')) s.remove_prefix(1);
  return s;
}

// [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?  (hand-written: std::regex recurses
// per character and overflows the stack on long hostile scalars).
bool looks_like_float(std::string_view s) {
  size_t i = 0;
  auto digits = [&] {
    size_t start = i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    return i - start;
  };
  if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
  size_t int_digits = digits();
  size_t frac_digits = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    frac_digits = digits();
  }
  if (int_digits == 0 && frac_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '-' || s[i] == '+')) ++i;
    if (digits() == 0) return false;
  }
  return i == s.size();
}

}  // namespace

nlohmann::json resolve_plain(std::string s) {
  switch (plain_word(s)) {
    case Word::kNull: return nullptr;
    case Word::kTrue: return true;
    case Word::kFalse: return false;
    case Word::kNone: break;
  }
  const std::string_view digits = without_sign(s);
  if (all_digits(digits)) {
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
  if (looks_like_float(s)) {
    double v = std::strtod(s.c_str(), nullptr);
    if (std::isfinite(v)) return v;
  }
  // .inf / .nan have no JSON form: keep them as strings.
  return s;
}

bool plain_is_null(std::string_view s) { return is_null_word(s); }

bool plain_is_string(std::string_view s) {
  if (plain_word(s) != Word::kNone) return false;
  if (all_digits(without_sign(s))) return false;  // an integer, or a float beyond 64 bits
  if (looks_like_float(s)) return !std::isfinite(std::strtod(std::string(s).c_str(), nullptr));
  return true;
}

bool valid_utf8(std::string_view s) {
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
