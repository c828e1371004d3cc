#include "kubesim/crd/structural_schema.h"

#include "kubesim/crd/schema_validation.h"

#include <re2/re2.h>

#include <algorithm>
#include <set>

namespace kubesim::crd {

using nlohmann::json;

namespace {

// Schema nodes as the Go decoder sees them: a wrongly typed keyword reads as absent.
std::string text(const json& s, const char* key) {
  auto it = s.find(key);
  return it != s.end() && it->is_string() ? it->get<std::string>() : std::string();
}
bool flag(const json& s, const char* key) {
  auto it = s.find(key);
  return it != s.end() && it->is_boolean() && it->get<bool>();
}
bool has(const json& s, const char* key) {
  auto it = s.find(key);
  return it != s.end() && !it->is_null();
}
const json* object_at(const json& s, const char* key) {
  auto it = s.find(key);
  return it != s.end() && it->is_object() ? &*it : nullptr;
}
const json& list_at(const json& s, const char* key) {
  static const json empty = json::array();
  auto it = s.find(key);
  return it != s.end() && it->is_array() ? *it : empty;
}
const json& properties_of(const json& s) {
  static const json empty = json::object();
  const json* p = object_at(s, "properties");
  return p ? *p : empty;
}

std::string child(const std::string& path, const std::string& name) { return path + "." + name; }
std::string key(const std::string& path, const std::string& k) { return path + "[" + k + "]"; }
std::string index(const std::string& path, size_t i) { return path + "[" + std::to_string(i) + "]"; }

// Go's %#v of a []string.
std::string go_string_slice(const json& list) {
  std::string s = "[]string{";
  for (size_t i = 0; i < list.size(); ++i)
    s += (i ? ", " : "") + go_quote(list[i].is_string() ? list[i].get<std::string>() : list[i].dump());
  return s + "}";
}

// Go's regexp.Compile error for a pattern RE2 refuses ("error parsing regexp: missing closing ): `(`").
std::string go_regexp_error(const RE2& re) {
  static const std::pair<RE2::ErrorCode, const char*> codes[] = {
      {RE2::ErrorBadEscape, "invalid escape sequence"},
      {RE2::ErrorBadCharClass, "invalid character class"},
      {RE2::ErrorBadCharRange, "invalid character class range"},
      {RE2::ErrorMissingBracket, "missing closing ]"},
      {RE2::ErrorMissingParen, "missing closing )"},
      {RE2::ErrorUnexpectedParen, "unexpected )"},
      {RE2::ErrorTrailingBackslash, "trailing backslash at end of expression"},
      {RE2::ErrorRepeatArgument, "missing argument to repetition operator"},
      {RE2::ErrorRepeatSize, "invalid repeat count"},
      {RE2::ErrorRepeatOp, "invalid nested repetition operator"},
      {RE2::ErrorBadPerlOp, "invalid or unsupported Perl syntax"},
      {RE2::ErrorBadUTF8, "invalid UTF-8"},
      {RE2::ErrorBadNamedCapture, "invalid named capture"},
  };
  std::string what = re.error();
  for (const auto& [code, go_text] : codes)
    if (re.error_code() == code) what = go_text;
  return "error parsing regexp: " + what + ": `" + re.error_arg() + "`";
}

enum class Level { root, item, field };

// A schema keyword whose Go field holds its zero value is as good as absent.
bool zero(const json& v) {
  return v.is_null() || (v.is_boolean() && !v.get<bool>()) || (v.is_string() && v.get<std::string>().empty()) ||
         (v.is_array() && v.empty()) || (v.is_object() && v.empty());
}

json without_zeros(const json& s) {
  json out = json::object();
  if (!s.is_object()) return out;
  for (const auto& [k, v] : s.items())
    if (!zero(v)) out[k] = v;
  return out;
}

// anyOf: [{type: integer}, {type: string}], nothing more: the shape x-kubernetes-int-or-string allows.
bool int_or_string_any_of(const json& s) {
  const json& any_of = list_at(s, "anyOf");
  return any_of.size() == 2 && without_zeros(any_of[0]) == json{{"type", "integer"}} &&
         without_zeros(any_of[1]) == json{{"type", "string"}};
}

// k8s.io/apiextensions-apiserver/pkg/apiserver/schema: validateStructuralInvariants,
// validateValueValidation, validateNestedValueValidation, validateStructuralCompleteness.
struct Structural {
  FieldErrors errs;

