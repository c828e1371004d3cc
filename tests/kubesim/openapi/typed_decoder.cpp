#include "kubesim/openapi/typed_decoder.h"

#include "kubesim/cluster/quantity.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>

namespace kubesim::openapi {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

// Marks the second and later occurrences of a key (parse_keeping_duplicates).
constexpr char kDuplicateMark = '\x1f';

bool is_duplicate_key(const std::string& k) { return !k.empty() && k[0] == kDuplicateMark; }
std::string real_key(const std::string& k) {
  if (!is_duplicate_key(k)) return k;
  auto end = k.find(kDuplicateMark, 1);
  return end == std::string::npos ? k : k.substr(end + 1);
}

std::string quote(const std::string& s) { return json(s).dump(-1, ' ', false, json::error_handler_t::replace); }

// How encoding/json names a JSON value's kind in an UnmarshalTypeError.
template <class J>
std::string json_kind(const J& v) {
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "bool";
  if (v.is_number()) return "number";
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  return "null";
}

template <class J>
std::string number_text(const J& v) {
  if (v.is_number_float()) return json(v.template get<double>()).dump();
  return v.dump();
}

// ---- encoding/json ----------------------------------------------------------

template <class J>
class JsonDecoder {
 public:
  DecodeFindings findings;

  void value(const SchemaNode& n, J& v, const std::string& path, std::vector<std::string>& fields,
             const std::string& go_struct) {
    if (aborted_ || v.is_null()) return;  // null leaves the Go zero value: never an error
    switch (n.shape) {
      case Shape::Any: return;
      case Shape::Struct: return structure(n, v, path, fields, go_struct);
      case Shape::Map: {
        if (!v.is_object()) return type_error(json_kind(v), n, fields, go_struct);
        const json* e = n.element();
        SchemaNode elem = e ? resolve(*e) : SchemaNode{};
        for (auto it = v.begin(); it != v.end(); ++it) {
          const std::string key = real_key(it.key());
          if (is_duplicate_key(it.key())) strict("duplicate field", join(path, key));
          value(elem, it.value(), join(path, key), fields, go_struct);
        }
        return;
      }
      case Shape::List: {
        if (!v.is_array()) return type_error(json_kind(v), n, fields, go_struct);
        const json* e = n.element();
        SchemaNode elem = e ? resolve(*e) : SchemaNode{};
        for (size_t i = 0; i < v.size(); ++i)
          value(elem, v[i], path + "[" + std::to_string(i) + "]", fields, go_struct);
        return;
      }
      case Shape::String:
        if (!v.is_string()) type_error(json_kind(v), n, fields, go_struct);
        return;
      case Shape::Bytes:
        if (!v.is_string() && !v.is_array()) type_error(json_kind(v), n, fields, go_struct);
        return;
      case Shape::Bool:
        if (!v.is_boolean()) type_error(json_kind(v), n, fields, go_struct);
        return;
      case Shape::Float:
        if (!v.is_number()) type_error(json_kind(v), n, fields, go_struct);
        return;
      case Shape::Int32:
      case Shape::Int64:
        if (!v.is_number()) return type_error(json_kind(v), n, fields, go_struct);
        if (!fits(v, n.shape == Shape::Int32)) type_error("number " + number_text(v), n, fields, go_struct);
        return;
      case Shape::IntOrString:
        // IntOrString.UnmarshalJSON: a string, else json.Unmarshal into an int32.
        if (v.is_string()) return;
        if (v.is_number() && fits(v, true)) return;
        return abort("json: cannot unmarshal " + (v.is_number() ? "number " + number_text(v) : json_kind(v)) +
                     " into Go value of type int32");
      case Shape::Quantity:
        // Quantity.UnmarshalJSON: the text (quotes stripped) through ParseQuantity.
        if (v.is_string() || v.is_number()) {
          const std::string problem = cluster::quantity_problem(v.is_string() ? v.template get<std::string>() : number_text(v));
          if (problem.empty()) return;
          return abort(problem);
        }
        return abort(cluster::quantity_problem(""));
      case Shape::Time:
        // Time.UnmarshalJSON: json.Unmarshal into a string first.
        if (!v.is_string()) abort("json: cannot unmarshal " + json_kind(v) + " into Go value of type string");
        return;
    }
  }

