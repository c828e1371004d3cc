#include "kubesim/openapi/openapi_documents.h"

#include "kubesim/api_error.h"
#include "kubesim/openapi/swagger_document.h"

#include <openssl/evp.h>

#include <map>
#include <memory>
#include <mutex>
#include <set>

namespace kubesim::openapi {

using nlohmann::json;

namespace {

const std::string kDefinitions = "#/definitions/";
const std::string kSchemas = "#/components/schemas/";
const std::string kParameters = "#/parameters/";

std::string sha512_hex(const std::string& text) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(text.data(), text.size(), md, &len, EVP_sha512(), nullptr);
  static const char hex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += hex[md[i] >> 4];
    out += hex[md[i] & 15];
  }
  return out;
}

std::string dump(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

// The /openapi/v3 key of a swagger path: "api/v1", "apis/apps/v1", "apis/apps", "apis", "version".
std::string group_version_key(const std::string& path) {
  std::vector<std::string> parts;
  size_t start = 1;
  while (start <= path.size()) {
    auto pos = path.find('/', start);
    std::string part = path.substr(start, pos == std::string::npos ? std::string::npos : pos - start);
    if (!part.empty()) parts.push_back(part);
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  if (parts.empty()) return "";
  if (parts[0] == "api") return parts.size() >= 2 ? "api/" + parts[1] : "api";
  if (parts[0] == "apis") {
    if (parts.size() >= 3) return "apis/" + parts[1] + "/" + parts[2];
    if (parts.size() == 2) return "apis/" + parts[1];
    return "apis";
  }
  std::string key;  // e.g. ".well-known/openid-configuration", "logs", "version"
  for (const auto& part : parts) {
    if (part.find('{') != std::string::npos) break;
    key += (key.empty() ? "" : "/") + part;
  }
  return key;
}

// ---- CRDs in the v2 document -------------------------------------------------

json crd_definition(const ResourceType& t) {
  json def = t.schema.is_object() ? t.schema : json{{"type", "object"}, {"x-kubernetes-preserve-unknown-fields", true}};
  if (!def.contains("type")) def["type"] = "object";
  json& props = def["properties"];
  if (!props.is_object()) props = json::object();
  props["apiVersion"] = {
      {"description",
       "APIVersion defines the versioned schema of this representation of an object. Servers should convert recognized "
       "schemas to the latest internal value, and may reject unrecognized values. More info: "
       "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources"},
      {"type", "string"}};
  props["kind"] = {
      {"description",
       "Kind is a string value representing the REST resource this object represents. Servers may infer this from the "
       "endpoint the client submits requests to. Cannot be updated. In CamelCase. More info: "
       "https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds"},
      {"type", "string"}};
  props["metadata"] = {{"$ref", kDefinitions + "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"}};
  def["x-kubernetes-group-version-kind"] = json::array({{{"group", t.group}, {"kind", t.kind}, {"version", t.version}}});
  return def;
}

json crd_list_definition(const ResourceType& t, const std::string& name) {
  return {{"description", t.kind + "List is a list of " + t.kind},
          {"required", json::array({"items"})},
          {"type", "object"},
          {"properties",
           {{"apiVersion", {{"type", "string"}, {"description", "APIVersion defines the versioned schema of this representation of an object."}}},
            {"items", {{"type", "array"}, {"items", {{"$ref", kDefinitions + name}}},
                       {"description", "List of " + t.plural + ". More info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md"}}},
            {"kind", {{"type", "string"}, {"description", "Kind is a string value representing the REST resource this object represents."}}},
            {"metadata", {{"$ref", kDefinitions + "io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta"}}}}},
          {"x-kubernetes-group-version-kind",
           json::array({{{"group", t.group}, {"kind", t.kind + "List"}, {"version", t.version}}})}};
}

void replace_all(std::string& s, const std::string& from, const std::string& to) {
  for (size_t pos = s.find(from); pos != std::string::npos; pos = s.find(from, pos + to.size())) s.replace(pos, from.size(), to);
}

// The operations of a CRD's paths, shaped as the API server publishes them for custom
// resources: the Deployment operations of the document with the kind swapped in, without
// strategic merge patch (custom resources do not take it).
json crd_path_item(const json& deployment_item, const ResourceType& t, const std::string& def) {
  json item = deployment_item;
  for (auto it = item.begin(); it != item.end(); ++it) {
    if (!it.value().is_object()) continue;
    json& op = it.value();
    if (op.contains("consumes") && op["consumes"].is_array()) {
      json c = json::array();
      for (const auto& m : op["consumes"])
        if (m != "application/strategic-merge-patch+json" && m != "application/apply-patch+cbor") c.push_back(m);
      op["consumes"] = c;
    }
    op["tags"] = json::array({t.group + "_" + t.version});
    if (op.contains("operationId")) op.erase("operationId");
  }
  if (!t.namespaced) {  // no namespace parameter on cluster-scoped kinds
    auto strip = [](json& params) {
      if (!params.is_array()) return;
      json kept = json::array();
      for (const auto& p : params)
        if (p.value("$ref", "").find("namespace-") == std::string::npos && p.value("name", "") != "namespace") kept.push_back(p);
      params = kept;
    };
    strip(item["parameters"]);
    for (auto it = item.begin(); it != item.end(); ++it)
      if (it.value().is_object()) strip(it.value()["parameters"]);
  }
  std::string text = dump(item);
  // The kind in descriptions; the definitions and group-version-kinds set afterwards, as the
  // CRD's kind may itself contain "Deployment".
  replace_all(text, "io.k8s.api.apps.v1.DeploymentList", "\x01L");
  replace_all(text, "io.k8s.api.apps.v1.Deployment", "\x01D");
  replace_all(text, "Deployment", t.kind);
  replace_all(text, "\x01L", def + "List");
  replace_all(text, "\x01D", def);
  item = json::parse(text);
  for (auto it = item.begin(); it != item.end(); ++it)
    if (it.value().is_object() && it.value().contains("x-kubernetes-group-version-kind") &&
        it.value()["x-kubernetes-group-version-kind"].value("kind", "") != "Scale")
      it.value()["x-kubernetes-group-version-kind"] = {{"group", t.group}, {"kind", t.kind}, {"version", t.version}};
  return item;
}

void add_crd(json& doc, const ResourceType& t) {
  const std::string def = crd_definition_name(t.group, t.version, t.kind);
  doc["definitions"][def] = crd_definition(t);
  doc["definitions"][def + "List"] = crd_list_definition(t, def);
  const json& paths = swagger()["paths"];
  const std::string base = "/apis/" + t.group + "/" + t.version + "/";
  const std::string scoped = base + (t.namespaced ? "namespaces/{namespace}/" : "") + t.plural;
  auto from = [&](const char* deployment_path) -> json {
    auto it = paths.find(deployment_path);
    return it == paths.end() ? json::object() : crd_path_item(*it, t, def);
  };
  doc["paths"][scoped] = from("/apis/apps/v1/namespaces/{namespace}/deployments");
  doc["paths"][scoped + "/{name}"] = from("/apis/apps/v1/namespaces/{namespace}/deployments/{name}");
  if (t.has_status) doc["paths"][scoped + "/{name}/status"] = from("/apis/apps/v1/namespaces/{namespace}/deployments/{name}/status");
  if (t.has_scale) doc["paths"][scoped + "/{name}/scale"] = from("/apis/apps/v1/namespaces/{namespace}/deployments/{name}/scale");
  if (t.namespaced) doc["paths"][base + t.plural] = from("/apis/apps/v1/deployments");
}

// ---- v2 -> v3 ------------------------------------------------------------------

// Rewrites `$ref`s to components and, as the server's OpenAPI v3 builder does, wraps a
// `$ref` that has siblings (a field's own description) in `allOf`, since OpenAPI 3.0
// ignores a `$ref`'s siblings.
void refs_to_v3(json& j, std::set<std::string>& reached) {
  if (j.is_object() && j.contains("$ref") && j.size() > 1 && j["$ref"].is_string()) {
    json ref = {{"$ref", j["$ref"]}};
    j.erase("$ref");
    j["allOf"] = json::array({ref});
  }
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() == "$ref" && it.value().is_string()) {
        std::string r = it.value();
        if (r.rfind(kDefinitions, 0) == 0) {
          reached.insert(r.substr(kDefinitions.size()));
          it.value() = kSchemas + r.substr(kDefinitions.size());
        }
      } else {
        refs_to_v3(it.value(), reached);
      }
    }
  } else if (j.is_array()) {
    for (auto& e : j) refs_to_v3(e, reached);
  }
}