  void value_validation(const json& v, bool skip_any_of, bool skip_first_all_of_any_of, Level lvl,
                        const std::string& path) {
    if (!skip_any_of) {
      const json& any_of = list_at(v, "anyOf");
      for (size_t i = 0; i < any_of.size(); ++i)
        nested(any_of[i], false, false, lvl, index(child(path, "anyOf"), i));
    }
    const json& all_of = list_at(v, "allOf");
    for (size_t i = 0; i < all_of.size(); ++i)
      nested(all_of[i], skip_first_all_of_any_of && i == 0, false, lvl, index(child(path, "allOf"), i));
    const json& one_of = list_at(v, "oneOf");
    for (size_t i = 0; i < one_of.size(); ++i) nested(one_of[i], false, false, lvl, index(child(path, "oneOf"), i));
    if (const json* n = object_at(v, "not")) nested(*n, false, false, lvl, child(path, "not"));
    if (std::string pattern = text(v, "pattern"); !pattern.empty()) {
      RE2::Options o;
      o.set_log_errors(false);
      RE2 re(pattern, o);
      if (!re.ok())
        errs.push_back(FieldError::invalid(child(path, "pattern"), pattern,
                                           "must be a valid regular expression, but isn't: " + go_regexp_error(re)));
    }
  }

  void nested(const json& v, bool skip_any_of, bool skip_all_of_any_of, Level lvl, const std::string& path) {
    if (!v.is_object()) return;
    value_validation(v, skip_any_of, skip_all_of_any_of, lvl, path);
    if (const json* items = object_at(v, "items")) nested(*items, false, false, lvl, child(path, "items"));
    for (const auto& [k, p] : properties_of(v).items())
      nested(p, false, false, Level::field, key(child(path, "properties"), k));
    auto forbid = [&](const char* name, const char* detail) { errs.push_back(FieldError::forbidden(child(path, name), detail)); };
    if (!text(v, "type").empty()) forbid("type", "must be empty to be structural");
    if (has(v, "additionalProperties")) forbid("additionalProperties", "must be undefined to be structural");
    if (has(v, "default")) forbid("default", "must be undefined to be structural");
    if (!text(v, "title").empty()) forbid("title", "must be empty to be structural");
    if (!text(v, "description").empty()) forbid("description", "must be empty to be structural");
    if (flag(v, "nullable")) forbid("nullable", "must be false to be structural");
    if (has(v, "externalDocs")) forbid("externalDocs", "must be undefined to be structural");
    if (flag(v, "x-kubernetes-preserve-unknown-fields"))
      forbid("x-kubernetes-preserve-unknown-fields", "must be false to be structural");
    if (flag(v, "x-kubernetes-embedded-resource")) forbid("x-kubernetes-embedded-resource", "must be false to be structural");
    if (flag(v, "x-kubernetes-int-or-string")) forbid("x-kubernetes-int-or-string", "must be false to be structural");
    if (!list_at(v, "x-kubernetes-list-map-keys").empty())
      forbid("x-kubernetes-list-map-keys", "must be empty to be structural");
    if (has(v, "x-kubernetes-list-type")) forbid("x-kubernetes-list-type", "must be undefined to be structural");
    if (has(v, "x-kubernetes-map-type")) forbid("x-kubernetes-map-type", "must be undefined to be structural");
    if (!list_at(v, "x-kubernetes-validations").empty())
      forbid("x-kubernetes-validations", "must be empty to be structural");
    // Reasoning about metadata could restrict it in ways the server does not enforce.
    if (properties_of(v).contains("metadata"))
      errs.push_back(FieldError::forbidden(key(child(path, "properties"), "metadata"), "must not be specified in a nested context"));
  }

