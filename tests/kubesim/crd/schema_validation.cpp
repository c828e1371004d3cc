#include "kubesim/crd/schema_validation.h"

#include "kubesim/crd/string_formats.h"

#include <re2/re2.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <set>

namespace kubesim::crd {

using nlohmann::json;

namespace {

const std::set<std::string> kObjectMetaFields = {
    "name", "generateName", "namespace", "selfLink", "uid", "resourceVersion", "generation", "creationTimestamp",
    "deletionTimestamp", "deletionGracePeriodSeconds", "labels", "annotations", "ownerReferences", "finalizers",
    "managedFields"};

bool flag(const json& s, const char* key) {
  auto it = s.find(key);
  return it != s.end() && it->is_boolean() && it->get<bool>();
}

const json* child(const json& s, const char* key) {
  auto it = s.find(key);
  return it != s.end() && it->is_object() ? &*it : nullptr;
}

std::string str(const json& s, const char* key) {
  auto it = s.find(key);
  return it != s.end() && it->is_string() ? it->get<std::string>() : "";
}

json list_map_keys(const json& s) {
  auto it = s.find("x-kubernetes-list-map-keys");
  return it != s.end() && it->is_array() ? *it : json::array();
}

std::string type_of(const json& s) {
  auto it = s.find("type");
  return it != s.end() && it->is_string() ? it->get<std::string>() : "";
}

// The path a kube-openapi validator names ("spec.x"; "" at the root).
std::string join(const std::string& path, const std::string& name) { return path.empty() ? name : path + "." + name; }

// The JSON type kube-openapi infers for a decoded value (schemaInfoForType).
std::string json_type(const json& v) {
  if (v.is_boolean()) return "boolean";
  if (v.is_string()) return "string";
  if (v.is_number_integer()) return "integer";
  if (v.is_number_float()) return "number";
  if (v.is_array()) return "array";
  if (v.is_object()) return "object";
  return "null";
}

int64_t rune_count(const std::string& s) {
  int64_t n = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++n;
  return n;
}

const RE2* compiled(const std::string& pattern) {
  static thread_local std::map<std::string, std::unique_ptr<RE2>> cache;
  auto& re = cache[pattern];
  if (!re) {
    RE2::Options o;
    o.set_log_errors(false);
    re = std::make_unique<RE2>(pattern, o);
  }
  return re.get();
}

// Go's %v of a float64 constraint, and of an int64 one for integer data.
std::string bound(double b, bool int_data) {
  return int_data ? std::to_string(static_cast<int64_t>(b)) : go_float(b);
}

bool json_integer(const json& v) { return v.is_number_integer() || v.is_number_unsigned(); }

bool float_is_integer(double d) { return std::isfinite(d) && std::trunc(d) == d; }

bool enum_equal(const json& a, const json& b) {
  if (a.is_number() && b.is_number()) return a.get<double>() == b.get<double>();
  return a == b;
}

class Validator {
 public:
  FieldErrors errors;

  void node(const json& s, const json& v, const json* old, const std::string& path) {
    if (!s.is_object()) return;
    const size_t before = errors.size();
    own(s, v, path);
    // Ratcheting: an unchanged value keeps its own errors from blocking the update.
    if (old && *old == v) errors.resize(before);
    if (v.is_array()) items(s, v, old, path);
    if (v.is_object()) object(s, v, old, path);
  }

 private:
  void add(FieldError e) { errors.push_back(std::move(e)); }

  // kube-openapi's message "<path> in body <what>".
  static std::string in_body(const std::string& path, const std::string& what) { return path + " in body " + what; }

