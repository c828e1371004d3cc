// Resource quantities as apimachinery's ParseQuantity reads them and Quantity.String()
// writes them (resource/quantity.go: parseQuantityString, CanonicalizeBytes; suffix.go):
// one parse into an exact value, which the grammar check, the milli value and the
// canonical form all read. Arithmetic is on decimal digit strings, so any size the grammar
// allows is exact.
#include "kubesim/cluster/quantity.h"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace kubesim::cluster {
namespace {

enum class Format { decimal_si, binary_si, decimal_exponent };

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::string strip_leading_zeros(const std::string& d) {
  size_t i = d.find_first_not_of('0');
  return i == std::string::npos ? "0" : d.substr(i);
}

// d * m for a small m.
std::string multiply(const std::string& d, int m) {
  std::string out;
  int carry = 0;
  for (auto it = d.rbegin(); it != d.rend(); ++it) {
    int v = (*it - '0') * m + carry;
    out.push_back(static_cast<char>('0' + v % 10));
    carry = v / 10;
  }
  while (carry > 0) {
    out.push_back(static_cast<char>('0' + carry % 10));
    carry /= 10;
  }
  std::reverse(out.begin(), out.end());
  return strip_leading_zeros(out);
}

// d + 1.
std::string increment(std::string d) {
  size_t i = d.size();
  while (i > 0 && d[i - 1] == '9') d[--i] = '0';
  if (i == 0) {
    d.insert(d.begin(), '1');
  } else {
    ++d[i - 1];
  }
  return d;
}

// d / m when exact; nullopt otherwise.
std::optional<std::string> divide_exact(const std::string& d, int m) {
  std::string out;
  long rem = 0;
  for (char c : d) {
    rem = rem * 10 + (c - '0');
    out.push_back(static_cast<char>('0' + rem / m));
    rem %= m;
  }
  if (rem != 0) return std::nullopt;
  return strip_leading_zeros(out);
}

// a < b for digit strings without leading zeros.
bool less(const std::string& a, const std::string& b) {
  return a.size() != b.size() ? a.size() < b.size() : a < b;
}

struct Suffix {
  Format format;
  int base;  // 10 or 2
  long exponent;
};

// quantitySuffixer.interpret.
std::optional<Suffix> interpret(const std::string& s) {
  static const std::pair<const char*, int> kDecimal[] = {{"n", -9}, {"u", -6}, {"m", -3}, {"", 0},  {"k", 3},
                                                         {"M", 6},  {"G", 9},  {"T", 12}, {"P", 15}, {"E", 18}};
  static const std::pair<const char*, int> kBinary[] = {{"Ki", 10}, {"Mi", 20}, {"Gi", 30},
                                                        {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  for (const auto& [text, e] : kDecimal)
    if (s == text) return Suffix{Format::decimal_si, 10, e};
  for (const auto& [text, e] : kBinary)
    if (s == text) return Suffix{Format::binary_si, 2, e};
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    size_t i = 1;
    bool negative = false;
    if (s[i] == '+' || s[i] == '-') negative = s[i++] == '-';
    if (i == s.size() || s.size() - i > 9) return std::nullopt;  // ParseInt(..., 32) range, roughly
    long e = 0;
    for (; i < s.size(); ++i) {
      if (!is_digit(s[i])) return std::nullopt;
      e = e * 10 + (s[i] - '0');
    }
    return Suffix{Format::decimal_exponent, 10, negative ? -e : e};
  }
  return std::nullopt;
}

struct Parsed {
  bool negative = false;
  std::string num, denom, suffix;
};

// parseQuantityString.
std::optional<Parsed> split(const std::string& str) {
  Parsed p;
  size_t pos = 0, end = str.size();
  if (pos < end && (str[0] == '-' || str[0] == '+')) p.negative = str[pos++] == '-';
  while (pos < end && str[pos] == '0') ++pos;
  if (pos >= end) {
    p.num = "0";
    return p;
  }
  size_t start = pos;
  while (pos < end && is_digit(str[pos])) ++pos;
  p.num = pos == start ? "0" : str.substr(start, pos - start);
  if (pos < end && str[pos] == '.') {
    start = ++pos;
    while (pos < end && is_digit(str[pos])) ++pos;
    p.denom = str.substr(start, pos - start);
  }
  size_t suffix_start = pos;
  while (pos < end && std::string_view("eEinumkKMGTP").find(str[pos]) != std::string_view::npos) ++pos;
  if (pos < end && (str[pos] == '-' || str[pos] == '+')) ++pos;
  while (pos < end && is_digit(str[pos])) ++pos;
  if (pos < end) return std::nullopt;
  p.suffix = str.substr(suffix_start);
  return p;
}

// The value of `text` as a digit string of nano units, rounded up (away from zero) as
// ParseQuantity does, with its sign and suffix family.
struct ExactValue {
  bool negative = false;
  Format format = Format::decimal_si;
  std::string nanos;
};

enum class ParseStatus { ok, format_wrong, bad_suffix, out_of_range };

ParseStatus parse_exact(const std::string& text, ExactValue& out) {
  if (text.empty()) return ParseStatus::format_wrong;
  auto parts = split(text);
  if (!parts) return ParseStatus::format_wrong;
  auto suffix = interpret(parts->suffix);
  if (!suffix) return ParseStatus::bad_suffix;
  // Keeps the digit strings bounded: no real quantity comes near.
  if (suffix->exponent > 4096 || suffix->exponent < -4096 || text.size() > 4096) return ParseStatus::out_of_range;
  out.negative = parts->negative;
  out.format = suffix->format;

  // value = digits * 10^exp10 (binary suffixes multiplied in).
  std::string digits = strip_leading_zeros(parts->num + parts->denom);
  long exp10 = -static_cast<long>(parts->denom.size());
  if (suffix->base == 10) {
    exp10 += suffix->exponent;
  } else {
    for (long i = 0; i < suffix->exponent / 10; ++i) digits = multiply(digits, 1024);
  }

  // Nano units, rounded up (away from zero) as ParseQuantity does.
  long shift = exp10 + 9;
  if (shift >= 0) {
    out.nanos = digits == "0" ? "0" : digits + std::string(static_cast<size_t>(shift), '0');
  } else {
    size_t cut = static_cast<size_t>(-shift);
    std::string head = cut >= digits.size() ? "0" : digits.substr(0, digits.size() - cut);
    std::string tail = cut >= digits.size() ? digits : digits.substr(digits.size() - cut);
    out.nanos = strip_leading_zeros(head);
    if (tail.find_first_not_of('0') != std::string::npos) out.nanos = increment(out.nanos);
  }
  return ParseStatus::ok;
}

}  // namespace

std::string quantity_problem(const std::string& text) {
  ExactValue v;
  switch (parse_exact(text, v)) {
    case ParseStatus::format_wrong:
      return "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";
    case ParseStatus::bad_suffix: return "unable to parse quantity's suffix";
    default: return "";
  }
}

int64_t parse_milli(const std::string& text) {
  ExactValue v;
  const ParseStatus status = parse_exact(text, v);
  if (status == ParseStatus::format_wrong || status == ParseStatus::bad_suffix)
    throw std::invalid_argument("invalid quantity \"" + text + "\"");
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
  if (status == ParseStatus::out_of_range) return v.negative ? -kMax - 1 : kMax;  // saturates
  // Milli units, rounded up (away from zero) as MilliValue does.
  std::string milli = v.nanos.size() > 6 ? v.nanos.substr(0, v.nanos.size() - 6) : "0";
  const std::string rest = v.nanos.size() > 6 ? v.nanos.substr(v.nanos.size() - 6) : v.nanos;
  if (rest.find_first_not_of('0') != std::string::npos) milli = increment(milli);
  if (less("9223372036854775807", milli)) return v.negative ? -kMax - 1 : kMax;
  const int64_t magnitude = std::stoll(milli);
  return v.negative ? -magnitude : magnitude;
}

std::optional<std::string> canonical_quantity(const std::string& text) {
  ExactValue v;
  if (parse_exact(text, v) != ParseStatus::ok) return std::nullopt;
  std::string nanos = v.nanos;
  Format format = v.format;
  if (nanos == "0") return std::string("0");

  // Binary quantities are capped at the int64 maximum.
  const std::string kMaxNanos = "9223372036854775807000000000";
  if (format == Format::binary_si && less(kMaxNanos, nanos)) nanos = kMaxNanos;

  const std::string sign = v.negative ? "-" : "";
  if (format == Format::binary_si) {
    const bool whole = nanos.size() > 9 && nanos.find_first_not_of('0', nanos.size() - 9) == std::string::npos;
    if (!less(nanos, "1024000000000") && whole) {
      std::string units = nanos.substr(0, nanos.size() - 9);
      static const char* kBinary[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
      int k = 0;
      while (k < 6) {
        auto q = divide_exact(units, 1024);
        if (!q) break;
        units = *q;
        ++k;
      }
      return sign + units + kBinary[k];
    }
    format = Format::decimal_si;  // below 1024 or fractional: shown in decimal
  }

  // Mantissa and a base-10 exponent that is a multiple of 3 (AsCanonicalBytes).
  size_t trailing = nanos.size() - 1 - nanos.find_last_not_of('0');
  std::string mantissa = nanos.substr(0, nanos.size() - trailing);
  long exponent = static_cast<long>(trailing) - 9;
  long extra = ((exponent % 3) + 3) % 3;
  mantissa += std::string(static_cast<size_t>(extra), '0');
  exponent -= extra;

  static const std::pair<long, const char*> kDecimal[] = {{-9, "n"}, {-6, "u"}, {-3, "m"}, {0, ""},   {3, "k"},
                                                          {6, "M"},  {9, "G"},  {12, "T"}, {15, "P"}, {18, "E"}};
  if (format == Format::decimal_si) {
    for (const auto& [e, text] : kDecimal)
      if (e == exponent) return sign + mantissa + text;
  }
  return sign + mantissa + (exponent == 0 ? "" : "e" + std::to_string(exponent));
}

}  // namespace kubesim::cluster