  void metadata(const json& m, bool check_metadata, Level lvl, const std::string& path) {
    if (check_metadata && text(m, "type") != "object")
      errs.push_back(FieldError::invalid(child(path, "type"), text(m, "type"), "must be object"));
    if (lvl != Level::root) return;
    // The server fills in metadata itself: a schema may only say that name and generateName exist.
    json rest = without_zeros(m);
    if (rest.is_object()) {
      const json& props = properties_of(m);
      const bool name = props.contains("name"), generate_name = props.contains("generateName");
      if ((name && generate_name && props.size() == 2) || ((name || generate_name) && props.size() == 1))
        rest.erase("properties");
      for (const char* ignored : {"type", "default", "example", "externalDocs", "id", "$schema", "$ref",
                                  "definitions", "dependencies", "patternProperties", "additionalItems"})
        rest.erase(ignored);
    }
    if (!rest.empty())
      errs.push_back(FieldError::forbidden(
          path, "must not specify anything other than name and generateName, but metadata is implicitly specified"));
  }

  void invariants(const json& s, Level lvl, const std::string& path) {
    if (!s.is_object()) return;
    const std::string type = text(s, "type");
    if (type == "array" && !has(s, "items")) errs.push_back(FieldError::required(child(path, "items"), "must be specified"));
    if (const json* items = object_at(s, "items")) invariants(*items, Level::item, child(path, "items"));
    for (const auto& [k, p] : properties_of(s).items()) invariants(p, Level::field, key(child(path, "properties"), k));
    if (has(s, "additionalProperties")) {
      if (lvl == Level::root)
        errs.push_back(FieldError::forbidden(child(path, "additionalProperties"), "must not be used at the root"));
      if (const json* ap = object_at(s, "additionalProperties"))
        invariants(*ap, Level::field, child(path, "additionalProperties"));
    }
    const bool int_or_string = flag(s, "x-kubernetes-int-or-string");
    const bool preserve = flag(s, "x-kubernetes-preserve-unknown-fields");
    const bool embedded = flag(s, "x-kubernetes-embedded-resource");
    if (int_or_string && preserve)
      errs.push_back(FieldError::invalid(child(path, "x-kubernetes-preserve-unknown-fields"), true,
                                         "must be false if x-kubernetes-int-or-string is true"));
    if (int_or_string && embedded)
      errs.push_back(FieldError::invalid(child(path, "x-kubernetes-embedded-resource"), true,
                                         "must be false if x-kubernetes-int-or-string is true"));

    const bool skip_any_of = int_or_string_any_of(s);
    const json& all_of = list_at(s, "allOf");
    const bool skip_first_all_of_any_of = !all_of.empty() && int_or_string_any_of(all_of[0]);
    value_validation(s, skip_any_of, skip_first_all_of_any_of, lvl, path);

    const bool check_metadata = lvl == Level::root || embedded;
    if (embedded && type != "object") {
      const char* detail = "must be object if x-kubernetes-embedded-resource is true";
      errs.push_back(type.empty() ? FieldError::required(child(path, "type"), detail)
                                  : FieldError::invalid(child(path, "type"), type, detail));
    } else if (type.empty() && !int_or_string && !preserve) {
      const char* detail = lvl == Level::root   ? "must not be empty at the root"
                           : lvl == Level::item ? "must not be empty for specified array items"
                                                : "must not be empty for specified object fields";
      errs.push_back(FieldError::required(child(path, "type"), detail));
    }
    if (embedded && has(s, "additionalProperties"))
      errs.push_back(FieldError::forbidden(child(path, "additionalProperties"),
                                           "must not be used if x-kubernetes-embedded-resource is set"));
    if (lvl == Level::root && !type.empty() && type != "object")
      errs.push_back(FieldError::invalid(child(path, "type"), type, "must be object at the root"));

    const json& props = properties_of(s);
    for (const char* meta_string : {"kind", "apiVersion"})
      if (props.contains(meta_string) && check_metadata && text(props[meta_string], "type") != "string")
        errs.push_back(FieldError::invalid(child(key(child(path, "properties"), meta_string), "type"),
                                           text(props[meta_string], "type"), "must be string"));
    if (props.contains("metadata"))
      metadata(props["metadata"], check_metadata, lvl, key(child(path, "properties"), "metadata"));
    if (embedded && !preserve && props.empty())
      errs.push_back(FieldError::required(
          child(path, "properties"),
          "must not be empty if x-kubernetes-embedded-resource is true without x-kubernetes-preserve-unknown-fields"));
  }

