// Go's fmt rules for the values encoding/json decodes into interface{}; floats follow
// strconv.FormatFloat(f, 'g', -1, 64).
#include "kubesim/apply/go_value_text.h"

#include <charconv>
#include <cmath>
#include <cstdlib>
#include <vector>

namespace kubesim::apply {

using nlohmann::json;

namespace {

bool integral(const json& v) {
  if (v.is_number_integer()) return true;
  if (!v.is_number_float()) return false;
  const double d = v.get<double>();
  return std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9.2e18;
}

long long as_int64(const json& v) {
  if (v.is_number_unsigned()) return static_cast<long long>(v.get<unsigned long long>());
  if (v.is_number_integer()) return v.get<long long>();
  return static_cast<long long>(v.get<double>());
}

// %g with the shortest digits that read back as `d`: the exponent form when the decimal
// exponent is below -4 or reaches the precision: 6, lowered to the digit count when there
// are fewer digits than that and none of them is a fraction digit (strconv's rule).
std::string go_float(double d) {
  if (std::isnan(d)) return "NaN";
  if (std::isinf(d)) return d > 0 ? "+Inf" : "-Inf";
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, d, std::chars_format::scientific);
  std::string sci(buf, res.ptr);
  std::string sign;
  if (!sci.empty() && sci[0] == '-') {
    sign = "-";
    sci.erase(0, 1);
  }
  const auto e = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e)) {
    if (c != '.') digits.push_back(c);
  }
  const int exp = std::atoi(sci.c_str() + e + 1);
  while (digits.size() > 1 && digits.back() == '0') digits.pop_back();
  const int nd = static_cast<int>(digits.size());
  const int dp = exp + 1;
  int eprec = 6;
  if (eprec > nd && nd >= dp) eprec = nd;
  if (exp < -4 || exp >= eprec) {
    std::string out = sign + digits.substr(0, 1);
    if (nd > 1) out += "." + digits.substr(1);
    const int a = std::abs(exp);
    out += exp < 0 ? "e-" : "e+";
    if (a < 10) out += "0";
    out += std::to_string(a);
    return out;
  }
  std::string out = sign;
  if (dp <= 0) {
    out += "0." + std::string(static_cast<size_t>(-dp), '0') + digits;
  } else if (dp >= nd) {
    out += digits + std::string(static_cast<size_t>(dp - nd), '0');
  } else {
    out += digits.substr(0, static_cast<size_t>(dp)) + "." + digits.substr(static_cast<size_t>(dp));
  }
  return out;
}

}  // namespace

char go_kind(const json& v) {
  if (v.is_object()) return 'm';
  if (v.is_array()) return 'l';
  if (v.is_string()) return 's';
  if (v.is_boolean()) return 'b';
  if (v.is_number()) return integral(v) ? 'i' : 'f';
  return 'n';
}

std::string go_value_text(const json& v) {
  switch (go_kind(v)) {
    case 'm': {
      std::string out = "map[";
      bool first = true;
      for (const auto& [k, child] : v.items()) {  // nlohmann keeps keys sorted, as fmt prints them
        if (!first) out += " ";
        first = false;
        out += k + ":" + go_value_text(child);
      }
      return out + "]";
    }
    case 'l': {
      std::string out = "[";
      for (size_t i = 0; i < v.size(); ++i) out += (i ? " " : "") + go_value_text(v[i]);
      return out + "]";
    }
    case 's': return v.get<std::string>();
    case 'b': return v.get<bool>() ? "true" : "false";
    case 'i': return std::to_string(as_int64(v));
    case 'f': return go_float(v.get<double>());
    default: return "<nil>";
  }
}

std::string go_type_text(const json& v) {
  switch (go_kind(v)) {
    case 'm': return "map[string]interface {}";
    case 'l': return "[]interface {}";
    case 's': return "string";
    case 'b': return "bool";
    case 'i': return "int64";
    case 'f': return "float64";
    default: return "%!s(<nil>)";
  }
}

bool go_scalar_equal(const json& a, const json& b) {
  const char ka = go_kind(a), kb = go_kind(b);
  if (ka != kb) return false;
  if (ka == 'i') return as_int64(a) == as_int64(b);
  return a == b;
}

}  // namespace kubesim::apply
