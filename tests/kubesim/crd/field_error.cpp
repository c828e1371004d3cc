#include "kubesim/crd/field_error.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace kubesim::crd {

using nlohmann::json;

FieldError FieldError::invalid(std::string field, json value, std::string detail) {
  return {"FieldValueInvalid", std::move(field), std::move(value), std::move(detail)};
}
FieldError FieldError::type_invalid(std::string field, json value, std::string detail) {
  return {"FieldValueTypeInvalid", std::move(field), std::move(value), std::move(detail)};
}
FieldError FieldError::required(std::string field, std::string detail) {
  return {"FieldValueRequired", std::move(field), "", std::move(detail)};
}
FieldError FieldError::forbidden(std::string field, std::string detail) {
  return {"FieldValueForbidden", std::move(field), "", std::move(detail)};
}
FieldError FieldError::not_supported(std::string field, json value, const std::vector<std::string>& valid) {
  std::string detail;
  for (const auto& v : valid) detail += (detail.empty() ? "supported values: " : ", ") + go_quote(v);
  return {"FieldValueNotSupported", std::move(field), std::move(value), detail};
}
FieldError FieldError::duplicate(std::string field, json value) {
  return {"FieldValueDuplicate", std::move(field), std::move(value), ""};
}
FieldError FieldError::too_long(std::string field, json value, int64_t max_length) {
  return {"FieldValueTooLong", std::move(field), std::move(value),
          max_length >= 0 ? "may not be longer than " + std::to_string(max_length) : "value is too long"};
}
FieldError FieldError::too_many(std::string field, int64_t actual, int64_t max_items) {
  FieldError e{"FieldValueTooMany", std::move(field), actual,
               max_items >= 0 ? "must have at most " + std::to_string(max_items) + " items" : "has too many items"};
  e.omit_value = actual < 0;
  return e;
}

namespace {

const char* type_text(const std::string& type) {
  if (type == "FieldValueNotFound") return "Not found";
  if (type == "FieldValueRequired") return "Required value";
  if (type == "FieldValueDuplicate") return "Duplicate value";
  if (type == "FieldValueNotSupported") return "Unsupported value";
  if (type == "FieldValueForbidden") return "Forbidden";
  if (type == "FieldValueTooLong") return "Too long";
  if (type == "FieldValueTooMany") return "Too many";
  if (type == "InternalError") return "Internal error";
  return "Invalid value";  // FieldValueInvalid, FieldValueTypeInvalid
}

// %#v of a value inside a map or slice of interface{}.
std::string go_sharp(const json& v) {
  if (v.is_null()) return "interface {}(nil)";
  if (v.is_string()) return go_quote(v.get<std::string>());
  if (v.is_object()) {
    std::string s = "map[string]interface {}{";
    bool first = true;
    for (const auto& [k, e] : v.items()) {
      s += (first ? "" : ", ") + go_quote(k) + ":" + go_sharp(e);
      first = false;
    }
    return s + "}";
  }
  if (v.is_array()) {
    std::string s = "[]interface {}{";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + go_sharp(v[i]);
    return s + "}";
  }
  return go_value(v);
}

}  // namespace

std::string go_float(double v) {
  if (std::isnan(v)) return "NaN";
  if (std::isinf(v)) return v > 0 ? "+Inf" : "-Inf";
  if (v == 0) return std::signbit(v) ? "-0" : "0";
  // Shortest round-trip digits, then %g's layout: exponent form below 1e-4 and from 1e+06 on.
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);
  std::string sci(buf, r.ptr);  // d.ddde[+-]xx
  size_t e = sci.find('e');
  std::string mant = sci.substr(0, e);
  int exp = std::stoi(sci.substr(e + 1));
  bool neg = mant[0] == '-';
  if (neg) mant.erase(0, 1);
  std::string digits;
  for (char c : mant)
    if (c != '.') digits += c;
  std::string out;
  if (exp < -4 || exp >= 6) {
    out = digits.substr(0, 1);
    if (digits.size() > 1) out += "." + digits.substr(1);
    char eb[16];
    std::snprintf(eb, sizeof eb, "e%c%02d", exp < 0 ? '-' : '+', std::abs(exp));
    out += eb;
  } else if (exp < 0) {
    out = "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
  } else if (static_cast<size_t>(exp) + 1 >= digits.size()) {
    out = digits + std::string(static_cast<size_t>(exp) + 1 - digits.size(), '0');
  } else {
    out = digits.substr(0, static_cast<size_t>(exp) + 1) + "." + digits.substr(static_cast<size_t>(exp) + 1);
  }
  return neg ? "-" + out : out;
}

std::string go_quote(const std::string& s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '"': out += "\\\""; continue;
      case '\\': out += "\\\\"; continue;
      case '\a': out += "\\a"; continue;
      case '\b': out += "\\b"; continue;
      case '\f': out += "\\f"; continue;
      case '\n': out += "\\n"; continue;
      case '\r': out += "\\r"; continue;
      case '\t': out += "\\t"; continue;
      case '\v': out += "\\v"; continue;
      default: break;
    }
    if (c < 0x20 || c == 0x7f) {
      char b[8];
      std::snprintf(b, sizeof b, "\\x%02x", c);
      out += b;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

std::string go_value(const json& v) {
  if (v.is_string()) return go_quote(v.get<std::string>());
  if (v.is_number_float()) return go_float(v.get<double>());
  if (v.is_number_unsigned()) return std::to_string(v.get<uint64_t>());
  if (v.is_number_integer()) return std::to_string(v.get<int64_t>());
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_null()) return "\"null\"";
  return go_sharp(v);
}

std::string FieldError::body() const {
  std::string s = type_text(type);
  if (!(type == "FieldValueRequired" || type == "FieldValueForbidden" || type == "FieldValueTooLong" ||
        type == "InternalError" || omit_value))
    s += ": " + (printed_value.empty() ? go_value(value) : printed_value);
  if (!detail.empty()) s += ": " + detail;
  return s;
}

json FieldError::cause() const { return {{"reason", type}, {"message", body()}, {"field", field}}; }

}  // namespace kubesim::crd