  // Every field a value validation names is also specified in the structural part.
  void value_completeness(const json& v, const json* s, const std::string& s_path, const std::string& v_path) {
    if (!s) {
      errs.push_back(FieldError::required(s_path, "because it is defined in " + v_path));
      return;
    }
    if (const json* n = object_at(v, "not")) nested_completeness(*n, s, s_path, child(v_path, "not"));
    for (const char* junctor : {"allOf", "anyOf", "oneOf"}) {
      const json& list = list_at(v, junctor);
      for (size_t i = 0; i < list.size(); ++i)
        nested_completeness(list[i], s, s_path, index(child(v_path, junctor), i));
    }
  }

  void nested_completeness(const json& v, const json* s, const std::string& s_path, const std::string& v_path) {
    if (!v.is_object()) return;
    if (!s) {
      errs.push_back(FieldError::required(s_path, "because it is defined in " + v_path));
      return;
    }
    value_completeness(v, s, s_path, v_path);
    if (const json* items = object_at(v, "items"))
      nested_completeness(*items, object_at(*s, "items"), child(s_path, "items"), child(v_path, "items"));
    const json& s_props = properties_of(*s);
    for (const auto& [k, p] : properties_of(v).items()) {
      const std::string s_field = key(child(s_path, "properties"), k), v_field = key(child(v_path, "properties"), k);
      if (!s_props.contains(k)) errs.push_back(FieldError::required(s_field, "because it is defined in " + v_field));
      else nested_completeness(p, &s_props[k], s_field, v_field);
    }
  }
};

// structuraldefaulting.ValidateDefaults: a default outside metadata is already pruned and valid.
// The resource root counts as an embedded resource: its apiVersion, kind and metadata are the server's.
void check_defaults(const json& s, const std::string& path, bool inside_meta, bool resource_root, FieldErrors& errs) {
  if (!s.is_object()) return;
  if (has(s, "default") && !inside_meta) {
    const json& value = s["default"];
    json pruned = value;
    std::vector<std::string> unknown;
    prune(s, pruned, flag(s, "x-kubernetes-embedded-resource"), false, unknown);
    if (!unknown.empty()) errs.push_back(FieldError::invalid(child(path, "default"), value, "must not have unknown fields"));
    for (auto& e : validate_schema(s, value, nullptr, child(path, "default"))) errs.push_back(std::move(e));
  }
  // Defaults are forbidden under additionalProperties that apply to metadata, and unused elsewhere.
  if (const json* items = object_at(s, "items")) check_defaults(*items, child(path, "items"), inside_meta, false, errs);
  const bool embedded = resource_root || flag(s, "x-kubernetes-embedded-resource");
  for (const auto& [k, p] : properties_of(s).items())
    check_defaults(p, key(child(path, "properties"), k),
                   inside_meta || (embedded && (k == "metadata" || k == "apiVersion" || k == "kind")), false, errs);
}

// ValidateCustomResourceDefinitionOpenAPISchema with the options of a create.
struct OpenApiChecks {
  struct Context {
    bool allow_defaults = true;
    std::string disallow_defaults_reason;
    bool inside_resource_meta = false;
  };
  FieldErrors errs;

  void keywords(const json& s, const std::string& path, const Context& ctx) {
    static const std::vector<std::string> types = {"array", "boolean", "integer", "number", "object", "string"};
    const std::string type = text(s, "type");
    if (!type.empty() && std::find(types.begin(), types.end(), type) == types.end())
      errs.push_back(FieldError::not_supported(child(path, "type"), type, types));
    if (has(s, "default") && !ctx.allow_defaults)
      errs.push_back(FieldError::forbidden(
          child(path, "default"),
          "must not be set" + (ctx.disallow_defaults_reason.empty() ? "" : " " + ctx.disallow_defaults_reason)));
    auto unsupported = [&](const char* name) {
      errs.push_back(FieldError::forbidden(child(path, name), std::string(name) + " is not supported"));
    };
    if (!text(s, "id").empty()) unsupported("id");
    if (has(s, "additionalItems")) unsupported("additionalItems");
    if (const json* pp = object_at(s, "patternProperties"); pp && !pp->empty()) unsupported("patternProperties");
    if (const json* d = object_at(s, "definitions"); d && !d->empty()) unsupported("definitions");
    if (has(s, "dependencies")) unsupported("dependencies");
    if (has(s, "$ref")) unsupported("$ref");
    if (type == "null")
      errs.push_back(FieldError::forbidden(child(path, "type"), "type cannot be set to null, use nullable as an alternative"));
    if (!list_at(s, "items").empty())
      errs.push_back(FieldError::forbidden(child(path, "items"), "items must be a schema object and not an array"));
    if (ctx.inside_resource_meta && flag(s, "x-kubernetes-embedded-resource"))
      errs.push_back(FieldError::forbidden(child(path, "x-kubernetes-embedded-resource"),
                                           "must not be used inside of resource meta"));
  }

