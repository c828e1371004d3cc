#include "kubesim/openapi/schema_walker.h"

#include "kubesim/openapi/swagger_document.h"

#include <set>

namespace kubesim::openapi {

using nlohmann::json;

namespace {

const std::string kRefPrefix = "#/definitions/";

// Types whose UnmarshalJSON takes any JSON value and keeps it as it came.
const std::set<std::string> kAnyValue = {
    "io.k8s.apimachinery.pkg.runtime.RawExtension",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSON",
    "io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1",
    "io.k8s.apimachinery.pkg.apis.meta.v1.Patch",
    // A schema or a list / bool / string list: decoded by hand, without strictness.
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrArray",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrBool",
    "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.JSONSchemaPropsOrStringArray",
};

// "io.k8s.api.apps.v1.DeploymentSpec" -> {"v1", "DeploymentSpec"}.
std::pair<std::string, std::string> go_package_and_name(const std::string& definition) {
  auto last = definition.rfind('.');
  if (last == std::string::npos) return {"", definition};
  auto prev = definition.rfind('.', last - 1);
  std::string package = definition.substr(prev == std::string::npos ? 0 : prev + 1,
                                          last - (prev == std::string::npos ? 0 : prev + 1));
  return {package, definition.substr(last + 1)};
}

SchemaNode classify(const json& s, const std::string& definition) {
  SchemaNode n;
  n.schema = &s;
  n.definition = definition;
  if (!s.is_object()) return n;
  if (kAnyValue.count(definition) || s.value("x-kubernetes-preserve-unknown-fields", false)) return n;
  if (definition == "io.k8s.apimachinery.pkg.util.intstr.IntOrString" || s.value("x-kubernetes-int-or-string", false) ||
      s.value("format", "") == "int-or-string") {
    n.shape = Shape::IntOrString;
    return n;
  }
  if (definition == "io.k8s.apimachinery.pkg.api.resource.Quantity") {
    n.shape = Shape::Quantity;
    return n;
  }
  if (definition == "io.k8s.apimachinery.pkg.apis.meta.v1.Time" ||
      definition == "io.k8s.apimachinery.pkg.apis.meta.v1.MicroTime") {
    n.shape = Shape::Time;
    return n;
  }
  const std::string type = s.value("type", "");
  const std::string format = s.value("format", "");
  if (s.contains("properties") && s["properties"].is_object()) n.shape = Shape::Struct;
  else if (s.contains("additionalProperties") && s["additionalProperties"].is_object()) n.shape = Shape::Map;
  else if (type == "object") n.shape = Shape::Struct;  // a struct without fields: every field is unknown
  else if (type == "array") n.shape = Shape::List;
  else if (type == "string") n.shape = format == "byte" ? Shape::Bytes : Shape::String;
  else if (type == "integer") n.shape = format == "int32" ? Shape::Int32 : Shape::Int64;
  else if (type == "number") n.shape = Shape::Float;
  else if (type == "boolean") n.shape = Shape::Bool;
  return n;
}

}  // namespace

SchemaNode resolve(const json& schema) {
  if (schema.is_object()) {
    auto ref = schema.find("$ref");
    if (ref != schema.end() && ref->is_string()) {
      const std::string& r = ref->get_ref<const std::string&>();
      if (r.rfind(kRefPrefix, 0) == 0) return resolve_definition(r.substr(kRefPrefix.size()));
    }
  }
  return classify(schema, "");
}

SchemaNode resolve_definition(const std::string& name) {
  const json* d = definition(name);
  if (!d) {
    SchemaNode any;
    any.definition = name;
    return any;
  }
  return classify(*d, name);
}

const json* SchemaNode::field(const std::string& name) const {
  if (shape != Shape::Struct || !schema) return nullptr;
  auto props = schema->find("properties");
  if (props == schema->end() || !props->is_object()) return nullptr;
  auto it = props->find(name);
  return it == props->end() ? nullptr : &*it;
}

const json* SchemaNode::element() const {
  if (!schema) return nullptr;
  const char* key = shape == Shape::Map ? "additionalProperties" : shape == Shape::List ? "items" : nullptr;
  if (!key) return nullptr;
  auto it = schema->find(key);
  return it == schema->end() || !it->is_object() ? nullptr : &*it;
}

std::string SchemaNode::go_struct() const { return definition.empty() ? "" : go_package_and_name(definition).second; }

std::string SchemaNode::go_type() const {
  auto elem_type = [&] {
    const json* e = element();
    return e ? resolve(*e).go_type() : std::string("interface {}");
  };
  switch (shape) {
    case Shape::Struct:
    case Shape::IntOrString:
    case Shape::Quantity:
    case Shape::Time: {
      if (definition.empty()) return "map[string]interface {}";
      auto [package, name] = go_package_and_name(definition);
      return package + "." + name;
    }
    case Shape::Map: return "map[string]" + elem_type();
    case Shape::List: return "[]" + elem_type();
    case Shape::String: return "string";
    case Shape::Bytes: return "[]uint8";
    case Shape::Int32: return "int32";
    case Shape::Int64: return "int64";
    case Shape::Float: return "float64";
    case Shape::Bool: return "bool";
    case Shape::Any: break;
  }
  return "interface {}";
}

}  // namespace kubesim::openapi
