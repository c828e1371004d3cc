#include "kubesim/crd/custom_resource_validation.h"

#include "kubesim/api_error.h"
#include "kubesim/crd/cel_evaluator.h"
#include "kubesim/crd/field_error.h"
#include "kubesim/crd/schema_validation.h"

#include <functional>

namespace kubesim::crd {

using nlohmann::json;

namespace {

bool has_rules(const std::string& schema_text) {
  return schema_text.find("\"x-kubernetes-validations\"") != std::string::npos;
}

std::string schema_key(const std::string& scope, const std::string& schema_text) {
  return scope + "#" + std::to_string(std::hash<std::string>{}(schema_text)) + ":" + std::to_string(schema_text.size());
}

[[noreturn]] void throw_invalid(const std::string& group, const std::string& kind, const std::string& name,
                                const FieldErrors& errs) {
  json causes = json::array();
  for (const auto& e : errs) causes.push_back(e.cause());
  throw ApiError::invalid(group, kind, name, causes);
}

// strategy.go hasBlockingErr: the rules assume the object has the schema's shape.
bool blocking(const FieldErrors& errs) {
  for (const auto& e : errs)
    if (e.type == "FieldValueNotSupported" || e.type == "FieldValueRequired" || e.type == "FieldValueTooLong" ||
        e.type == "FieldValueTooMany" || e.type == "FieldValueTypeInvalid")
      return true;
  return false;
}

FieldErrors rule_errors(const ResourceType& t, const std::string& schema_text, const json& obj, const json* old) {
  FieldErrors out;
  if (!has_rules(schema_text)) return out;
  json found;
  try {
    found = CelEvaluator::instance().validate(schema_key(t.crd_name + "/" + t.version, schema_text), t.schema, obj, old);
  } catch (const CelUnavailable& e) {
    throw ApiError(500, "InternalError",
                   "Internal error occurred: the x-kubernetes-validations rules of " + t.crd_name +
                       " cannot be evaluated: " + e.what());
  }
  for (const auto& f : found)
    out.push_back({f.value("type", "FieldValueInvalid"), f.value("field", ""), f.value("value", json("")),
                   f.value("detail", "")});
  return out;
}

void rules_unless_blocked(const ResourceType& t, const json& obj, const json* old, FieldErrors& errs) {
  std::string dumped;
  const std::string& schema_text = t.schema_text.empty() ? (dumped = t.schema.dump()) : t.schema_text;
  if (!has_rules(schema_text)) return;
  if (blocking(errs)) {
    errs.push_back(FieldError::invalid("<nil>", nullptr,
                                       "some validation rules were not checked because the object was invalid; "
                                       "correct the existing errors to complete validation"));
    return;
  }
  for (auto& e : rule_errors(t, schema_text, obj, old)) errs.push_back(std::move(e));
}

std::string name_of(const json& obj) {
  if (!obj.contains("metadata") || !obj["metadata"].is_object()) return "";
  const json& md = obj["metadata"];
  return md.contains("name") && md["name"].is_string() ? md["name"].get<std::string>() : "";
}

// The old object as the server sees it: decoded from storage, hence defaulted.
json defaulted(const ResourceType& t, const json& stored) {
  json copy = stored;
  apply_schema_defaults(t, copy);
  return copy;
}

// Go's %#v of an apiextensions.ValidationRule, the value of a rule's compile error.
std::string validation_rule_value(const json& rule) {
  auto str = [&](const char* k) { return go_quote(rule.contains(k) && rule[k].is_string() ? rule[k].get<std::string>() : ""); };
  std::string s = "apiextensions.ValidationRule{Rule:" + str("rule") + ", Message:" + str("message") +
                  ", MessageExpression:" + str("messageExpression") + ", Reason:";
  s += rule.contains("reason") ? "(*apiextensions.FieldValueErrorReason)(0xc000000000)"
                               : "(*apiextensions.FieldValueErrorReason)(nil)";
  s += ", FieldPath:" + str("fieldPath") + ", OptionalOldSelf:";
  s += rule.contains("optionalOldSelf") ? "(*bool)(0xc000000000)" : "(*bool)(nil)";
  return s + "}";
}

void unique_items(const json& s, const std::string& path, FieldErrors& errs) {
  if (!s.is_object()) return;
  if (auto u = s.find("uniqueItems"); u != s.end() && u->is_boolean() && u->get<bool>())
    errs.push_back(FieldError::forbidden(path + ".uniqueItems",
                                         "uniqueItems cannot be set to true since the runtime complexity becomes quadratic"));
  if (s.contains("properties") && s["properties"].is_object())
    for (const auto& [k, p] : s["properties"].items()) unique_items(p, path + ".properties[" + k + "]", errs);
  if (s.contains("items")) unique_items(s["items"], path + ".items", errs);
  if (s.contains("additionalProperties")) unique_items(s["additionalProperties"], path + ".additionalProperties", errs);
}

// The rule a schema path ("openAPIV3Schema.properties[spec].x-kubernetes-validations[0]") names.
const json* rule_at(const json& root, const std::string& path) {
  const json* node = &root;
  size_t pos = std::string("openAPIV3Schema").size();
  while (pos < path.size() && node) {
    if (path.compare(pos, 12, ".properties[") == 0) {
      size_t end = path.find(']', pos + 12);
      std::string name = path.substr(pos + 12, end - pos - 12);
      node = node->contains("properties") && (*node)["properties"].contains(name) ? &(*node)["properties"][name] : nullptr;
      pos = end + 1;
    } else if (path.compare(pos, 6, ".items") == 0) {
      node = node->contains("items") ? &(*node)["items"] : nullptr;
      pos += 6;
    } else if (path.compare(pos, 21, ".additionalProperties") == 0) {
      node = node->contains("additionalProperties") ? &(*node)["additionalProperties"] : nullptr;
      pos += 21;
    } else if (path.compare(pos, 26, ".x-kubernetes-validations[") == 0) {
      size_t end = path.find(']', pos + 26);
      size_t i = std::stoul(path.substr(pos + 26, end - pos - 26));
      const json& list = node->value("x-kubernetes-validations", json::array());
      node = i < list.size() ? &(*node)["x-kubernetes-validations"][i] : nullptr;
      pos = end + 1;
    } else {
      return nullptr;
    }
  }
  return node;
}

}  // namespace

std::vector<std::string> prune_unknown_fields(const ResourceType& t, json& obj, bool strict) {
  std::vector<std::string> unknown;
  if (t.schema.is_object()) prune(t.schema, obj, true, !strict, unknown);
  return unknown;
}

void apply_schema_defaults(const ResourceType& t, json& obj) {
  if (t.schema.is_object()) apply_defaults(t.schema, obj);
}

bool defaults_on_read(const ResourceType& t) { return t.custom && has_defaults(t.schema); }

void validate_custom_resource(const ResourceType& t, const json& obj, const json* stored_old) {
  if (!t.schema.is_object()) return;
  json old_copy;
  const json* old = nullptr;
  if (stored_old) {
    old_copy = defaulted(t, *stored_old);
    old = &old_copy;
  }
  FieldErrors errs = validate_schema(t.schema, obj, old, "");
  for (auto& e : validate_embedded(t.schema, obj, "")) errs.push_back(std::move(e));
  // List-type uniqueness ratchets as a whole: an old object that already broke it is let be.
  if (!old || validate_list_types(t.schema, *old, "").empty())
    for (auto& e : validate_list_types(t.schema, obj, "")) errs.push_back(std::move(e));
  rules_unless_blocked(t, obj, old, errs);
  if (!errs.empty()) throw_invalid(t.group, t.kind, name_of(obj), errs);
}

void validate_custom_resource_status(const ResourceType& t, const json& obj, const json& stored_old) {
  if (!t.schema.is_object()) return;
  const json old = defaulted(t, stored_old);
  FieldErrors errs;
  static const json no_properties = json::object();
  auto p = t.schema.find("properties");
  const json& props = p != t.schema.end() ? *p : no_properties;
  if (obj.contains("status") && props.is_object() && props.contains("status")) {
    // The status validator is rooted at the status schema: its messages name paths relative to
    // status, the field paths get the "status" prefix (ValidateCustomResourceUpdate(status path)).
    errs = validate_schema(props["status"], obj["status"], old.contains("status") ? &old["status"] : nullptr, "");
    for (auto& e : errs) e.field = e.field.empty() ? "status" : "status." + e.field;
  }
  for (auto& e : validate_embedded(t.schema, obj, "")) errs.push_back(std::move(e));
  if (validate_list_types(t.schema, old, "").empty())
    for (auto& e : validate_list_types(t.schema, obj, "")) errs.push_back(std::move(e));
  rules_unless_blocked(t, obj, &old, errs);
  if (!errs.empty()) throw_invalid(t.group, t.kind, name_of(obj), errs);
}

void check_definition(const json& crd) {
  if (!crd.contains("spec") || !crd["spec"].is_object()) return;
  const json versions = crd["spec"].contains("versions") && crd["spec"]["versions"].is_array() ? crd["spec"]["versions"]
                                                                                             : json::array();
  auto name_of_json = [](const json& o) {
    return o.is_object() && o.contains("name") && o["name"].is_string() ? o["name"].get<std::string>() : std::string();
  };
  FieldErrors errs;
  for (size_t i = 0; i < versions.size(); ++i) {
    const json& v = versions[i];
    if (!v.is_object() || !v.contains("schema") || !v["schema"].is_object() ||
        !v["schema"].contains("openAPIV3Schema"))
      continue;
    const json& schema = v["schema"]["openAPIV3Schema"];
    const std::string base = "spec.versions[" + std::to_string(i) + "].schema.";
    unique_items(schema, base + "openAPIV3Schema", errs);
    const std::string text = schema.dump();
    if (!has_rules(text)) continue;
    json failures;
    try {
      failures = CelEvaluator::instance().compile(
          schema_key(name_of_json(crd["metadata"]) + "/" + name_of_json(v), text), schema);
    } catch (const CelUnavailable&) {
      // Without an evaluator nothing can be compiled; writes of the CRD's objects say why (500).
      continue;
    }
    for (const auto& f : failures) {
      const std::string path = f.value("path", "");
      const json* rule = rule_at(schema, path);
      FieldError e = FieldError::invalid(base + path + "." + f.value("field", "rule"), nullptr, f.value("detail", ""));
      if (f.contains("value")) e.value = f["value"];  // fieldPath: the path itself
      else e.value = rule ? json(validation_rule_value(*rule)) : json();
      errs.push_back(std::move(e));
    }
  }
  if (!errs.empty()) {
    json causes = json::array();
    for (const auto& e : errs) {
      json c = e.cause();
      // The rule prints with %#v, not quoted.
      if (e.value.is_string() && e.value.get<std::string>().rfind("apiextensions.ValidationRule{", 0) == 0)
        c["message"] = "Invalid value: " + e.value.get<std::string>() + ": " + e.detail;
      causes.push_back(c);
    }
    throw ApiError::invalid("apiextensions.k8s.io", "CustomResourceDefinition", name_of_json(crd["metadata"]),
                            causes);
  }
}

}  // namespace kubesim::crd