  void list_and_map_types(const json& s, const std::string& path) {
    const std::string type = text(s, "type");
    const bool has_map_type = has(s, "x-kubernetes-map-type"), has_list_type = has(s, "x-kubernetes-list-type");
    const std::string map_type = text(s, "x-kubernetes-map-type"), list_type = text(s, "x-kubernetes-list-type");
    const json* items = object_at(s, "items");
    if (has(s, "x-kubernetes-preserve-unknown-fields") && s["x-kubernetes-preserve-unknown-fields"] == false)
      errs.push_back(FieldError::invalid(child(path, "x-kubernetes-preserve-unknown-fields"), false, "must be true or undefined"));
    if (has_map_type && type != "object") {
      const char* detail = "must be object if x-kubernetes-map-type is specified";
      errs.push_back(type.empty() ? FieldError::required(child(path, "type"), detail)
                                  : FieldError::invalid(child(path, "type"), type, detail));
    }
    if (has_map_type && map_type != "atomic" && map_type != "granular")
      errs.push_back(FieldError::not_supported(child(path, "x-kubernetes-map-type"), map_type, {"atomic", "granular"}));
    if (has_list_type && type != "array") {
      const char* detail = "must be array if x-kubernetes-list-type is specified";
      errs.push_back(type.empty() ? FieldError::required(child(path, "type"), detail)
                                  : FieldError::invalid(child(path, "type"), type, detail));
    } else if (list_type == "set" && items) {
      // Set items are compared whole: nested lists and maps must be atomic.
      const std::string item_type = text(*items, "type");
      const char* detail = "must be atomic as item of a list with x-kubernetes-list-type=set";
      if (item_type == "array" && has(*items, "x-kubernetes-list-type") && text(*items, "x-kubernetes-list-type") != "atomic")
        errs.push_back(FieldError::invalid(child(child(path, "items"), "x-kubernetes-list-type"),
                                           text(*items, "x-kubernetes-list-type"), detail));
      if (item_type == "object" && text(*items, "x-kubernetes-map-type") != "atomic")
        errs.push_back(FieldError::invalid(child(child(path, "items"), "x-kubernetes-map-type"),
                                           has(*items, "x-kubernetes-list-type") ? json(text(*items, "x-kubernetes-list-type")) : json(),
                                           detail));
    }
    if (has_list_type && list_type != "atomic" && list_type != "set" && list_type != "map")
      errs.push_back(FieldError::not_supported(child(path, "x-kubernetes-list-type"), list_type, {"atomic", "set", "map"}));
    const json& keys = list_at(s, "x-kubernetes-list-map-keys");
    if (!keys.empty()) {
      const char* detail = "must be map if x-kubernetes-list-map-keys is non-empty";
      if (!has_list_type) errs.push_back(FieldError::required(child(path, "x-kubernetes-list-type"), detail));
      else if (list_type != "map") errs.push_back(FieldError::invalid(child(path, "x-kubernetes-list-type"), list_type, detail));
    }
    if (list_type == "map") {
      if (keys.empty())
        errs.push_back(FieldError::required(child(path, "x-kubernetes-list-map-keys"),
                                            "must not be empty if x-kubernetes-list-type is map"));
      if (!has(s, "items"))
        errs.push_back(FieldError::required(child(path, "items"), "must have a schema if x-kubernetes-list-type is map"));
      if (items && text(*items, "type") != "object")
        errs.push_back(FieldError::invalid(child(child(path, "items"), "type"), text(*items, "type"),
                                           "must be object if parent array's x-kubernetes-list-type is map"));
      if (items && text(*items, "type") == "object") {
        std::set<std::string> seen;
        const json& item_props = properties_of(*items);
        for (const auto& k : keys) {
          const std::string name = k.is_string() ? k.get<std::string>() : k.dump();
          if (item_props.contains(name)) {
            const std::string t = text(item_props[name], "type");
            if (t == "array" || t == "object")
              errs.push_back(FieldError::invalid(child(key(child(child(path, "items"), "properties"), name), "type"), "object",
                                                 "must be a scalar type if parent array's x-kubernetes-list-type is map"));
          } else {
            FieldError e = FieldError::invalid(child(path, "x-kubernetes-list-map-keys"), nullptr,
                                               "entries must all be names of item properties");
            e.printed_value = go_string_slice(keys);
            errs.push_back(std::move(e));
          }
          if (!seen.insert(name).second) {
            FieldError e = FieldError::invalid(child(path, "x-kubernetes-list-map-keys"), nullptr,
                                               "must not contain duplicate entries");
            e.printed_value = go_string_slice(keys);
            errs.push_back(std::move(e));
          }
        }
      }
    }
    // validateMapListKeysMapSet: set and map items, and map keys, are never null; keys are always there.
    if (items && (list_type == "set" || list_type == "map")) {
      if (flag(*items, "nullable"))
        errs.push_back(FieldError::forbidden(child(child(path, "items"), "nullable"),
                                             "cannot be nullable when x-kubernetes-list-type is " + list_type));
      if (list_type == "map") {
        std::set<std::string> required;
        for (const auto& r : list_at(*items, "required"))
          if (r.is_string()) required.insert(r.get<std::string>());
        const json& item_props = properties_of(*items);
        for (const auto& k : keys) {
          if (!k.is_string() || !item_props.contains(k.get<std::string>())) continue;
          const std::string name = k.get<std::string>();
          const json& p = item_props[name];
          const std::string p_path = key(child(child(path, "items"), "properties"), name);
          if (!required.count(name) && !has(p, "default"))
            errs.push_back(FieldError::required(
                child(p_path, "default"),
                "this property is in x-kubernetes-list-map-keys, so it must have a default or be a required property"));
          if (flag(p, "nullable"))
            errs.push_back(FieldError::forbidden(child(p_path, "nullable"),
                                                 "this property is in x-kubernetes-list-map-keys, so it cannot be nullable"));
        }
      }
    }
  }