  static std::string join(const std::string& path, const std::string& key) { return path.empty() ? key : path + "." + key; }

 private:
  bool aborted_ = false;
  std::set<std::string> seen_;

  void structure(const SchemaNode& n, J& v, const std::string& path, std::vector<std::string>& fields,
                 const std::string& go_struct) {
    if (!v.is_object()) return type_error(json_kind(v), n, fields, go_struct);
    std::vector<std::string> unknown;
    for (auto it = v.begin(); it != v.end() && !aborted_; ++it) {
      const std::string key = real_key(it.key());
      const json* f = n.field(key);
      if (!f) {
        strict("unknown field", join(path, key));
        unknown.push_back(it.key());
        continue;
      }
      if (is_duplicate_key(it.key())) strict("duplicate field", join(path, key));
      fields.push_back(key);
      value(resolve(*f), it.value(), join(path, key), fields, n.go_struct());
      fields.pop_back();
    }
    for (const auto& k : unknown) v.erase(k);
  }

  static bool fits(const J& v, bool int32) {
    if (v.is_number_float()) return false;  // ParseInt refuses "1.5" and "1e3"
    if (v.is_number_unsigned() && v.template get<uint64_t>() > uint64_t(std::numeric_limits<int64_t>::max())) return false;
    const int64_t i = v.template get<int64_t>();
    return !int32 || (i >= std::numeric_limits<int32_t>::min() && i <= std::numeric_limits<int32_t>::max());
  }

  // UnmarshalTypeError: saved, decoding goes on; the first one is reported.
  void type_error(const std::string& what, const SchemaNode& n, const std::vector<std::string>& fields,
                  const std::string& go_struct) {
    if (!findings.error.empty()) return;
    std::string where;
    if (!fields.empty() || !go_struct.empty()) {
      std::string f;
      for (const auto& s : fields) f += (f.empty() ? "" : ".") + s;
      where = "Go struct field " + go_struct + "." + f;
    } else {
      where = "Go value";
    }
    findings.error = "json: cannot unmarshal " + what + " into " + where + " of type " + n.go_type();
  }
  // An UnmarshalJSON method's error: decoding stops there.
  void abort(const std::string& msg) {
    findings.error = msg;
    aborted_ = true;
  }
  void strict(const std::string& what, const std::string& path) {
    std::string msg = what + " " + quote(path);
    if (findings.strict.size() < 100 && seen_.insert(msg).second) findings.strict.push_back(msg);
  }
};

template <class J>
void resolve_duplicate_marks(J& v) {
  if (v.is_array()) {
    for (auto& e : v) resolve_duplicate_marks(e);
    return;
  }
  if (!v.is_object()) return;
  std::vector<std::string> marked;
  for (auto it = v.begin(); it != v.end(); ++it) {
    resolve_duplicate_marks(it.value());
    if (is_duplicate_key(it.key())) marked.push_back(it.key());
  }
  for (const auto& k : marked) {  // the last occurrence wins, as in Go
    v[real_key(k)] = std::move(v[k]);
    v.erase(k);
  }
}

template <class J>
DecodeFindings decode(const SchemaNode& root, J& body) {
  JsonDecoder<J> d;
  std::vector<std::string> fields;
  d.value(root, body, "", fields, "");
  resolve_duplicate_marks(body);
  return std::move(d.findings);
}

// ---- runtime.DefaultUnstructuredConverter -----------------------------------

// reflect.Kind / Type names of what json.Unmarshal into interface{} produced.
std::string go_kind(const json& v) {
  if (v.is_string()) return "string";
  if (v.is_boolean()) return "bool";
  if (v.is_number_float()) return "float64";
  if (v.is_number()) return "int64";
  if (v.is_array()) return "slice";
  return "map";
}
std::string go_dynamic_type(const json& v) {
  if (v.is_array()) return "[]interface {}";
  if (v.is_object()) return "map[string]interface {}";
  return go_kind(v);
}

class Converter {
 public:
  DecodeFindings findings;