  // The validators of one node, in kube-openapi's order: type, string, format, number, enum, object.
  void own(const json& s, const json& v, const std::string& path) {
    const bool int_or_string = flag(s, "x-kubernetes-int-or-string");
    std::vector<std::string> types;
    if (int_or_string) types = {"integer", "string"};
    else if (!type_of(s).empty()) types = {type_of(s)};
    std::string type_list;
    for (const auto& t : types) type_list += (type_list.empty() ? "" : ",") + t;
    auto contains = [&](const std::string& t) { return std::find(types.begin(), types.end(), t) != types.end(); };
    const std::string format = effective_format(s);

    if (v.is_null()) {
      if (!types.empty() && !contains("null") && !flag(s, "nullable"))
        add(FieldError::type_invalid(path, "null", in_body(path, "must be of type " + type_list + ": \"null\"")));
      enum_check(s, v, path);
      return;
    }
    if (!types.empty() || !format.empty()) {
      const std::string jt = json_type(v);
      const std::string data_format = v.is_number_integer() || v.is_number_unsigned() ? "int64"
                                      : v.is_number_float()                            ? "float64"
                                                                                       : "";
      const bool is_float_int = jt == "number" && float_is_integer(v.get<double>()) && contains("integer");
      const bool is_int_float = jt == "integer" && contains("number");
      const bool str_or_slice = v.is_string() || v.is_array();
      // A string or list under a string format passes the type check (the format validator
      // judges it); anything else must be of the schema's type or format.
      const bool format_judges = !(contains("number") || contains("integer")) && !format.empty() && str_or_slice;
      if (!str_or_slice && !format.empty() &&
          !(contains(jt) || data_format == format || is_float_int || is_int_float))
        add(FieldError::type_invalid(path, data_format, in_body(path, "must be of type " + format + ": " + go_quote(data_format))));
      else if (!format_judges && !types.empty() && !(contains(jt) || is_float_int || is_int_float))
        add(FieldError::type_invalid(path, jt, in_body(path, "must be of type " + type_list + ": " + go_quote(jt))));
    }
    if (v.is_string()) string_checks(s, v.get<std::string>(), path);
    if (v.is_string() && !format.empty() && format_known(format) && !format_valid(format, v.get<std::string>()))
      add(FieldError::type_invalid(path, v, in_body(path, "must be of type " + format + ": " + go_quote(v.get<std::string>()))));
    if (v.is_number()) number_checks(s, v, path);
    // minItems / maxItems come after the items' own errors: see items().
    enum_check(s, v, path);
  }

  void string_checks(const json& s, const std::string& str, const std::string& path) {
    if (auto m = s.find("maxLength"); m != s.end() && m->is_number() && rune_count(str) > m->get<int64_t>()) {
      add(FieldError::too_long(path, str, m->get<int64_t>()));
      return;
    }
    if (auto m = s.find("minLength"); m != s.end() && m->is_number() && rune_count(str) < m->get<int64_t>()) {
      add(FieldError::invalid(path, str, in_body(path, "should be at least " + std::to_string(m->get<int64_t>()) + " chars long")));
      return;
    }
    if (auto p = s.find("pattern"); p != s.end() && p->is_string() && !p->get<std::string>().empty()) {
      const std::string pattern = p->get<std::string>();
      const RE2* re = compiled(pattern);
      if (!re->ok())
        add(FieldError::invalid(path, str, in_body(path, "should match '" + pattern + ", but pattern is invalid: error parsing regexp: " + re->error() + "'")));
      else if (!RE2::PartialMatch(str, *re))
        add(FieldError::invalid(path, str, in_body(path, "should match '" + pattern + "'")));
    }
  }

  void number_checks(const json& s, const json& v, const std::string& path) {
    const bool int_data = json_integer(v);
    const double d = v.get<double>();
    if (auto m = s.find("multipleOf"); m != s.end() && m->is_number()) {
      const double f = m->get<double>();
      if (f < 0) {
        add(FieldError::invalid(path, f, "factor MultipleOf declared for " + path + " must be positive: " + go_float(f)));
      } else if (int_data && static_cast<int64_t>(f) != 0) {
        const int64_t fi = static_cast<int64_t>(f), di = v.get<int64_t>();
        if ((di / fi) * fi != di)
          add(FieldError::invalid(path, v, in_body(path, "should be a multiple of " + std::to_string(fi))));
      } else if (f > 0) {
        const double mult = f < 1 ? 1 / f * d : d / f;
        if (!float_is_integer(mult)) add(FieldError::invalid(path, v, in_body(path, "should be a multiple of " + go_float(f))));
      }
    }
    if (auto m = s.find("minimum"); m != s.end() && m->is_number()) {
      const double b = m->get<double>();
      const bool ex = flag(s, "exclusiveMinimum");
      const bool bad = int_data ? (ex ? v.get<int64_t>() <= static_cast<int64_t>(b) : v.get<int64_t>() < static_cast<int64_t>(b))
                                : (ex ? d <= b : d < b);
      if (bad)
        add(FieldError::invalid(path, v, in_body(path, std::string(ex ? "should be greater than " : "should be greater than or equal to ") + bound(b, int_data))));
    }
    if (auto m = s.find("maximum"); m != s.end() && m->is_number()) {
      const double b = m->get<double>();
      const bool ex = flag(s, "exclusiveMaximum");
      const bool bad = int_data ? (ex ? v.get<int64_t>() >= static_cast<int64_t>(b) : v.get<int64_t>() > static_cast<int64_t>(b))
                                : (ex ? d >= b : d > b);
      if (bad)
        add(FieldError::invalid(path, v, in_body(path, std::string(ex ? "should be less than " : "should be less than or equal to ") + bound(b, int_data))));
    }
  }