  // The text of x-kubernetes-validations; whether each rule compiles is the CEL evaluator's.
  void rule_texts(const json& s, const std::string& path) {
    const json& rules = list_at(s, "x-kubernetes-validations");
    auto trimmed = [](const json& rule, const char* k) {
      std::string t = rule.is_object() ? text(rule, k) : std::string();
      const char* space = " \t\n\r\v\f";
      const size_t b = t.find_first_not_of(space);
      return b == std::string::npos ? std::string() : t.substr(b, t.find_last_not_of(space) - b + 1);
    };
    auto has_newlines = [](const std::string& t) { return t.find_first_of("\n\r") != std::string::npos; };
    for (size_t i = 0; i < rules.size(); ++i) {
      const std::string at = index(child(path, "x-kubernetes-validations"), i);
      const std::string rule = trimmed(rules[i], "rule"), message = trimmed(rules[i], "message");
      const std::string raw_message = rules[i].is_object() ? text(rules[i], "message") : std::string();
      if (rule.empty())
        errs.push_back(FieldError::required(child(at, "rule"), "rule is not specified"));
      else if (!raw_message.empty() && message.empty())
        errs.push_back(FieldError::invalid(child(at, "message"), raw_message, "message must be non-empty if specified"));
      else if (has_newlines(message))
        errs.push_back(FieldError::invalid(child(at, "message"), raw_message, "message must not contain line breaks"));
      else if (has_newlines(rule) && message.empty())
        errs.push_back(FieldError::required(child(at, "message"), "message must be specified if rule contains line breaks"));
    }
  }