  void value(const SchemaNode& n, json& v, const std::string& path) {
    if (!findings.error.empty() || v.is_null()) return;
    switch (n.shape) {
      case Shape::Any: return;
      case Shape::Struct: {
        if (!v.is_object()) return fail("cannot restore struct from: " + go_kind(v));
        std::vector<std::string> unknown;
        for (auto it = v.begin(); it != v.end(); ++it) {
          const json* f = n.field(it.key());
          if (!f) {
            unknown.push_back(it.key());
            continue;
          }
          value(resolve(*f), it.value(), JsonDecoder<json>::join(path, it.key()));
          if (!findings.error.empty()) return;
        }
        for (const auto& k : unknown) {
          findings.strict.push_back("unknown field " + quote(JsonDecoder<json>::join(path, k)));
          v.erase(k);
        }
        return;
      }
      case Shape::Map: {
        if (!v.is_object()) return fail("cannot restore map from " + go_kind(v));
        const json* e = n.element();
        SchemaNode elem = e ? resolve(*e) : SchemaNode{};
        for (auto it = v.begin(); it != v.end() && findings.error.empty(); ++it)
          value(elem, it.value(), JsonDecoder<json>::join(path, it.key()));
        return;
      }
      case Shape::List:
      case Shape::Bytes: {
        if (n.shape == Shape::Bytes && v.is_string()) return;
        if (!v.is_array()) return fail("cannot restore slice from " + go_kind(v));
        if (n.shape == Shape::Bytes) return;
        const json* e = n.element();
        SchemaNode elem = e ? resolve(*e) : SchemaNode{};
        for (size_t i = 0; i < v.size() && findings.error.empty(); ++i)
          value(elem, v[i], path + "[" + std::to_string(i) + "]");
        return;
      }
      case Shape::String:
        if (!v.is_string()) fail("cannot convert " + go_dynamic_type(v) + " to string");
        return;
      case Shape::Bool:
        if (!v.is_boolean()) fail("cannot convert " + go_dynamic_type(v) + " to bool");
        return;
      case Shape::Float:
        if (!v.is_number()) fail("cannot convert " + go_dynamic_type(v) + " to float64");
        return;
      case Shape::Int32:
      case Shape::Int64: {
        const std::string to = n.shape == Shape::Int32 ? "int32" : "int64";
        // Integers convert (without a range check); floats only when whole.
        if (v.is_number_float() && v.get<double>() == static_cast<double>(static_cast<int64_t>(v.get<double>()))) return;
        if (v.is_number_integer() || v.is_number_unsigned()) return;
        fail("cannot convert " + go_dynamic_type(v) + " to " + to);
        return;
      }
      case Shape::IntOrString:
      case Shape::Quantity:
      case Shape::Time: {
        // Types with their own JSON form: a round trip through their UnmarshalJSON.
        JsonDecoder<json> d;
        std::vector<std::string> fields;
        d.value(n, v, path, fields, "");
        if (!d.findings.error.empty()) fail(d.findings.error);
        return;
      }
    }
  }

