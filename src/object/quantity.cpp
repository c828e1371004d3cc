#include "dgd/object/quantity.h"

#include <algorithm>
#include <limits>

#include "dgd/object/field_schema.h"

namespace dgd::object {

using nlohmann::json;

namespace {

using i128 = __int128;

constexpr long long kNanoPerUnit = 1'000'000'000LL;
const char* const kQuantityRegexMessage =
    "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

bool mul(i128 a, i128 b, i128* out) { return !__builtin_mul_overflow(a, b, out); }

bool pow10(int exp, i128* out) {
  i128 v = 1;
  for (int i = 0; i < exp; ++i) {
    if (!mul(v, 10, &v)) return false;
  }
  *out = v;
  return true;
}

// Decimal digits of a non-negative int128.
std::string digits(i128 v) {
  if (v == 0) return "0";
  std::string s;
  while (v > 0) {
    s += static_cast<char>('0' + static_cast<int>(v % 10));
    v /= 10;
  }
  std::reverse(s.begin(), s.end());
  return s;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

struct Suffix {
  int base = 10;  // 2 or 10
  int exponent = 0;
  Quantity::Format format = Quantity::Format::kDecimalSI;
};

bool interpret_suffix(std::string_view s, Suffix* out) {
  static const std::pair<std::string_view, int> kBinary[] = {
      {"Ki", 10}, {"Mi", 20}, {"Gi", 30}, {"Ti", 40}, {"Pi", 50}, {"Ei", 60}};
  static const std::pair<std::string_view, int> kDecimal[] = {
      {"n", -9}, {"u", -6}, {"m", -3}, {"", 0}, {"k", 3}, {"M", 6}, {"G", 9}, {"T", 12}, {"P", 15}, {"E", 18}};
  for (const auto& [name, exp] : kBinary) {
    if (s == name) {
      *out = {2, exp, Quantity::Format::kBinarySI};
      return true;
    }
  }
  for (const auto& [name, exp] : kDecimal) {
    if (s == name) {
      *out = {10, exp, Quantity::Format::kDecimalSI};
      return true;
    }
  }
  if (s.size() > 1 && (s[0] == 'e' || s[0] == 'E')) {
    std::string_view rest = s.substr(1);
    bool negative = false;
    if (rest[0] == '+' || rest[0] == '-') {
      negative = rest[0] == '-';
      rest = rest.substr(1);
    }
    if (rest.empty() || rest.size() > 9) return false;
    int e = 0;
    for (char c : rest) {
      if (!is_digit(c)) return false;
      e = e * 10 + (c - '0');
    }
    *out = {10, negative ? -e : e, Quantity::Format::kDecimalExponent};
    return true;
  }
  return false;
}

std::string decimal_suffix(int exponent, Quantity::Format format) {
  if (format == Quantity::Format::kDecimalExponent) {
    return exponent == 0 ? "" : "e" + std::to_string(exponent);
  }
  switch (exponent) {
    case -9: return "n";
    case -6: return "u";
    case -3: return "m";
    case 0: return "";
    case 3: return "k";
    case 6: return "M";
    case 9: return "G";
    case 12: return "T";
    case 15: return "P";
    default: return "E";  // 18; larger exponents use exponent notation (see caller)
  }
}

}  // namespace

std::optional<Quantity> Quantity::parse(std::string_view str) {
  // Mirrors apimachinery parseQuantityString + ParseQuantity.
  if (str.empty()) return std::nullopt;
  size_t pos = 0;
  const size_t end = str.size();
  bool positive = true;
  if (str[0] == '-' || str[0] == '+') {
    positive = str[0] != '-';
    ++pos;
  }
  size_t num_start = pos;
  while (pos < end && is_digit(str[pos])) ++pos;
  std::string_view num = str.substr(num_start, pos - num_start);
  std::string_view denom;
  if (pos < end && str[pos] == '.') {
    ++pos;
    size_t d = pos;
    while (pos < end && is_digit(str[pos])) ++pos;
    denom = str.substr(d, pos - d);
  }
  // Suffix: letters from the suffix alphabet, an optional sign, digits.
  size_t suffix_start = pos;
  while (pos < end && std::string_view("eEinumkKMGTP").find(str[pos]) != std::string_view::npos) ++pos;
  if (pos < end && (str[pos] == '-' || str[pos] == '+')) ++pos;
  while (pos < end && is_digit(str[pos])) ++pos;
  if (pos != end) return std::nullopt;
  std::string_view suffix_text = str.substr(suffix_start);
  Suffix suffix;
  if (!interpret_suffix(suffix_text, &suffix)) return std::nullopt;

  // Integer mantissa of num.denom (leading zeros are harmless).
  std::string all = std::string(num) + std::string(denom);
  size_t first = all.find_first_not_of('0');
  all = first == std::string::npos ? "" : all.substr(first);
  if (all.size() > 36) return std::nullopt;
  i128 mantissa = 0;
  for (char c : all) mantissa = mantissa * 10 + (c - '0');
  const int denom_len = static_cast<int>(denom.size());

  // nanos = mantissa * base^exp * 10^(9 - denom_len), rounded up (away from zero).
  i128 value = mantissa;
  int scale10 = 9 - denom_len;
  if (suffix.base == 2) {
    for (int i = 0; i < suffix.exponent; ++i) {
      if (!mul(value, 2, &value)) return std::nullopt;
    }
  } else {
    scale10 += suffix.exponent;
  }
  if (scale10 >= 0) {
    i128 p;
    if (!pow10(scale10, &p) || !mul(value, p, &value)) return std::nullopt;
  } else if (value != 0) {
    i128 p;
    if (!pow10(-scale10, &p)) {
      value = 1;  // a tiny non-zero value rounds up to 1n
    } else {
      value = value / p + (value % p != 0 ? 1 : 0);
    }
  }

  Quantity q;
  q.format_ = suffix.format;
  if (suffix.format == Format::kBinarySI) {
    // Binary SI is capped at MaxInt64 (apimachinery's maxAllowed).
    const i128 cap = static_cast<i128>(std::numeric_limits<long long>::max()) * kNanoPerUnit;
    if (value > cap) value = cap;
    if (value > 0 && value < kNanoPerUnit) q.format_ = Format::kDecimalSI;
  }
  q.nanos_ = positive ? value : -value;
  return q;
}

std::string Quantity::to_string() const {
  if (nanos_ == 0) return "0";
  const bool negative = nanos_ < 0;
  const i128 abs = negative ? -nanos_ : nanos_;
  const std::string sign = negative ? "-" : "";
  Format format = format_;
  if (format == Format::kBinarySI) {
    if (abs < static_cast<i128>(1024) * kNanoPerUnit || abs % kNanoPerUnit != 0) format = Format::kDecimalSI;
  }
  if (format == Format::kBinarySI) {
    i128 v = abs / kNanoPerUnit;
    int exp2 = 0;
    while (v % 1024 == 0 && exp2 < 60) {
      v /= 1024;
      exp2 += 10;
    }
    static const char* const kNames[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    return sign + digits(v) + kNames[exp2 / 10];
  }
  i128 m = abs;
  int exponent = -9;
  while (m % 10 == 0) {
    m /= 10;
    ++exponent;
  }
  switch (exponent % 3) {
    case 1:
    case -2:
      m *= 10;
      exponent -= 1;
      break;
    case 2:
    case -1:
      m *= 100;
      exponent -= 2;
      break;
    default:
      break;
  }
  // Decimal SI has no suffix above E (1e18): upstream falls back to exponent
  // notation there ("1000E" -> "1e21").
  if (format == Format::kDecimalSI && exponent > 18) format = Format::kDecimalExponent;
  return sign + digits(m) + decimal_suffix(exponent, format);
}

namespace {
long long saturate(i128 v) {
  if (v > std::numeric_limits<long long>::max()) return std::numeric_limits<long long>::max();
  if (v < std::numeric_limits<long long>::min()) return std::numeric_limits<long long>::min();
  return static_cast<long long>(v);
}
// Division rounding away from zero, as apimachinery's ScaledValue does.
i128 div_up(i128 v, i128 d) {
  i128 q = v / d;
  if (v % d != 0) q += v > 0 ? 1 : -1;
  return q;
}
}  // namespace

long long Quantity::milli_value() const { return saturate(div_up(nanos_, 1'000'000)); }
long long Quantity::value() const { return saturate(div_up(nanos_, kNanoPerUnit)); }

int Quantity::compare(const Quantity& other) const {
  if (nanos_ < other.nanos_) return -1;
  if (nanos_ > other.nanos_) return 1;
  return 0;
}

std::optional<std::string> canonical_quantity(const json& value) {
  std::optional<Quantity> q;
  if (value.is_string()) {
    q = Quantity::parse(value.get_ref<const std::string&>());
  } else if (value.is_number_integer() || value.is_number_float()) {
    q = Quantity::parse(value.dump());
  }
  if (!q) return std::nullopt;
  return q->to_string();
}

namespace {

// `path` is the node's field path, extended in place while descending and restored on
// the way back (it is needed only for an error; a string per visited field was most of
// the walk's cost).
void canonicalize_walk(json& node, const FieldSchema& schema, std::string& path) {
  if (schema.quantity) {
    if (node.is_null()) return;
    auto canonical = canonical_quantity(node);
    if (!canonical) {
      throw QuantityError(path, path + ": " + kQuantityRegexMessage + " (got " + node.dump() + ")");
    }
    if (!node.is_string() || node.get_ref<const std::string&>() != *canonical) node = std::move(*canonical);
    return;
  }
  const size_t length = path.size();
  if (node.is_object()) {
    for (auto& [key, child] : node.items()) {
      const FieldSchema& sub = schema.field(key);
      if (!sub.quantity && sub.fields.empty() && !sub.elements) continue;
      path += '.';
      path += key;
      canonicalize_walk(child, sub, path);
      path.resize(length);
    }
  } else if (node.is_array()) {
    const FieldSchema& sub = schema.items();
    if (!sub.quantity && sub.fields.empty() && !sub.elements) return;
    for (size_t i = 0; i < node.size(); ++i) {
      path += '[';
      path += std::to_string(i);
      path += ']';
      canonicalize_walk(node[i], sub, path);
      path.resize(length);
    }
  }
}

}  // namespace

void canonicalize_quantities(json& object, const FieldSchema& schema) {
  std::string path;
  path.reserve(128);
  canonicalize_walk(object, schema, path);
}

void canonicalize_resources(json& pod_spec) { canonicalize_quantities(pod_spec, pod_spec_schema()); }

}  // namespace dgd::object
