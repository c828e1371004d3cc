#include "kubesim/validation/field_errors.h"

#include <cstdio>
#include <map>

namespace kubesim::validation {

using nlohmann::json;

void ErrorList::add(const char* reason, const std::string& field, const std::string& body) {
  causes_.push_back({{"reason", reason}, {"field", field}, {"message", body}});
}

void ErrorList::append(const ErrorList& other) {
  for (const auto& c : other.causes_) causes_.push_back(c);
}

void ErrorList::required(const std::string& field, const std::string& detail) {
  add("FieldValueRequired", field, detail.empty() ? "Required value" : "Required value: " + detail);
}

void ErrorList::invalid(const std::string& field, const std::string& value, const std::string& detail) {
  add("FieldValueInvalid", field, "Invalid value: " + value + (detail.empty() ? "" : ": " + detail));
}

void ErrorList::not_supported(const std::string& field, const std::string& value,
                              const std::vector<std::string>& supported) {
  std::string body = "Unsupported value: " + value;
  if (!supported.empty()) {
    body += ": supported values: ";
    for (size_t i = 0; i < supported.size(); ++i) body += (i ? ", " : "") + go_quote(supported[i]);
  }
  add("FieldValueNotSupported", field, body);
}

void ErrorList::forbidden(const std::string& field, const std::string& detail) {
  add("FieldValueForbidden", field, detail.empty() ? "Forbidden" : "Forbidden: " + detail);
}

void ErrorList::duplicate(const std::string& field, const std::string& value) {
  add("FieldValueDuplicate", field, "Duplicate value: " + value);
}

void ErrorList::not_found(const std::string& field, const std::string& value) {
  add("FieldValueNotFound", field, "Not found: " + value);
}

void ErrorList::too_long(const std::string& field, int64_t max_bytes) {
  add("FieldValueTooLong", field, "Too long: must have at most " + std::to_string(max_bytes) + " bytes");
}

void ErrorList::invalid_each(const std::string& field, const std::string& value,
                             const std::vector<std::string>& messages) {
  for (const auto& m : messages) invalid(field, value, m);
}

namespace {

// Length of the UTF-8 sequence starting at s[i], 0 when it is not valid UTF-8.
size_t utf8_length(const std::string& s, size_t i) {
  const auto b = static_cast<unsigned char>(s[i]);
  size_t n = b >= 0xF0 && b <= 0xF4 ? 4 : b >= 0xE0 ? 3 : b >= 0xC2 && b < 0xE0 ? 2 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  for (size_t k = 1; k < n; ++k)
    if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return 0;
  return n;
}

}  // namespace

std::string go_quote(const std::string& s) {
  std::string out = "\"";
  char buf[8];
  for (size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      switch (c) {
        case '\a': out += "\\a"; break;
        case '\b': out += "\\b"; break;
        case '\f': out += "\\f"; break;
        case '\n': out += "\\n"; break;
        case '\r': out += "\\r"; break;
        case '\t': out += "\\t"; break;
        case '\v': out += "\\v"; break;
        case '\\': out += "\\\\"; break;
        case '"': out += "\\\""; break;
        default:
          if (c < 0x20 || c == 0x7F) {
            std::snprintf(buf, sizeof buf, "\\x%02x", c);
            out += buf;
          } else {
            out += static_cast<char>(c);
          }
      }
      ++i;
      continue;
    }
    // Printable multi-byte characters stay as they are; broken UTF-8 is escaped byte by byte.
    if (size_t n = utf8_length(s, i)) {
      out += s.substr(i, n);
      i += n;
    } else {
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      out += buf;
      ++i;
    }
  }
  return out + "\"";
}

std::string go_int(int64_t v) { return std::to_string(v); }

std::string go_map(const json& labels) {
  if (!labels.is_object()) return "map[string]string(nil)";
  std::map<std::string, std::string> sorted;
  for (const auto& [k, v] : labels.items()) sorted[k] = v.is_string() ? v.get<std::string>() : v.dump();
  std::string out = "map[string]string{";
  bool first = true;
  for (const auto& [k, v] : sorted) {
    out += (first ? "" : ", ") + go_quote(k) + ":" + go_quote(v);
    first = false;
  }
  return out + "}";
}

std::string go_string_slice(const json& list) {
  if (!list.is_array()) return "[]string(nil)";
  std::string out = "[]string{";
  for (size_t i = 0; i < list.size(); ++i)
    out += (i ? ", " : "") + go_quote(list[i].is_string() ? list[i].get<std::string>() : list[i].dump());
  return out + "}";
}

std::string go_label_selector(const json& selector) {
  const json& labels = selector.is_object() && selector.contains("matchLabels") ? selector["matchLabels"] : json();
  std::string out = "v1.LabelSelector{MatchLabels:" + go_map(labels) + ", MatchExpressions:";
  const json* exprs = selector.is_object() ? child(selector, "matchExpressions") : nullptr;
  if (!exprs || !exprs->is_array()) return out + "[]v1.LabelSelectorRequirement(nil)}";
  out += "[]v1.LabelSelectorRequirement{";
  for (size_t i = 0; i < exprs->size(); ++i) {
    const json& e = (*exprs)[i];
    out += std::string(i ? ", " : "") + "v1.LabelSelectorRequirement{Key:" + go_quote(str_of(e, "key")) +
           ", Operator:" + go_quote(str_of(e, "operator")) +
           ", Values:" + go_string_slice(e.is_object() && e.contains("values") ? e["values"] : json()) + "}";
  }
  return out + "}}";
}

std::string go_int_or_string(const json& v) {
  if (v.is_string()) return "intstr.IntOrString{Type:1, IntVal:0, StrVal:" + go_quote(v.get<std::string>()) + "}";
  int64_t n = v.is_number_integer() ? v.get<int64_t>() : 0;
  return "intstr.IntOrString{Type:0, IntVal:" + std::to_string(n) + ", StrVal:\"\"}";
}

const json* child(const json& obj, const char* key) {
  if (!obj.is_object()) return nullptr;
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string str_of(const json& obj, const char* key) {
  const json* c = child(obj, key);
  return c && c->is_string() ? c->get<std::string>() : "";
}

bool has_str(const json& obj, const char* key) {
  const json* c = child(obj, key);
  return c && c->is_string();
}

const json& array_of(const json& obj, const char* key) {
  static const json empty = json::array();
  const json* c = child(obj, key);
  return c && c->is_array() ? *c : empty;
}

const json& object_of(const json& obj, const char* key) {
  static const json empty = json::object();
  const json* c = child(obj, key);
  return c && c->is_object() ? *c : empty;
}

std::string index_path(const std::string& base, size_t i) { return base + "[" + std::to_string(i) + "]"; }
std::string key_path(const std::string& base, const std::string& key) { return base + "[" + key + "]"; }

}  // namespace kubesim::validation