 private:
  void fail(const std::string& msg) {
    if (findings.error.empty()) findings.error = msg;
  }
};

// ---- structured-merge-diff ---------------------------------------------------

// The smd scalar kinds kube-openapi's schemaconv maps the document to.
enum class Scalar { Numeric, String, Boolean, Untyped };

// fmt's %v of smd's value wrapper around an unstructured Go value: &{<%v of the value>}.
std::string go_value_v(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_number_float()) return json(v.get<double>()).dump();
  if (v.is_array()) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + go_value_v(v[i]);
    return s + "]";
  }
  if (v.is_object()) {
    std::string s = "map[";
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it, first = false) s += (first ? "" : " ") + it.key() + ":" + go_value_v(it.value());
    return s + "]";
  }
  if (v.is_null()) return "<nil>";
  return v.dump();
}
// %#v of an unstructured Go value.
std::string go_value_sharp(const json& v) {
  if (v.is_string()) return quote(v.get<std::string>());
  if (v.is_number_float()) return json(v.get<double>()).dump();
  if (v.is_array()) {
    std::string s = "[]interface {}{";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + go_value_sharp(v[i]);
    return s + "}";
  }
  if (v.is_object()) {
    std::string s = "map[string]interface {}{";
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it, first = false)
      s += (first ? "" : ", ") + quote(it.key()) + ":" + go_value_sharp(it.value());
    return s + "}";
  }
  if (v.is_null()) return "interface {}(nil)";
  return v.dump();
}

class ApplyValidator {
 public:
  std::vector<std::string> errors;

  void value(const SchemaNode& n, const json& v, const std::string& path) {
    if (v.is_null()) return;
    switch (n.shape) {
      case Shape::Any: return;
      case Shape::Struct:
      case Shape::Map: {
        if (!v.is_object()) return error(path, "expected map, got &{" + go_value_v(v) + "}");
        const json* e = n.element();
        for (auto it = v.begin(); it != v.end(); ++it) {
          const std::string p = path + "." + it.key();
          if (n.shape == Shape::Map) {
            list_schema_ = e;
            value(e ? resolve(*e) : SchemaNode{}, it.value(), p);
            continue;
          }
          const json* f = n.field(it.key());
          if (!f) {
            error(p, "field not declared in schema");
            return;  // smd stops walking this map at its first unknown field
          }
          list_schema_ = f;
          value(resolve(*f), it.value(), p);
        }
        return;
      }
      case Shape::List: {
        const json* declared = list_schema_;
        if (!v.is_array()) return error(path, "expected list, got &{" + go_value_v(v) + "}");
        const json* e = n.element();
        SchemaNode elem = e ? resolve(*e) : SchemaNode{};
        std::vector<std::string> keys;
        std::string list_type = declared ? declared->value("x-kubernetes-list-type", "") : "";
        if (declared && declared->contains("x-kubernetes-list-map-keys") && (*declared)["x-kubernetes-list-map-keys"].is_array())
          for (const auto& k : (*declared)["x-kubernetes-list-map-keys"])
            if (k.is_string()) keys.push_back(k);
        if (list_type.empty() && declared && declared->value("x-kubernetes-patch-strategy", "").find("merge") != std::string::npos) {
          list_type = declared->contains("x-kubernetes-patch-merge-key") ? "map" : "set";
          if (list_type == "map") keys = {declared->value("x-kubernetes-patch-merge-key", "")};
        }
        std::sort(keys.begin(), keys.end());
        for (size_t i = 0; i < v.size(); ++i) {
          const json& item = v[i];
          std::string element = "[" + std::to_string(i) + "]";
          if (list_type == "map" && !keys.empty() && item.is_object()) {
            element = "[";
            // A key the item omits is defaulted by the server's own schema (e.g. a port's
            // protocol), which the v2 document does not carry: such keys are left out.
            bool first = true;
            for (const auto& k : keys) {
              if (!item.contains(k)) continue;
              element += (first ? "" : ",") + k + "=" + item[k].dump();
              first = false;
            }
            element += "]";
          } else if (list_type == "set" && !item.is_object() && !item.is_array()) {
            element = "[=" + item.dump() + "]";
          }
          list_schema_ = e;
          value(elem, item, path + element);
        }
        return;
      }
      case Shape::String:
      case Shape::Bytes: return scalar(Scalar::String, v, path);
      case Shape::Int32:
      case Shape::Int64:
      case Shape::Float: return scalar(Scalar::Numeric, v, path);
      case Shape::Bool: return scalar(Scalar::Boolean, v, path);
      case Shape::IntOrString:
      case Shape::Quantity:
      case Shape::Time: return scalar(Scalar::Untyped, v, path);
    }
  }