json parameter_to_v3(const json& doc, const json& p, std::set<std::string>& reached) {
  json param = p;
  if (param.contains("$ref") && param["$ref"].is_string()) {
    std::string r = param["$ref"];
    if (r.rfind(kParameters, 0) == 0 && doc["parameters"].contains(r.substr(kParameters.size())))
      param = doc["parameters"][r.substr(kParameters.size())];
  }
  if (param.value("in", "") == "body") return param;
  json out = json::object();
  json schema = json::object();
  for (auto it = param.begin(); it != param.end(); ++it) {
    const std::string& k = it.key();
    if (k == "name" || k == "in" || k == "description" || k == "required") out[k] = it.value();
    else schema[k] = it.value();
  }
  refs_to_v3(schema, reached);
  out["schema"] = schema;
  return out;
}

json operation_to_v3(const json& doc, const json& op, std::set<std::string>& reached) {
  json out = json::object();
  json consumes = op.value("consumes", json::array({"*/*"}));
  json produces = op.value("produces", json::array({"application/json"}));
  for (auto it = op.begin(); it != op.end(); ++it) {
    const std::string& k = it.key();
    if (k == "consumes" || k == "produces" || k == "schemes" || k == "parameters" || k == "responses") continue;
    out[k] = it.value();
  }
  json params = json::array();
  for (const auto& p : op.value("parameters", json::array())) {
    json v3 = parameter_to_v3(doc, p, reached);
    if (v3.value("in", "") == "body") {
      json schema = v3.value("schema", json::object());
      refs_to_v3(schema, reached);
      json content = json::object();
      for (const auto& m : consumes) content[m.get<std::string>()] = {{"schema", schema}};
      out["requestBody"] = {{"content", content}, {"required", v3.value("required", false)}};
    } else {
      params.push_back(v3);
    }
  }
  if (!params.empty()) out["parameters"] = params;
  json responses = json::object();
  const json op_responses = op.value("responses", json::object());
  for (const auto& [code, r] : op_responses.items()) {
    json resp = {{"description", r.value("description", "")}};
    if (r.contains("schema")) {
      json schema = r["schema"];
      refs_to_v3(schema, reached);
      json content = json::object();
      for (const auto& m : produces) content[m.get<std::string>()] = {{"schema", schema}};
      resp["content"] = content;
    }
    responses[code] = resp;
  }
  out["responses"] = responses;
  return out;
}