  void walk(const json& s, const std::string& path, const Context& ctx, bool is_root) {
    if (!s.is_object()) return;
    keywords(s, path, ctx);
    if (flag(s, "uniqueItems"))
      errs.push_back(FieldError::forbidden(child(path, "uniqueItems"),
                                           "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"));
    const json& props = properties_of(s);
    // properties are for structs, additionalProperties for maps; unknown fields are dropped, not refused.
    if (has(s, "additionalProperties")) {
      const json& ap = s["additionalProperties"];
      if (!props.empty() && (ap == false || ap.is_object()))
        errs.push_back(FieldError::forbidden(child(path, "additionalProperties"),
                                             "additionalProperties and properties are mutual exclusive"));
      Context sub = ctx;
      if (ctx.inside_resource_meta) {
        sub.allow_defaults = false;
        sub.disallow_defaults_reason = "inside additionalProperties applying to object metadata";
      }
      if (ap.is_object()) walk(ap, child(path, "additionalProperties"), sub, false);
    }
    const bool embedded = flag(s, "x-kubernetes-embedded-resource");
    for (const auto& [k, p] : props.items()) {
      Context sub = ctx;
      if ((is_root || embedded) && (k == "metadata" || k == "kind" || k == "apiVersion")) {
        sub.inside_resource_meta = true;
        if (is_root) {
          sub.allow_defaults = false;
          sub.disallow_defaults_reason = "in top-level " + k;
        }
      }
      walk(p, key(child(path, "properties"), k), sub, false);
    }
    if (const json* n = object_at(s, "not")) walk(*n, child(path, "not"), ctx, false);
    for (const char* junctor : {"allOf", "oneOf", "anyOf"}) {
      const json& list = list_at(s, junctor);
      for (size_t i = 0; i < list.size(); ++i) walk(list[i], index(child(path, junctor), i), ctx, false);
    }
    if (const json* d = object_at(s, "definitions"))
      for (const auto& [k, p] : d->items()) walk(p, key(child(path, "definitions"), k), ctx, false);
    if (const json* items = object_at(s, "items")) walk(*items, child(path, "items"), ctx, false);
    const json& item_list = list_at(s, "items");
    for (size_t i = 0; i < item_list.size(); ++i) walk(item_list[i], index(child(path, "items"), i), ctx, false);
    if (const json* deps = object_at(s, "dependencies"))
      for (const auto& [k, p] : deps->items())
        if (p.is_object()) walk(p, key(child(path, "dependencies"), k), ctx, false);
    list_and_map_types(s, path);
    rule_texts(s, path);
  }
};

// NewStructural refuses a schema with `items` as a list; the OpenAPI checks name that.
bool has_item_lists(const json& s) {
  if (s.is_array()) return std::any_of(s.begin(), s.end(), [](const json& e) { return has_item_lists(e); });
  if (!s.is_object()) return false;
  if (auto it = s.find("items"); it != s.end() && it->is_array()) return true;
  for (const auto& [k, v] : s.items())
    if (k != "default" && k != "enum" && k != "example" && has_item_lists(v)) return true;
  return false;
}

}  // namespace

FieldErrors check_openapi_v3_schema(const json& schema, const std::string& path) {
  const std::string root = child(path, "openAPIV3Schema");
  FieldErrors errs;
  if (!schema.is_object()) return errs;
  if (flag(schema, "nullable"))
    errs.push_back(FieldError::forbidden(child(path, "openAPIV3Schema.nullable"), "nullable cannot be true at the root"));

  OpenApiChecks openapi;
  openapi.walk(schema, root, {}, true);
  if (has_item_lists(schema)) {
    for (auto& e : openapi.errs) errs.push_back(std::move(e));
    return errs;
  }

  Structural structural;
  structural.invariants(schema, Level::root, root);
  structural.value_completeness(schema, &schema, root, root);
  // The real list is sorted by its text, since it is built from Go maps.
  std::sort(structural.errs.begin(), structural.errs.end(), [](const FieldError& a, const FieldError& b) {
    return a.field + ": " + a.body() < b.field + ": " + b.body();
  });
  if (!structural.errs.empty()) {
    for (auto& e : structural.errs) errs.push_back(std::move(e));
  } else {
    // Defaults are checked against a structural schema only.
    check_defaults(schema, root, false, true, errs);
  }

  for (auto& e : openapi.errs) errs.push_back(std::move(e));
  return errs;
}

}  // namespace kubesim::crd