 private:
  const json* list_schema_ = nullptr;  // the property schema of the list being entered (its x- extensions)

  void error(const std::string& path, const std::string& msg) { errors.push_back(path + ": " + msg); }
  void scalar(Scalar s, const json& v, const std::string& path) {
    switch (s) {
      case Scalar::Numeric:
        if (!v.is_number()) error(path, "expected numeric (int or float), got " + go_dynamic_type(v));
        return;
      case Scalar::String:
        if (!v.is_string()) error(path, "expected string, got &value.valueUnstructured{Value:" + go_value_sharp(v) + "}");
        return;
      case Scalar::Boolean:
        if (!v.is_boolean()) error(path, "expected boolean, got &{" + go_value_v(v) + "}");
        return;
      case Scalar::Untyped:
        if (v.is_object() || v.is_array()) error(path, "expected any scalar, got &{" + go_value_v(v) + "}");
        return;
    }
  }
};

// ---- parsing with duplicates -------------------------------------------------

class DuplicateKeepingSax {
 public:
  ordered_json root;

  bool null() { return place(nullptr); }
  bool boolean(bool b) { return place(b); }
  bool number_integer(ordered_json::number_integer_t n) { return place(n); }
  bool number_unsigned(ordered_json::number_unsigned_t n) { return place(n); }
  bool number_float(ordered_json::number_float_t f, const std::string&) { return place(f); }
  bool string(std::string& s) { return place(s); }
  bool binary(ordered_json::binary_t&) { return place(nullptr); }
  bool start_object(std::size_t) {
    stack_.push_back(&place_ref(ordered_json::object()));
    return true;
  }
  bool key(std::string& k) {
    ordered_json& top = *stack_.back();
    std::string name = k;
    for (int n = 1; top.contains(name); ++n) name = std::string(1, kDuplicateMark) + std::to_string(n) + kDuplicateMark + k;
    keys_.push_back(name);
    return true;
  }
  bool end_object() {
    stack_.pop_back();
    return true;
  }
  bool start_array(std::size_t) {
    stack_.push_back(&place_ref(ordered_json::array()));
    return true;
  }
  bool end_array() {
    stack_.pop_back();
    return true;
  }
  bool parse_error(std::size_t, const std::string&, const nlohmann::detail::exception&) { return false; }

 private:
  std::vector<ordered_json*> stack_;
  std::vector<std::string> keys_;

  bool place(ordered_json v) {
    place_ref(std::move(v));
    return true;
  }
  ordered_json& place_ref(ordered_json v) {
    if (stack_.empty()) {
      root = std::move(v);
      return root;
    }
    ordered_json& top = *stack_.back();
    if (top.is_array()) {
      top.push_back(std::move(v));
      return top.back();
    }
    std::string k = std::move(keys_.back());
    keys_.pop_back();
    top[k] = std::move(v);
    return top[k];
  }
};

}  // namespace

DecodeFindings decode_json(const SchemaNode& root, json& body) { return decode(root, body); }
DecodeFindings decode_json(const SchemaNode& root, ordered_json& body) { return decode(root, body); }

DecodeFindings convert_unstructured(const SchemaNode& root, json& obj) {
  Converter c;
  c.value(root, obj, "");
  return std::move(c.findings);
}

std::vector<std::string> apply_errors(const SchemaNode& root, const json& obj) {
  ApplyValidator v;
  v.value(root, obj, "");
  return std::move(v.errors);
}

ordered_json parse_keeping_duplicates(const std::string& text) {
  DuplicateKeepingSax sax;
  if (!ordered_json::sax_parse(text, &sax)) throw std::invalid_argument("not JSON");
  return std::move(sax.root);
}

}  // namespace kubesim::openapi