json group_version_v3(const json& doc, const std::vector<std::string>& path_names) {
  std::set<std::string> reached;
  json paths = json::object();
  for (const auto& name : path_names) {
    const json& item = doc["paths"][name];
    json out = json::object();
    for (auto it = item.begin(); it != item.end(); ++it) {
      if (it.key() == "parameters") {
        json params = json::array();
        for (const auto& p : it.value()) params.push_back(parameter_to_v3(doc, p, reached));
        out["parameters"] = params;
      } else if (it.value().is_object()) {
        out[it.key()] = operation_to_v3(doc, it.value(), reached);
      }
    }
    paths[name] = out;
  }
  // Every definition the paths reach, transitively.
  json schemas = json::object();
  std::vector<std::string> todo(reached.begin(), reached.end());
  std::set<std::string> done;
  while (!todo.empty()) {
    std::string name = todo.back();
    todo.pop_back();
    if (!done.insert(name).second || !doc["definitions"].contains(name)) continue;
    json def = doc["definitions"][name];
    std::set<std::string> more;
    refs_to_v3(def, more);
    for (const auto& m : more)
      if (!done.count(m)) todo.push_back(m);
    schemas[name] = std::move(def);
  }
  return {{"openapi", "3.0.0"},
          {"info", {{"title", "Kubernetes"}, {"version", "v1.32.4"}}},
          {"paths", paths},
          {"components",
           {{"schemas", schemas},
            {"securitySchemes",
             {{"BearerToken",
               {{"type", "apiKey"}, {"description", "Bearer Token authentication"}, {"name", "authorization"}, {"in", "header"}}}}}}}};
}

struct Published {
  std::string v2;                                                      // JSON text
  std::map<std::string, std::pair<std::string, std::string>> v3;  // key -> (text, hash)
  std::string v3_root;
};