  void enum_check(const json& s, const json& v, const std::string& path) {
    auto e = s.find("enum");
    if (e == s.end() || !e->is_array() || e->empty()) return;
    for (const auto& allowed : *e)
      if (!v.is_null() && enum_equal(v, allowed)) return;
    std::vector<std::string> values;
    for (const auto& allowed : *e) values.push_back(allowed.is_string() ? allowed.get<std::string>() : allowed.dump());
    add(FieldError::not_supported(path, v, values));
  }

  void items(const json& s, const json& v, const json* old, const std::string& path) {
    if (const json* it = child(s, "items"))
      for (size_t i = 0; i < v.size(); ++i) {
        // Correlation for ratcheting: list-type map items by key, set items by value.
        const json* old_item = correlated_item(s, v[i], old);
        node(*it, v[i], old_item, path + "[" + std::to_string(i) + "]");
      }
    const size_t before = errors.size();
    const auto size = static_cast<int64_t>(v.size());
    if (auto m = s.find("minItems"); m != s.end() && m->is_number() && size < m->get<int64_t>())
      add(FieldError::invalid(path, size, in_body(path, "should have at least " + std::to_string(m->get<int64_t>()) + " items")));
    if (auto m = s.find("maxItems"); m != s.end() && m->is_number() && size > m->get<int64_t>())
      add(FieldError::too_many(path, size, m->get<int64_t>()));
    if (old && *old == v) errors.resize(before);
  }

  static const json* correlated_item(const json& s, const json& item, const json* old) {
    if (!old || !old->is_array()) return nullptr;
    const std::string list_type = str(s, "x-kubernetes-list-type");
    if (list_type == "set") {
      for (const auto& o : *old)
        if (o == item) return &o;
    } else if (list_type == "map" && item.is_object()) {
      const json keys = list_map_keys(s);
      for (const auto& o : *old) {
        if (!o.is_object()) continue;
        bool same = true;
        for (const auto& k : keys)
          if (k.is_string() && o.value(k.get<std::string>(), json()) != item.value(k.get<std::string>(), json())) same = false;
        if (same) return &o;
      }
    }
    return nullptr;
  }

