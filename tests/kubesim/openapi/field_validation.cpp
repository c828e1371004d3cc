#include "kubesim/openapi/field_validation.h"

#include "kubesim/api_error.h"
#include "kubesim/openapi/swagger_document.h"
#include "kubesim/openapi/typed_decoder.h"

#include <stdexcept>

namespace kubesim::openapi {

using nlohmann::json;

namespace {

std::string strict_message(const std::vector<std::string>& errors) {
  std::string msg = "strict decoding error: ";
  for (size_t i = 0; i < errors.size(); ++i) msg += (i ? ", " : "") + errors[i];
  return msg;
}

// The version the body names (its apiVersion), defaulting to the URL's.
std::string body_version(const ResourceType& t, const json& obj) {
  if (!obj.is_object() || !obj.contains("apiVersion") || !obj["apiVersion"].is_string()) return t.version;
  const std::string av = obj["apiVersion"];
  if (av.empty()) return t.version;
  auto slash = av.find('/');
  return slash == std::string::npos ? av : av.substr(slash + 1);
}

// The schema the body decodes into: its own group/version/kind when that is the URL's kind
// (otherwise the store reports the mismatch).
std::optional<SchemaNode> body_schema(const ResourceType& t, const json& obj) {
  if (!obj.is_object()) return std::nullopt;
  if (obj.contains("kind") && obj["kind"].is_string() && !obj["kind"].get<std::string>().empty() && obj["kind"] != t.kind)
    return std::nullopt;
  if (t.custom) return std::nullopt;
  auto name = definition_name(t.group, body_version(t, obj), t.kind);
  if (!name) return std::nullopt;
  return resolve_definition(*name);
}

// The Go %+v of a patch map (strategic merge patch errors quote it).
std::string go_map_text(const json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "<nil>";
  if (v.is_array()) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + go_map_text(v[i]);
    return s + "]";
  }
  if (v.is_object()) {
    std::string s = "map[";
    bool first = true;
    for (auto it = v.begin(); it != v.end(); ++it, first = false) s += (first ? "" : " ") + it.key() + ":" + go_map_text(it.value());
    return s + "]";
  }
  return v.dump();
}

void apply_directive(const std::vector<std::string>& strict, FieldValidation fv, std::vector<std::string>& warnings,
                     const std::string& prefix) {
  if (strict.empty()) return;
  if (fv == FieldValidation::Strict) throw ApiError::bad_request(prefix + strict_message(strict));
  if (fv == FieldValidation::Warn) warnings.insert(warnings.end(), strict.begin(), strict.end());
}

}  // namespace

FieldValidation field_validation(const std::string& v) {
  if (v == "Strict") return FieldValidation::Strict;
  if (v == "Ignore") return FieldValidation::Ignore;
  return FieldValidation::Warn;
}

std::optional<SchemaNode> builtin_schema(const ResourceType& t) {
  if (t.custom) return std::nullopt;
  auto name = definition_name(t.group, t.version, t.kind);
  if (!name) return std::nullopt;
  return resolve_definition(*name);
}

void decode_body(const ResourceType& t, const std::string& raw, const std::string& content_type, json& obj,
                 FieldValidation fv, std::vector<std::string>& warnings) {
  auto schema = body_schema(t, obj);
  if (!schema) return;
  const std::string kind = t.kind;
  const std::string prefix = kind + " in version \"" + body_version(t, obj) + "\" cannot be handled as a " + kind + ": ";
  // Findings in the order of the body's text (and its duplicate keys) when it is JSON;
  // a YAML body is converted to JSON with sorted keys first, as sigs.k8s.io/yaml does.
  DecodeFindings found;
  bool from_text = false;
  if (content_type.find("yaml") == std::string::npos) {
    try {
      auto ordered = parse_keeping_duplicates(raw);
      found = decode_json(*schema, ordered);
      from_text = true;
    } catch (const std::exception&) {
    }
  }
  DecodeFindings pruned = decode_json(*schema, obj);  // removes the unknown fields from what is stored
  if (!from_text) found = std::move(pruned);
  if (!found.error.empty()) throw ApiError::bad_request(prefix + found.error);
  apply_directive(found.strict, fv, warnings, prefix);
}

void decode_patched(const ResourceType& t, PatchType type, const json& patch_body, json& patched, FieldValidation fv,
                    std::vector<std::string>& warnings) {
  auto schema = body_schema(t, patched);
  if (!schema) return;
  const std::string before = type == PatchType::Strategic ? go_map_text(patch_body)
                                                          : patched.dump(-1, ' ', false, json::error_handler_t::replace);
  DecodeFindings found = type == PatchType::Strategic ? convert_unstructured(*schema, patched) : decode_json(*schema, patched);
  if (!found.error.empty()) {
    // handlers/patch.go: errors.NewInvalid(schema.GroupKind{}, "", field.Invalid(field.NewPath("patch"), ...)).
    const std::string cause = "Invalid value: " + json(before).dump(-1, ' ', false, json::error_handler_t::replace) +
                              ": " + found.error;
    throw ApiError(422, "Invalid", " \"\" is invalid: patch: " + cause,
                   {{"causes", json::array({{{"reason", "FieldValueInvalid"}, {"message", cause}, {"field", "patch"}}})}});
  }
  apply_directive(found.strict, fv, warnings, "");
}

void check_apply_body(const ResourceType& t, const json& body, const std::string& ns, const std::string& name) {
  auto schema = body_schema(t, body);
  if (!schema) return;
  auto errors = apply_errors(*schema, body);
  if (errors.empty()) return;
  std::string text;
  if (errors.size() == 1) {
    text = errors[0];
  } else {
    text = "errors:";
    for (const auto& e : errors) text += "\n  " + e;
  }
  const std::string av = body.is_object() && body.contains("apiVersion") && body["apiVersion"].is_string()
                             ? body["apiVersion"].get<std::string>()
                             : t.api_version();
  const std::string gv = av.find('/') == std::string::npos ? "/" + av : av;
  // structuredmerge.go returns a plain error here, which the server answers as 500.
  throw ApiError(500, "", "failed to create typed patch object (" + ns + "/" + name + "; " + gv + ", Kind=" + t.kind + "): " + text,
                 nullptr);
}

std::vector<std::string> drop_unknown_fields(const ResourceType& t, json& obj) {
  auto schema = body_schema(t, obj);
  if (!schema) return {};
  return decode_json(*schema, obj).strict;
}

std::string warning_header(const std::string& text) {
  std::string escaped;
  for (char c : text) {
    if (c == '"' || c == '\\') escaped += '\\';
    escaped += c;
  }
  return "299 - \"" + escaped + "\"";
}

}  // namespace kubesim::openapi