// Whether the /openapi/v3 key names something the registry serves: a group-version
// ("api/v1", "apis/apps/v1"), a group with a served version ("apis/apps"), or a path
// outside the resource API ("version", "apis").
bool served(const ResourceRegistry& registry, const std::string& key) {
  if (key.rfind("api/", 0) == 0) return registry.group_version_exists("", key.substr(4));
  if (key.rfind("apis/", 0) != 0) return true;
  const std::string rest = key.substr(5);
  const auto slash = rest.find('/');
  if (slash != std::string::npos) return registry.group_version_exists(rest.substr(0, slash), rest.substr(slash + 1));
  for (const auto& t : registry.all())
    if (t->group == rest) return true;
  return false;
}

Published build(const ResourceRegistry& registry) {
  json doc = swagger();
  for (const auto& t : registry.all())
    if (t->custom) add_crd(doc, *t);
  Published out;
  out.v2 = dump(doc);
  std::map<std::string, std::vector<std::string>> by_key;
  for (auto it = doc["paths"].begin(); it != doc["paths"].end(); ++it) {
    std::string key = group_version_key(it.key());
    if (!key.empty()) by_key[key].push_back(it.key());
  }
  json root = {{"paths", json::object()}};
  for (const auto& [key, names] : by_key) {
    if (!served(registry, key)) continue;  // a 1.32 server publishes what it serves
    std::string text = dump(group_version_v3(doc, names));
    std::string hash = sha512_hex(text);
    root["paths"][key] = {{"serverRelativeURL", "/openapi/v3/" + key + "?hash=" + hash}};
    out.v3.emplace(key, std::make_pair(std::move(text), std::move(hash)));
  }
  out.v3_root = dump(root);
  return out;
}

std::mutex cache_mu;
// Per registry (a process may run several servers): the generation and its documents.
std::map<const ResourceRegistry*, std::pair<uint64_t, std::shared_ptr<const Published>>> cache;

std::shared_ptr<const Published> published(const ResourceRegistry& registry) {
  const uint64_t gen = registry.generation();
  {
    std::lock_guard lock(cache_mu);
    auto it = cache.find(&registry);
    if (it != cache.end() && it->second.first == gen) return it->second.second;
  }
  auto built = std::make_shared<const Published>(build(registry));
  std::lock_guard lock(cache_mu);
  cache[&registry] = {gen, built};
  return built;
}

bool accepts_json(const std::string& accept) {
  return accept.empty() || accept.find("application/json") != std::string::npos || accept.find("*/*") != std::string::npos;
}

}  // namespace

std::string crd_definition_name(const std::string& group, const std::string& version, const std::string& kind) {
  std::vector<std::string> labels;
  size_t start = 0;
  while (true) {
    auto pos = group.find('.', start);
    labels.push_back(group.substr(start, pos == std::string::npos ? std::string::npos : pos - start));
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  std::string out;
  for (auto it = labels.rbegin(); it != labels.rend(); ++it) out += *it + ".";
  return out + version + "." + kind;
}

bool is_openapi_path(const std::string& path) {
  return path == "/openapi/v2" || path == "/openapi/v3" || path == "/openapi/v3/" || path.rfind("/openapi/v3/", 0) == 0;
}

HttpResponse serve_openapi(const ResourceRegistry& registry, const std::string& path, const std::string& hash,
                           const std::string& accept, const std::string& if_none_match) {
  HttpResponse r;
  if (path == "/openapi/v2") {
    if (!accepts_json(accept)) {
      // An empty protobuf message: an OpenAPI v2 document without schemas.
      r.content_type = "application/octet-stream";
      return r;
    }
    r.body = published(registry)->v2;
    return r;
  }
  auto docs = published(registry);
  if (path == "/openapi/v3" || path == "/openapi/v3/") {
    r.body = docs->v3_root;
    return r;
  }
  const std::string key = path.substr(std::string("/openapi/v3/").size());
  auto it = docs->v3.find(key);
  if (it == docs->v3.end()) throw ApiError(404, "NotFound", "the server could not find the requested resource");
  const auto& [text, current] = it->second;
  const std::string etag = "\"" + current + "\"";
  if (!hash.empty() && hash != current) {
    r.status = 301;
    r.headers.push_back({"Location", "/openapi/v3/" + key + "?hash=" + current});
    return r;
  }
  r.headers.push_back({"Etag", etag});
  r.headers.push_back({"Vary", "Accept"});
  if (!hash.empty()) r.headers.push_back({"Cache-Control", "public, immutable"});
  if (if_none_match == etag) {
    r.status = 304;
    return r;
  }
  r.body = text;
  return r;
}

}  // namespace kubesim::openapi