  void object(const json& s, const json& v, const json* old, const std::string& path) {
    const size_t before = errors.size();
    const auto keys = static_cast<int64_t>(v.size());
    const json* old_obj = old && old->is_object() ? old : nullptr;
    auto ratchet = [&] {
      if (old && *old == v) errors.resize(before);
    };
    if (auto m = s.find("minProperties"); m != s.end() && m->is_number() && keys < m->get<int64_t>()) {
      add(FieldError::invalid(path, keys, in_body(path, "should have at least " + std::to_string(m->get<int64_t>()) + " properties")));
      return ratchet();
    }
    if (auto m = s.find("maxProperties"); m != s.end() && m->is_number() && keys > m->get<int64_t>()) {
      add(FieldError::too_many(path, keys, m->get<int64_t>()));
      return ratchet();
    }
    const json* props = child(s, "properties");
    if (const json* ap = child(s, "additionalProperties"); ap && !props) {
      for (const auto& [k, e] : v.items()) {
        const json* o = old_obj && old_obj->contains(k) ? &(*old_obj)[k] : nullptr;
        node(*ap, e, o, path + "." + k);
      }
    }
    if (props)
      for (const auto& [name, ps] : props->items()) {
        auto it = v.find(name);
        if (it == v.end()) continue;
        const json* o = old_obj && old_obj->contains(name) ? &(*old_obj)[name] : nullptr;
        node(ps, *it, o, join(path, name));
      }
    const size_t own_start = errors.size();
    if (auto r = s.find("required"); r != s.end() && r->is_array())
      for (const auto& k : *r)
        if (k.is_string() && !v.contains(k.get<std::string>())) add(FieldError::required(join(path, k.get<std::string>())));
    if (old && *old == v) errors.resize(own_start);
  }
};

void list_types(const json& s, const json& v, const std::string& path, FieldErrors& errs);

void list_types_object(const json& s, const json& v, const std::string& path, FieldErrors& errs) {
  if (const json* ap = child(s, "additionalProperties"))
    for (const auto& [k, e] : v.items()) list_types(*ap, e, path + "[" + k + "]", errs);
  if (const json* props = child(s, "properties"))
    for (const auto& [k, e] : v.items())
      if (props->contains(k)) list_types((*props)[k], e, join(path, k), errs);
}

// structurallisttype.validateListSet: the indices of the second appearance of each repeated value.
std::vector<size_t> non_unique(const std::vector<json>& values) {
  std::map<std::string, int> seen;
  std::vector<size_t> out;
  for (size_t i = 0; i < values.size(); ++i)
    if (++seen[values[i].dump()] == 2) out.push_back(i);
  return out;
}

void list_types(const json& s, const json& v, const std::string& path, FieldErrors& errs) {
  if (!s.is_object()) return;
  if (v.is_object()) return list_types_object(s, v, path, errs);
  if (!v.is_array()) return;
  const std::string lt = str(s, "x-kubernetes-list-type");
  if (lt == "set") {
    std::vector<json> values(v.begin(), v.end());
    for (size_t i : non_unique(values)) errs.push_back(FieldError::duplicate(path + "[" + std::to_string(i) + "]", v[i]));
  } else if (lt == "map") {
    bool ok = true;
    for (size_t i = 0; i < v.size() && ok; ++i)
      if (!v[i].is_null() && !v[i].is_object()) {
        errs.push_back(FieldError::invalid(path + "[" + std::to_string(i) + "]", v[i], "must be an object for an array of list-type map"));
        ok = false;
      }
    if (ok && v.size() > 1) {
      const json key_fields = list_map_keys(s);
      std::vector<json> keys;
      for (const auto& item : v) {
        json key = json::object();
        for (const auto& k : key_fields)
          if (k.is_string() && item.is_object() && item.contains(k.get<std::string>()))
            key[k.get<std::string>()] = item[k.get<std::string>()];
        keys.push_back(key);
      }
      for (size_t i : non_unique(keys)) errs.push_back(FieldError::duplicate(path + "[" + std::to_string(i) + "]", keys[i]));
    }
  }
  if (const json* it = child(s, "items"))
    for (size_t i = 0; i < v.size(); ++i) list_types(*it, v[i], path + "[" + std::to_string(i) + "]", errs);
}

void embedded(const json& s, const json& v, const std::string& path, FieldErrors& errs) {
  if (!s.is_object()) return;
  if (flag(s, "x-kubernetes-embedded-resource") && v.is_object()) {
    // schemaobjectmeta.Validate: apiVersion and kind are required, metadata is not.
    if (!v.contains("apiVersion")) errs.push_back(FieldError::required(join(path, "apiVersion"), "must not be empty"));
    if (!v.contains("kind")) errs.push_back(FieldError::required(join(path, "kind"), "must not be empty"));
    for (const char* k : {"apiVersion", "kind"})
      if (v.contains(k) && !v[k].is_string())
        errs.push_back(FieldError::invalid(join(path, k), v[k], "must be a string"));
      else if (v.contains(k) && v[k] == "")
        errs.push_back(FieldError::invalid(join(path, k), v[k], "must not be empty"));
    if (v.contains("metadata") && v["metadata"].is_object()) {
      const json& md = v["metadata"];
      static const RE2 subdomain(R"([a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*)");
      for (const char* f : {"name", "generateName"}) {
        if (!md.contains(f) || !md[f].is_string() || md[f] == "") continue;
        std::string n = md[f];
        if (std::string(f) == "generateName" && n.back() == '-') n.pop_back();
        if (n.size() > 253 || !RE2::FullMatch(n, subdomain))
          errs.push_back(FieldError::invalid(
              join(join(path, "metadata"), f), md[f],
              "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must "
              "start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is "
              "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"));
      }
    }
  }
  if (v.is_object()) {
    if (const json* props = child(s, "properties"))
      for (const auto& [k, e] : v.items())
        if (props->contains(k)) embedded((*props)[k], e, join(path, k), errs);
    if (const json* ap = child(s, "additionalProperties"))
      for (const auto& [k, e] : v.items()) embedded(*ap, e, path + "[" + k + "]", errs);
  } else if (v.is_array()) {
    if (const json* it = child(s, "items"))
      for (size_t i = 0; i < v.size(); ++i) embedded(*it, v[i], path + "[" + std::to_string(i) + "]", errs);
  }
}

}  // namespace

std::string effective_format(const json& s) {
  auto f = s.find("format");
  if (f == s.end() || !f->is_string() || f->get<std::string>().empty()) return "";
  const std::string format = f->get<std::string>();
  const std::string t = flag(s, "x-kubernetes-int-or-string") ? "" : type_of(s);
  if (t.empty() || t == "string") return format_known(format) ? format : "";
  if (t == "integer") return format == "int32" || format == "int64" ? format : "";
  if (t == "number") return format == "float" || format == "double" ? format : "";
  return "";
}

void prune(const json& s, json& v, bool resource_root, bool remove, std::vector<std::string>& unknown) {
  struct Walk {
    bool remove;
    std::vector<std::string>& unknown;
    void go(const json& s, json& v, const std::string& path, bool root) {
      if (!s.is_object()) return;
      const bool preserve = flag(s, "x-kubernetes-preserve-unknown-fields");
      if (v.is_object()) {
        const json* props = child(s, "properties");
        const json* ap = child(s, "additionalProperties");
        std::vector<std::string> drop;
        for (auto it = v.begin(); it != v.end(); ++it) {
          const std::string& k = it.key();
          const std::string p = join(path, k);
          if ((root || flag(s, "x-kubernetes-embedded-resource")) && (k == "apiVersion" || k == "kind")) continue;
          if ((root || flag(s, "x-kubernetes-embedded-resource")) && k == "metadata") {
            if (!root && it->is_object()) {
              std::vector<std::string> md_drop;
              for (auto m = it->begin(); m != it->end(); ++m)
                if (!kObjectMetaFields.count(m.key())) {
                  unknown.push_back(p + "." + m.key());
                  md_drop.push_back(m.key());
                }
              if (remove)
                for (const auto& m : md_drop) it->erase(m);
            }
            continue;
          }
          if (props && props->contains(k)) go((*props)[k], *it, p, false);
          else if (ap) go(*ap, *it, p, false);
          else if (!preserve) {
            unknown.push_back(p);
            drop.push_back(k);
          }
        }
        if (remove)
          for (const auto& k : drop) v.erase(k);
      } else if (v.is_array()) {
        if (const json* it = child(s, "items"))
          for (size_t i = 0; i < v.size(); ++i) go(*it, v[i], path + "[" + std::to_string(i) + "]", false);
      }
    }
  } walk{remove, unknown};
  walk.go(s, v, "", resource_root);
}

void apply_defaults(const json& s, json& v) {
  if (!s.is_object()) return;
  if (v.is_object()) {
    if (const json* props = child(s, "properties")) {
      for (const auto& [name, ps] : props->items()) {
        if (!ps.is_object()) continue;
        auto it = v.find(name);
        const bool has_default = ps.contains("default");
        if (it == v.end()) {
          if (has_default) v[name] = ps["default"];
        } else if (it->is_null() && !flag(ps, "nullable")) {
          // A null in a non-nullable field: defaulted when there is a default, else dropped.
          if (has_default) *it = ps["default"];
          else v.erase(it);
        }
      }
      for (auto& [name, e] : v.items())
        if (props->contains(name)) apply_defaults((*props)[name], e);
    }
    if (const json* ap = child(s, "additionalProperties")) {
      std::vector<std::string> drop;
      for (auto& [k, e] : v.items()) {
        if (e.is_null() && !flag(*ap, "nullable")) {
          if (ap->contains("default")) e = (*ap)["default"];
          else drop.push_back(k);
        }
        apply_defaults(*ap, e);
      }
      for (const auto& k : drop) v.erase(k);
    }
  } else if (v.is_array()) {
    if (const json* it = child(s, "items"))
      for (auto& e : v) {
        if (e.is_null() && it->contains("default") && !flag(*it, "nullable")) e = (*it)["default"];
        apply_defaults(*it, e);
      }
  }
}

bool has_defaults(const json& s) {
  if (!s.is_object()) return false;
  if (s.contains("default")) return true;
  if (const json* props = child(s, "properties"))
    for (const auto& [k, p] : props->items())
      if (has_defaults(p)) return true;
  for (const char* k : {"items", "additionalProperties"})
    if (const json* c = child(s, k); c && has_defaults(*c)) return true;
  return false;
}

FieldErrors validate_schema(const json& schema, const json& value, const json* old, const std::string& path) {
  Validator v;
  v.node(schema, value, old, path);
  return std::move(v.errors);
}

FieldErrors validate_list_types(const json& schema, const json& value, const std::string& path) {
  FieldErrors errs;
  list_types(schema, value, path, errs);
  return errs;
}

FieldErrors validate_embedded(const json& schema, const json& value, const std::string& path) {
  FieldErrors errs;
  embedded(schema, value, path, errs);
  return errs;
}

}  // namespace kubesim::crd
