#include "kubesim/api_server.h"

#include "kubesim/api_error.h"
#include "kubesim/authorization/access_reviews.h"
#include "kubesim/authorization/impersonation.h"
#include "kubesim/body_codec.h"
#include "kubesim/conversion/hpa_versions.h"
#include "kubesim/object_rules.h"
#include "kubesim/openapi/field_validation.h"
#include "kubesim/openapi/openapi_documents.h"
#include "kubesim/patch_adapter.h"
#include "kubesim/portforward/port_forward_request.h"
#include "kubesim/protobuf/protobuf_body.h"
#include "kubesim/rbac_escalation.h"
#include "kubesim/table_printer.h"
#include "kubesim/validation/validate.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <thread>
#include <tuple>

namespace kubesim {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

namespace {

// The wire form of a response body. Go's encoding/json writes invalid UTF-8 (e.g. echoed
// from a malformed body or a %-escaped URL) as U+FFFD; json::dump() would throw instead,
// and a body that cannot be serialised is a request left without an answer.
std::string wire(const json& body) { return body.dump(-1, ' ', false, json::error_handler_t::replace); }

std::string url_decode(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '%' && i + 2 < s.size() && std::isxdigit(static_cast<unsigned char>(s[i + 1])) &&
        std::isxdigit(static_cast<unsigned char>(s[i + 2]))) {
      out += static_cast<char>(std::stoi(s.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else if (s[i] == '+') {
      out += ' ';
    } else {
      out += s[i];
    }
  }
  return out;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= s.size()) {
    auto pos = s.find(sep, start);
    std::string part = s.substr(start, pos == std::string::npos ? std::string::npos : pos - start);
    if (!part.empty()) out.push_back(part);
    if (pos == std::string::npos) break;
    start = pos + 1;
  }
  return out;
}

// Go strconv.ParseBool: the Python client sends "True".
bool truthy(const std::string& v) { return v == "1" || v == "t" || v == "T" || v == "true" || v == "TRUE" || v == "True"; }

// ValidateListOptions of a plain LIST (apimachinery internalversion/validation):
// 422 Invalid on ListOptions.meta.k8s.io, as the apiserver answers.
void validate_list_options(const std::string& rv, const std::string& match, const std::string& cont,
                           bool send_initial_events) {
  json causes = json::array();
  auto forbid = [&](const std::string& field, const std::string& why) {
    causes.push_back({{"reason", "FieldValueForbidden"}, {"field", field}, {"message", "Forbidden: " + why}});
  };
  if (!match.empty()) {
    if (rv.empty()) forbid("resourceVersionMatch", "resourceVersionMatch is forbidden unless resourceVersion is provided");
    if (!cont.empty()) forbid("resourceVersionMatch", "resourceVersionMatch is forbidden when continue is provided");
    if (match != "Exact" && match != "NotOlderThan")
      causes.push_back({{"reason", "FieldValueNotSupported"}, {"field", "resourceVersionMatch"},
                        {"message", "Unsupported value: \"" + match +
                                        "\": supported values: \"Exact\", \"NotOlderThan\", \"\""}});
    if (match == "Exact" && rv == "0")
      forbid("resourceVersionMatch", "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\"");
  }
  if (send_initial_events) forbid("sendInitialEvents", "sendInitialEvents is forbidden for list");
  if (!causes.empty()) throw ApiError::invalid("meta.k8s.io", "ListOptions", "", causes);
}

std::string scale_selector(const ResourceType& t, const json& obj) {
  if (!t.scale_selector_path.empty()) return eval_jsonpath(obj, t.scale_selector_path);
  if (!obj.contains("spec") || !obj["spec"].contains("selector")) return "";
  const json& sel = obj["spec"]["selector"];
  std::string out;
  if (sel.contains("matchLabels"))
    for (const auto& [k, v] : sel["matchLabels"].items()) out += (out.empty() ? "" : ",") + k + "=" + v.get<std::string>();
  if (sel.contains("matchExpressions"))
    for (const auto& e : sel["matchExpressions"]) {
      std::string op = e.value("operator", "");
      std::string item;
      if (op == "Exists") item = e.value("key", "");
      else if (op == "DoesNotExist") item = "!" + e.value("key", "");
      else {
        std::string vs;
        for (const auto& v : e.value("values", json::array())) vs += (vs.empty() ? "" : ",") + v.get<std::string>();
        item = e.value("key", "") + (op == "In" ? " in (" : " notin (") + vs + ")";
      }
      out += (out.empty() ? "" : ",") + item;
    }
  return out;
}

json::json_pointer pointer_of(const std::string& dotted) {
  std::string p;
  for (const auto& part : split(dotted, '.')) p += "/" + part;
  return json::json_pointer(p);
}

json to_scale(const ResourceType& t, const json& obj) {
  const json& md = obj["metadata"];
  json scale = {{"kind", "Scale"},
                {"apiVersion", "autoscaling/v1"},
                {"metadata",
                 {{"name", md.value("name", "")}, {"uid", md.value("uid", "")},
                  {"resourceVersion", md.value("resourceVersion", "")},
                  {"creationTimestamp", md.value("creationTimestamp", "")}}},
                {"spec", json::object()},
                {"status", {{"replicas", 0}}}};
  if (md.contains("namespace")) scale["metadata"]["namespace"] = md["namespace"];
  auto spec_p = pointer_of(t.scale_spec_path), status_p = pointer_of(t.scale_status_path);
  if (obj.contains(spec_p)) scale["spec"]["replicas"] = obj[spec_p];
  if (obj.contains(status_p)) scale["status"]["replicas"] = obj[status_p];
  std::string sel = scale_selector(t, obj);
  if (!sel.empty()) scale["status"]["selector"] = sel;
  return scale;
}

// Consumes the items (a list of thousands of objects is moved, never copied).
json list_body(const ResourceType& t, ListResult& r) {
  json md = {{"resourceVersion", std::to_string(r.rv)}};
  if (!r.continue_token.empty()) md["continue"] = r.continue_token;
  if (r.remaining > 0) md["remainingItemCount"] = r.remaining;
  json items = json::array();
  items.get_ref<json::array_t&>().reserve(r.items.size());
  for (auto& obj : r.items) {
    obj["apiVersion"] = t.api_version();
    items.push_back(std::move(obj));
  }
  r.items.clear();
  json body = json::object();
  body["kind"] = t.list_kind();
  body["apiVersion"] = t.api_version();
  body["metadata"] = std::move(md);
  body["items"] = std::move(items);
  return body;
}

std::string accept_discovery(const std::string& accept) {
  for (const auto& entry : split(accept, ',')) {
    if (entry.find("as=APIGroupDiscoveryList") != std::string::npos) {
      if (entry.find("v=v2beta1") != std::string::npos) return "v2beta1";
      if (entry.find("v=v2") != std::string::npos) return "v2";
      continue;
    }
    return "";
  }
  return "";
}

const char* kTableContentType = "application/json;as=Table;v=v1;g=meta.k8s.io";

}  // namespace

struct ApiServer::Call {
  const HttpRequest& req;
  std::string path;
  std::map<std::string, std::string> query;
  Identity identity;
  RequestRecord rec;
  ResourceTypePtr type;
  bool table = false;
  bool watch = false;
  bool logged = false;
  std::vector<std::string> warnings;  // strict decoding findings under fieldValidation=Warn

  explicit Call(const HttpRequest& r) : req(r) {}
  std::string q(const std::string& k) const {
    auto it = query.find(k);
    return it == query.end() ? "" : it->second;
  }
};

ApiServer::ApiServer(Store& store, TokenAuthenticator& tokens, RequestLog& log, ApiServerOptions opts)
    : store_(store), registry_(store.registry()), tokens_(tokens), log_(log), opts_(opts),
      authz_(store, opts.authorization_mode), sa_tokens_(store) {}

void ApiServer::shutdown() {
  stopping_ = true;
  service_proxy_.shutdown();
  store_.close_watches();
}

void ApiServer::handle(const HttpRequest& req, ResponseWriter& out) {
  Call c(req);
  auto qpos = req.target.find('?');
  c.path = url_decode(req.target.substr(0, qpos));
  if (qpos != std::string::npos)
    for (const auto& kv : split(req.target.substr(qpos + 1), '&')) {
      auto eq = kv.find('=');
      std::string k = url_decode(kv.substr(0, eq));
      std::string v = eq == std::string::npos ? "" : url_decode(kv.substr(eq + 1));
      c.query.emplace(k, v);
    }
  c.rec.method = req.method;
  c.rec.user_agent = req.header("user-agent");
  c.rec.content_type = req.header("content-type");

  auto send = [&](int status, const json& body, const std::string& ct = "application/json") {
    HttpResponse r;
    r.status = status;
    r.content_type = ct;
    r.body = body.is_null() ? "" : wire(body);
    if (body.is_object() && body.value("kind", "") == "Status" && body.contains("details") &&
        body["details"].contains("retryAfterSeconds"))
      r.headers.push_back({"Retry-After", std::to_string(body["details"]["retryAfterSeconds"].get<int>())});
    out.send(r);
    c.rec.code = status;
  };

  const bool admin = c.path.rfind("/sim/v1/", 0) == 0;
  try {
    if (admin) {
      serve_admin(c, out);
      return;
    }
    if (c.path == "/healthz" || c.path == "/readyz" || c.path == "/livez") {
      HttpResponse r;
      r.content_type = "text/plain; charset=utf-8";
      r.body = "ok";
      out.send(r);
      return;
    }
    // Authentication.
    c.identity = req.cert_identity;
    std::string authz = req.header("authorization");
    if (!c.identity.authenticated() && authz.rfind("Bearer ", 0) == 0) {
      auto id = tokens_.lookup(authz.substr(7));
      if (!id) id = sa_tokens_.authenticate(authz.substr(7));
      if (!id) throw ApiError(401, "Unauthorized", "Unauthorized");
      c.identity = *id;
    }
    if (!c.identity.authenticated()) {
      if (opts_.require_auth && c.path != "/version") throw ApiError(401, "Unauthorized", "Unauthorized");
      c.identity.user = "system:anonymous";
      c.identity.groups = {"system:unauthenticated"};
    }
    c.identity = authorization::impersonate(authz_, c.identity, req.header_list);  // --as, --as-group
    c.rec.user = c.identity.user;
    if (authz_.enforced_for(c.identity)) {  // RBAC: 403 before any work, logged with what was refused
      const auto a = rbac::request_attributes(req.method, c.path, c.query);
      if (a.resource_request)
        std::tie(c.rec.verb, c.rec.group, c.rec.version, c.rec.resource, c.rec.subresource, c.rec.ns, c.rec.name) =
            std::tie(a.verb, a.api_group, a.api_version, a.resource, a.subresource, a.ns, a.name);
      authz_.check(c.identity, a);
    }
    if (req.body_too_large)
      throw ApiError(413, "RequestEntityTooLarge", "Request entity too large: limit is 3145728");
    if (!serve_discovery(c, out)) serve_resource(c, out);
  } catch (const ApiError& e) {
    try {
      send(e.code(), e.to_status());
    } catch (...) {
    }
  } catch (const nlohmann::json::exception& e) {
    // A body with the wrong JSON types where an object, string or list was expected.
    try {
      send(400, ApiError::bad_request(std::string("the body of the request was in an unknown format: ") + e.what())
                    .to_status());
    } catch (...) {
    }
  } catch (const std::exception& e) {
    spdlog::error("kube-sim: {} {}: {}", req.method, req.target, e.what());
    try {
      send(500, ApiError(500, "InternalError", std::string("Internal error occurred: ") + e.what()).to_status());
    } catch (...) {
    }
  }
  if (!admin && !c.logged) {
    if (c.rec.resource.empty()) c.rec.path = c.path;
    log_.add(c.rec);
  }
}

bool ApiServer::serve_discovery(Call& c, ResponseWriter& out) {
  const std::string& p = c.path;
  auto send_json = [&](const json& body, const std::string& ct = "application/json") {
    HttpResponse r;
    r.content_type = ct;
    r.body = wire(body);
    out.send(r);
    c.rec.code = 200;
  };
  if (c.req.method != "GET" && (p == "/version" || p == "/api" || p == "/apis" || p.rfind("/openapi", 0) == 0)) {
    throw ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
  }
  if (p == "/version" || p == "/version/") {
    send_json({{"major", "1"}, {"minor", "32"}, {"gitVersion", "v1.32.4"}, {"gitCommit", "kube-sim"},
               {"gitTreeState", "clean"}, {"buildDate", "2026-01-01T00:00:00Z"}, {"goVersion", "go1.23.6"},
               {"compiler", "gc"}, {"platform", "linux/amd64"}});
    return true;
  }
  if (openapi::is_openapi_path(p)) {  // openapi/openapi_documents.h
    HttpResponse r = openapi::serve_openapi(registry_, p, c.q("hash"), c.req.header("accept"), c.req.header("if-none-match"));
    out.send(r);
    c.rec.code = r.status;
    return true;
  }
  if (p == "/api" || p == "/apis" || p == "/api/" || p == "/apis/") {
    const bool core = p.rfind("/api/", 0) == 0 || p == "/api";
    std::string v = accept_discovery(c.req.header("accept"));
    if (!v.empty()) {
      send_json(registry_.aggregated_discovery(core, "apidiscovery.k8s.io/" + v),
                "application/json;g=apidiscovery.k8s.io;v=" + v + ";as=APIGroupDiscoveryList");
    } else {
      send_json(core ? registry_.legacy_api_versions() : registry_.legacy_group_list());
    }
    return true;
  }
  auto segs = split(p, '/');
  if (segs.size() == 2 && segs[0] == "api") {
    auto doc = registry_.legacy_resource_list("", segs[1]);
    if (!doc) throw ApiError(404, "NotFound", "the server could not find the requested resource");
    send_json(*doc);
    return true;
  }
  if (segs.size() == 2 && segs[0] == "apis") {
    auto doc = registry_.legacy_group(segs[1]);
    if (!doc) throw ApiError(404, "NotFound", "the server could not find the requested resource");
    send_json(*doc);
    return true;
  }
  if (segs.size() == 3 && segs[0] == "apis") {
    auto doc = registry_.legacy_resource_list(segs[1], segs[2]);
    if (!doc) throw ApiError(404, "NotFound", "the server could not find the requested resource");
    send_json(*doc);
    return true;
  }
  return false;
}

void ApiServer::serve_resource(Call& c, ResponseWriter& out) {
  auto segs = split(c.path, '/');
  const ApiError not_found(404, "NotFound", "the server could not find the requested resource");
  std::string group, version;
  std::vector<std::string> rest;
  if (segs.size() >= 3 && segs[0] == "api") {
    version = segs[1];
    rest.assign(segs.begin() + 2, segs.end());
  } else if (segs.size() >= 4 && segs[0] == "apis") {
    group = segs[1];
    version = segs[2];
    rest.assign(segs.begin() + 3, segs.end());
  } else {
    throw not_found;
  }
  if (!rest.empty() && rest[0] == "watch") {
    c.watch = true;
    rest.erase(rest.begin());
  }
  std::string ns, resource, name, sub;
  if (rest.size() >= 3 && rest[0] == "namespaces") {
    auto t = registry_.find(group, version, rest[2]);
    if (t && t->namespaced) {
      ns = rest[1];
      rest.erase(rest.begin(), rest.begin() + 2);
    }
  }
  // services/{name}[:port]/proxy/{path...}: the path after /proxy goes to the Service.
  std::string proxy_path;
  if (group.empty() && rest.size() >= 3 && rest[0] == "services" && rest[2] == "proxy") {
    for (size_t i = 3; i < rest.size(); ++i) proxy_path += "/" + rest[i];
    rest.resize(3);
  }
  if (rest.empty() || rest.size() > 3) throw not_found;
  resource = rest[0];
  if (rest.size() >= 2) name = rest[1];
  if (rest.size() == 3) sub = rest[2];
  c.type = registry_.find(group, version, resource);
  c.rec.group = group;
  c.rec.version = version;
  c.rec.resource = resource;
  c.rec.subresource = sub;
  c.rec.ns = ns;
  c.rec.name = name;
  if (!c.type) throw not_found;
  const ResourceType& t = *c.type;
  if (!t.namespaced && !ns.empty()) throw not_found;
  if (sub == "token" && t.group.empty() && t.plural == "serviceaccounts" && c.req.method == "POST") {  // rbac_tokens.h
    c.rec.verb = "create";
    HttpResponse r;
    r.status = 201;
    r.body = wire(sa_tokens_.request(ns, name, rbac::token_request_body(c.req.body, c.req.header("content-type"))));
    out.send(r);
    c.rec.code = 201;
    return;
  }
  if (sub == "portforward" && t.group.empty() && t.plural == "pods" && !ns.empty() &&
      (c.req.method == "POST" || c.req.method == "GET")) {  // portforward/port_forward_request.h
    c.rec.verb = c.req.method == "POST" ? "create" : "get";
    auto pod = store_.try_get(t, ns, name);
    if (!pod) throw ApiError::not_found("", "pods", name);
    c.rec.code = portforward::serve_request(c.req, out, *pod, store_, t, *registry_.find("", "v1", "services"),
                                            service_proxy_);
    return;
  }
  const bool proxy = sub == "proxy" && t.group.empty() && t.plural == "services" && !ns.empty();
  if (!sub.empty() && !proxy && !((sub == "status" && t.has_status) || (sub == "scale" && t.has_scale))) throw not_found;
  c.table = c.req.header("accept").find("as=Table") != std::string::npos;
  const std::string& m = c.req.method;
  const bool want_watch = c.watch || truthy(c.q("watch"));

  std::string verb;
  if (m == "GET") verb = name.empty() ? (want_watch ? "watch" : "list") : "get";
  else if (m == "POST") verb = "create";
  else if (m == "PUT") verb = "update";
  else if (m == "PATCH") verb = "patch";
  else if (m == "DELETE") verb = name.empty() ? "deletecollection" : "delete";
  c.rec.verb = verb;
  auto method_not_allowed = [] {
    return ApiError(405, "MethodNotAllowed", "the server does not allow this method on the requested resource");
  };
  if (verb.empty()) throw method_not_allowed();
  // A verb the resource does not have (discovery's list) has no route on a real server.
  if (sub.empty() && std::find(t.verbs.begin(), t.verbs.end(), verb) == t.verbs.end()) throw method_not_allowed();
  if (proxy) {  // service_proxy.h
    const std::string service = split_service_port(name).first;
    if (!store_.try_get(t, ns, service)) throw ApiError::not_found("", "services", service);
    const auto q = c.req.target.find('?');
    HttpResponse r = service_proxy_.forward(ns, name, proxy_path, q == std::string::npos ? "" : c.req.target.substr(q + 1), c.req);
    out.send(r);
    c.rec.code = r.status;
    return;
  }
  if ((verb == "create" && !name.empty()) || ((verb == "update" || verb == "patch") && name.empty()))
    throw method_not_allowed();
  if (t.namespaced && ns.empty() && (verb == "create" || verb == "deletecollection" || !name.empty()))
    throw not_found;
  // Injected faults (/sim/v1/faults) answer a routed request before any work is done.
  if (auto fault = faults_.take(verb, resource, group, ns, name, c.rec.user_agent, c.identity.user)) {
    chaos_.count("status" + std::to_string(fault->code()));
    throw *fault;
  }
  // Random faults (/sim/v1/chaos): latency, then maybe a 409/429/500/503.
  ChaosDecision chaos = chaos_.on_request(verb, resource, group, name, c.rec.user_agent);
  if (chaos.delay.count() > 0) std::this_thread::sleep_for(chaos.delay);
  if (chaos.error) throw *chaos.error;

  auto send = [&](int status, const json& body) {
    HttpResponse r;
    r.status = status;
    r.body = wire(body);
    for (const auto& w : c.warnings) r.headers.push_back({"Warning", openapi::warning_header(w)});
    out.send(r);
    c.rec.code = status;
    c.rec.warnings = c.warnings;
  };
  // RBAC escalation prevention on Role/Binding writes (rbac_escalation.h).
  if (verb == "create" || verb == "update" || verb == "patch")
    rbac::admit_write(authz_, store_, c.identity, t, verb, ns, name, c.req.body, c.req.header("content-type"), c.query,
                      c.q("fieldManager"));
  auto view = [&](json obj) {
    obj = conversion::from_storage(t, std::move(obj));  // hpa_versions.h
    if (obj.is_object()) obj["apiVersion"] = t.api_version();
    return obj;
  };
  auto as_table_or_object = [&](const json& obj) {
    if (!c.table) return view(obj);
    json tbl = make_table(t, {obj}, true, c.q("includeObject").empty() ? "Metadata" : c.q("includeObject"));
    tbl["metadata"]["resourceVersion"] = obj["metadata"].value("resourceVersion", "");
    return tbl;
  };
  const std::string dry_run = c.q("dryRun");
  if (!dry_run.empty() && dry_run != "All")
    throw ApiError::invalid("meta.k8s.io", "CreateOptions", "",
                            json::array({{{"reason", "FieldValueNotSupported"}, {"field", "dryRun"},
                                          {"message", "Unsupported value: \"" + dry_run + "\": supported values: \"All\""}}}));
  WriteOptions wo;
  wo.dry_run = dry_run == "All";
  wo.subresource = sub == "status" ? "status" : "";
  const std::string fv = c.q("fieldValidation");
  if (!fv.empty() && fv != "Strict" && fv != "Warn" && fv != "Ignore")
    throw ApiError::bad_request("fieldValidation must be one of \"Ignore\", \"Warn\", or \"Strict\"");
  wo.strict_fields = fv == "Strict";
  const auto directive = openapi::field_validation(fv);
  std::string manager = c.q("fieldManager");
  if (manager.empty()) {
    manager = c.rec.user_agent.substr(0, c.rec.user_agent.find('/'));
    if (manager.empty()) manager = "unknown";
  }
  wo.field_manager = manager;

  if (verb == "get") {
    json obj = store_.get(t, ns, name);
    if (sub == "scale") return send(200, to_scale(t, obj));
    return send(200, as_table_or_object(obj));
  }
  if (verb == "list") {
    ListOptions lo;
    lo.ns = ns;
    lo.labels = LabelSelector::parse(c.q("labelSelector"));
    lo.fields = FieldSelector::parse(c.q("fieldSelector"), t);
    if (!c.q("limit").empty()) {
      try {
        lo.limit = std::stoll(c.q("limit"));
      } catch (...) {
        throw ApiError::bad_request("invalid limit \"" + c.q("limit") + "\"");
      }
    }
    lo.continue_token = c.q("continue");
    lo.resource_version = c.q("resourceVersion");
    lo.resource_version_match = c.q("resourceVersionMatch");
    validate_list_options(lo.resource_version, lo.resource_version_match, lo.continue_token,
                          !c.q("sendInitialEvents").empty());
    if (!c.table && conversion::converts(t)) {
      ListResult r = store_.list(t, lo);
      for (auto& item : r.items) item = conversion::from_storage(t, std::move(item));
      return send(200, list_body(t, r));
    }
    if (!c.table) {
      // The items as stored text, joined: the keys in nlohmann's (sorted) order.
      lo.as_text = true;
      ListResult r = store_.list(t, lo);
      json md = {{"resourceVersion", std::to_string(r.rv)}};
      if (!r.continue_token.empty()) md["continue"] = r.continue_token;
      if (r.remaining > 0) md["remainingItemCount"] = r.remaining;
      size_t size = 128;
      for (const auto& item : r.texts) size += item->size() + 1;
      HttpResponse resp;
      resp.status = 200;
      resp.body.reserve(size);
      resp.body += "{\"apiVersion\":" + json(t.api_version()).dump() + ",\"items\":[";
      for (size_t i = 0; i < r.texts.size(); ++i) {
        if (i) resp.body += ',';
        resp.body += *r.texts[i];
      }
      resp.body += "],\"kind\":" + json(t.list_kind()).dump() + ",\"metadata\":" + wire(md) + "}";
      out.send(resp);
      c.rec.code = 200;
      return;
    }
    ListResult r = store_.list(t, lo);
    json tbl = make_table(t, r.items, true, c.q("includeObject").empty() ? "Metadata" : c.q("includeObject"));
    tbl["metadata"]["resourceVersion"] = std::to_string(r.rv);
    if (!r.continue_token.empty()) tbl["metadata"]["continue"] = r.continue_token;
    if (r.remaining > 0) tbl["metadata"]["remainingItemCount"] = r.remaining;
    return send(200, tbl);
  }
  if (verb == "watch") return serve_watch(c, out);

  const std::string ct = c.req.header("content-type");
  if (!t.stored) {  // create-only kinds answered per request (authorization/access_reviews.h)
    if (!authorization::is_review(t)) throw not_found;
    // A SelfSubjectReview asks nothing of its body (`kubectl auth whoami` sends protobuf).
    if (t.plural == "selfsubjectreviews")
      return send(201, authorization::answer_review(t, ns, json::object(), c.identity, authz_));
  }
  // Built-in kinds take protobuf bodies (protobuf/protobuf_body.h), custom resources only JSON and YAML.
  const bool protobuf_accepted = t.builtin && protobuf_bodies_supported();
  if (!c.req.body.empty() && ((ct.find("protobuf") != std::string::npos && !protobuf_accepted) ||
                              ct.find("cbor") != std::string::npos))
    throw ApiError(415, "UnsupportedMediaType",
                   std::string("the body of the request was in an unknown format - accepted media types include: "
                               "application/json, application/yaml") +
                       (protobuf_accepted ? ", application/vnd.kubernetes.protobuf" : ""));
  if (!t.stored) return send(201, authorization::answer_review(t, ns, parse_body(c.req.body, ct), c.identity, authz_));
  if (verb == "create") {
    if (!sub.empty()) throw method_not_allowed();
    json obj = parse_body(c.req.body, ct);
    openapi::decode_body(t, c.req.body, ct, obj, directive, c.warnings);
    obj = conversion::to_storage(t, std::move(obj), nullptr);
    return send(201, view(store_.create(t, ns, std::move(obj), wo)));
  }
  if (verb == "update") {
    json obj = parse_body(c.req.body, ct);
    if (sub != "scale") openapi::decode_body(t, c.req.body, ct, obj, directive, c.warnings);
    if (sub == "scale") {
      if (!obj.is_object() || !obj.contains("spec") || !obj["spec"].contains("replicas"))
        throw ApiError::bad_request("Scale.autoscaling \"" + name + "\" is invalid: spec.replicas: Required value");
      validation::validate_scale(name, obj);
      const std::string want_rv = obj.contains("metadata") ? obj["metadata"].value("resourceVersion", "") : "";
      json res = store_.mutate(t, ns, name, [&](const json* cur) {
        json next = *cur;
        next[pointer_of(t.scale_spec_path)] = obj["spec"]["replicas"];
        if (!want_rv.empty()) next["metadata"]["resourceVersion"] = want_rv;
        return next;
      }, wo);
      return send(200, to_scale(t, res));
    }
    if (conversion::converts(t)) {
      const auto stored = store_.try_get(t, ns, name);
      obj = conversion::to_storage(t, std::move(obj), stored ? &*stored : nullptr);
    }
    return send(200, view(store_.update(t, ns, name, std::move(obj), wo)));
  }
  if (verb == "patch") {
    std::string kind;
    const std::string mt = ct.substr(0, ct.find(';'));
    if (mt == "application/json-patch+json") kind = "json";
    else if (mt == "application/merge-patch+json") kind = "merge";
    else if (mt == "application/strategic-merge-patch+json" && t.builtin) kind = "strategic";
    else if (mt == "application/apply-patch+yaml") kind = "apply";
    if (kind.empty()) {
      std::string accepted = t.builtin
                                 ? "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml, application/strategic-merge-patch+json"
                                 : "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml";
      throw ApiError(415, "UnsupportedMediaType",
                     "the body of the request was in an unknown format - accepted media types include: " + accepted);
    }
    const bool force = truthy(c.q("force"));
    if (kind != "apply" && !c.q("force").empty())
      throw ApiError::invalid("meta.k8s.io", "PatchOptions", "",
                              json::array({{{"reason", "FieldValueForbidden"}, {"field", "force"},
                                            {"message", "Forbidden: may not be specified for non-apply patch"}}}));
    if (kind == "apply" && c.q("fieldManager").empty())
      throw ApiError::invalid("meta.k8s.io", "PatchOptions", "",
                              json::array({{{"reason", "FieldValueRequired"}, {"field", "fieldManager"},
                                            {"message", "Required value: is required for apply patch"}}}));
    json body = kind == "apply" ? parse_body(c.req.body, "yaml") : parse_json_body(c.req.body);
    auto apply_patch = [&](const json& target) -> json {
      if (kind == "json") return patch::json_patch(target, body);
      if (kind == "merge") {
        if (!body.is_object()) throw ApiError::bad_request("the body of the request was in an unknown format");
        return patch::merge(target, body);
      }
      if (kind == "strategic") return patch::strategic(t, target, body);
      return patch::apply(t, &target, body, manager, force, sub == "status" ? "status" : "");
    };
    if (sub == "scale") {
      json res = store_.mutate(t, ns, name, [&](const json* cur) {
        json scale = to_scale(t, *cur);
        json patched = kind == "apply" ? patch::merge(scale, body) : apply_patch(scale);
        validation::validate_scale(name, patched);
        json next = *cur;
        if (patched.contains("spec") && patched["spec"].contains("replicas"))
          next[pointer_of(t.scale_spec_path)] = patched["spec"]["replicas"];
        return next;
      }, wo);
      return send(200, to_scale(t, res));
    }
    wo.apply = kind == "apply";
    if (kind == "apply") openapi::check_apply_body(t, body, ns, name);
    const bool created_by_apply = kind == "apply" && !store_.try_get(t, ns, name);
    json res = store_.mutate(
        t, ns, name,
        [&](const json* cur) -> json {
          if (!cur) {
            if (!body.is_object()) throw ApiError::bad_request("the body of the request was in an unknown format");
            json seed = body;
            if (!seed.contains("metadata") || !seed["metadata"].is_object()) seed["metadata"] = json::object();
            const std::string body_name = seed["metadata"].value("name", "");
            if (!body_name.empty() && body_name != name)
              throw ApiError::bad_request("the name of the object (" + body_name +
                                          ") does not match the name on the URL (" + name + ")");
            return conversion::to_storage(t, patch::apply(t, nullptr, seed, manager, force), nullptr);
          }
          json target = conversion::from_storage(t, *cur);
          json patched = apply_patch(target);
          if (kind != "apply")
            openapi::decode_patched(t, kind == "json"    ? openapi::PatchType::Json
                                       : kind == "merge" ? openapi::PatchType::Merge
                                                         : openapi::PatchType::Strategic,
                                    body, patched, directive, c.warnings);
          return conversion::to_storage(t, patched, cur);
        },
        wo, kind == "apply");
    return send(created_by_apply ? 201 : 200, view(res));
  }
  if (verb == "delete" || verb == "deletecollection") {
    DeleteOptions d;
    d.dry_run = wo.dry_run;
    if (!c.req.body.empty()) {
      json b = parse_json_body(c.req.body);
      if (b.is_object()) {
        d.propagation = b.value("propagationPolicy", "");
        if (b.contains("orphanDependents") && b["orphanDependents"].is_boolean()) d.orphan_dependents = b["orphanDependents"].get<bool>();
        if (b.contains("preconditions") && b["preconditions"].is_object()) {
          d.precondition_uid = b["preconditions"].value("uid", "");
          d.precondition_rv = b["preconditions"].value("resourceVersion", "");
        }
        if (b.contains("dryRun") && b["dryRun"].is_array() && !b["dryRun"].empty()) d.dry_run = true;
        if (b.contains("gracePeriodSeconds") && b["gracePeriodSeconds"].is_number_integer())
          d.grace_period_seconds = b["gracePeriodSeconds"].get<int64_t>();
      }
    }
    if (!c.q("propagationPolicy").empty()) d.propagation = c.q("propagationPolicy");
    if (!c.q("gracePeriodSeconds").empty()) {
      try {
        d.grace_period_seconds = std::stoll(c.q("gracePeriodSeconds"));
      } catch (...) {
        throw ApiError::bad_request("invalid gracePeriodSeconds \"" + c.q("gracePeriodSeconds") + "\"");
      }
    }
    if (!c.q("orphanDependents").empty()) d.orphan_dependents = truthy(c.q("orphanDependents"));
    if (verb == "delete") {
      DeleteResult r = store_.remove(t, ns, name, d);
      return send(200, view(r.object));
    }
    ListOptions lo;
    lo.ns = ns;
    lo.labels = LabelSelector::parse(c.q("labelSelector"));
    lo.fields = FieldSelector::parse(c.q("fieldSelector"), t);
    ListResult all = store_.list(t, lo);
    ListResult deleted;
    deleted.rv = all.rv;
    for (const auto& obj : all.items) {
      try {
        DeleteResult r = store_.remove(t, obj["metadata"].value("namespace", ""), obj["metadata"].value("name", ""), d);
        deleted.items.push_back(conversion::from_storage(t, r.object));
      } catch (const ApiError& e) {
        if (e.code() != 404) throw;
      }
    }
    deleted.rv = store_.current_rv();
    return send(200, list_body(t, deleted));
  }
  throw method_not_allowed();
}

void ApiServer::serve_watch(Call& c, ResponseWriter& out) {
  const ResourceType& t = *c.type;
  WatchOptions wo;
  wo.ns = c.rec.ns;
  wo.labels = LabelSelector::parse(c.q("labelSelector"));
  wo.fields = FieldSelector::parse(c.q("fieldSelector"), t);
  wo.resource_version = c.q("resourceVersion");
  wo.cut_after = opts_.watch_cut_after;
  const bool bookmarks = truthy(c.q("allowWatchBookmarks"));
  const bool initial_events = truthy(c.q("sendInitialEvents"));
  if (!c.q("sendInitialEvents").empty()) {
    if (c.q("resourceVersionMatch") != "NotOlderThan")
      throw ApiError::invalid("meta.k8s.io", "ListOptions", "",
                              json::array({{{"reason", "FieldValueInvalid"}, {"field", "resourceVersionMatch"},
                                            {"message", "Invalid value: \"" + c.q("resourceVersionMatch") +
                                                            "\": sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"}}}));
    if (initial_events && !wo.resource_version.empty() && wo.resource_version != "0") {
      // State at or after that version: the current state is.
      wo.resource_version = "";
    }
  }
  long long timeout = 1800;
  if (!c.q("timeoutSeconds").empty()) {
    try {
      timeout = std::stoll(c.q("timeoutSeconds"));
    } catch (...) {
      throw ApiError::bad_request("invalid timeoutSeconds");
    }
  }
  const std::string include = c.q("includeObject").empty() ? "Metadata" : c.q("includeObject");
  const bool resuming = !wo.resource_version.empty() && wo.resource_version != "0";
  const WatchChaos chaos = chaos_.on_watch(c.rec.resource, c.rec.user_agent, resuming);
  if (chaos.cut_after && (!wo.cut_after || chaos.cut_after < wo.cut_after)) wo.cut_after = chaos.cut_after;
  std::shared_ptr<Watcher> w;
  try {
    if (chaos.expire)
      throw ApiError(410, "Expired", "too old resource version: " + wo.resource_version + " (" +
                                         std::to_string(store_.current_rv()) + ")");
    w = store_.watch(c.type, wo);
  } catch (const ApiError& e) {
    if (e.code() != 410) throw;
    // As the watch cache does: 200, then one ERROR event carrying the 410 Status.
    c.rec.code = 200;
    log_.add(c.rec);
    c.logged = true;
    if (out.start_stream(200, "application/json")) {
      out.write_chunk(wire(json{{"type", "ERROR"}, {"object", e.to_status()}}) + "\n");
      out.end_stream();
    }
    return;
  }
  c.rec.code = 200;
  log_.add(c.rec);
  c.logged = true;
  if (!out.start_stream(200, c.table ? kTableContentType : "application/json")) {
    w->close();
    return;
  }
  bool first_table = true;
  auto frame = [&](const std::string& type, const json& obj) {
    if (!c.table) return wire(json{{"type", type}, {"object", obj}}) + "\n";
    json tbl = make_table(t, {obj}, first_table, include);
    first_table = false;
    tbl["metadata"]["resourceVersion"] = obj["metadata"].value("resourceVersion", "");
    return wire(json{{"type", type}, {"object", tbl}}) + "\n";
  };
  auto bookmark = [&](bool initial_end) {
    json md = {{"resourceVersion", std::to_string(store_.bookmark_rv(*w))}};
    if (initial_end) md["annotations"] = {{"k8s.io/initial-events-end", "true"}};
    return wire(json{{"type", "BOOKMARK"}, {"object", {{"kind", t.kind}, {"apiVersion", t.api_version()}, {"metadata", md}}}}) +
           "\n";
  };
  auto end = Clock::now() + std::chrono::seconds(timeout > 0 ? timeout : 1800);
  const bool cut_at = chaos.cut_at.count() > 0 && Clock::now() + chaos.cut_at < end;
  if (cut_at) end = Clock::now() + chaos.cut_at;
  size_t delivered = 0;
  auto next_bookmark = Clock::now() + opts_.bookmark_interval;
  bool initial_end_sent = !(initial_events && bookmarks);
  while (!stopping_) {
    if (!initial_end_sent && w->initial_pending() == 0) {
      if (!out.write_chunk(bookmark(true))) break;
      initial_end_sent = true;
    }
    auto now = Clock::now();
    if (now >= end) {
      if (cut_at) {  // an injected network cut: no final chunk
        chaos_.count("watchCut");
        w->close();
        return out.abort();
      }
      break;
    }
    auto wake = std::min({end, next_bookmark, now + std::chrono::milliseconds(500)});
    Watcher::Delivered ev;
    auto st = w->next(wake, &ev);
    if (st == Watcher::Status::Closed) break;
    if (st == Watcher::Status::Event) {
      json obj = std::move(ev.object);
      if (!c.table) obj = conversion::from_storage(t, std::move(obj));
      obj["apiVersion"] = t.api_version();
      if (!out.write_chunk(frame(ev.type, obj))) break;
      ++delivered;
      if (chaos.cut_probability > 0 && chaos_.cut_now(chaos)) {
        w->close();
        return out.abort();
      }
      if (chaos.cut_after && delivered == chaos.cut_after) chaos_.count("watchCutEvery");
      continue;
    }
    now = Clock::now();
    if (bookmarks && now >= next_bookmark) {
      if (!out.write_chunk(bookmark(false))) break;
    }
    if (now >= next_bookmark) next_bookmark = now + opts_.bookmark_interval;
    if (out.peer_closed()) break;
  }
  w->close();
  out.end_stream();
}

void ApiServer::serve_admin(Call& c, ResponseWriter& out) {
  auto send = [&](int status, const json& body) {
    HttpResponse r;
    r.status = status;
    r.body = wire(body);
    out.send(r);
  };
  const std::string sub = c.path.substr(std::string("/sim/v1/").size());
  const std::string& m = c.req.method;
  if (sub == "requests" && m == "GET") {
    uint64_t since = 0;
    try {
      if (!c.q("since").empty()) since = std::stoull(c.q("since"));
    } catch (...) {
      throw ApiError::bad_request("since must be a number");
    }
    return send(200, log_.since(since));
  }
  if (sub == "counters" && m == "GET") return send(200, log_.counters());
  if (sub == "reset" && m == "POST") {
    log_.reset();
    return send(200, {{"reset", true}});
  }
  if (sub == "compact" && m == "POST") {
    store_.compact_history();
    return send(200, {{"resourceVersion", std::to_string(store_.current_rv())}});
  }
  if (sub == "services/proxy" && m == "POST") return send(201, service_proxy_.set_backend(parse_json_body(c.req.body)));
  if (sub == "services/proxy" && m == "GET") return send(200, service_proxy_.list());
  if (sub == "services/proxy" && m == "DELETE") return send(200, service_proxy_.remove_backend(parse_json_body(c.req.body)));
  if (sub == "faults" && m == "POST") return send(201, faults_.add(parse_json_body(c.req.body)));
  if (sub == "faults" && m == "GET") return send(200, faults_.list());
  if (sub == "faults" && m == "DELETE") {
    faults_.clear();
    return send(200, {{"cleared", true}});
  }
  if (sub == "chaos" && (m == "PUT" || m == "POST")) {
    chaos_.set(parse_json_body(c.req.body));
    return send(200, chaos_.describe());
  }
  if (sub == "chaos" && m == "GET") return send(200, chaos_.describe());
  if (sub == "chaos" && m == "DELETE") {
    chaos_.clear();
    return send(200, chaos_.describe());
  }
  if ((sub == "outage" || sub == "restart") && m == "POST") {
    // {"seconds": D}: connections refused for D s (default 1; restart: 0.5).
    json b = c.req.body.empty() ? json::object() : parse_json_body(c.req.body);
    const bool restart = sub == "restart";
    double secs = restart ? 0.5 : 1.0;
    if (b.is_object() && b.contains("seconds")) {
      if (!b["seconds"].is_number() || b["seconds"].get<double>() < 0 || b["seconds"].get<double>() > 60)
        throw ApiError::bad_request(sub + ": seconds must be a number in [0, 60]");
      secs = b["seconds"].get<double>();
    }
    if (!outage_) throw ApiError(501, "NotImplemented", sub + ": no transport to take down");
    if (!outage_(std::chrono::milliseconds(static_cast<long long>(secs * 1000)), restart))
      throw ApiError(409, "Conflict", sub + ": an outage is already in progress");
    chaos_.count(restart ? "restart" : "outage");
    return send(202, {{sub, true}, {"seconds", secs}});
  }
  if (sub == "cut-watches" && m == "POST") return send(200, {{"closed", store_.close_watches()}});
  if (sub == "state" && m == "GET")
    return send(200, {{"resourceVersion", std::to_string(store_.current_rv())},
                      {"oldestResumableResourceVersion", std::to_string(store_.oldest_resumable_rv())},
                      {"openWatches", store_.open_watches()}});
  if (sub == "serviceaccount-tokens" && m == "POST") {  // a TokenRequest without kubectl (rbac_tokens.h)
    json b = parse_json_body(c.req.body);
    if (!b.is_object() || !b["namespace"].is_string() || !b["name"].is_string())
      throw ApiError::bad_request("want {\"namespace\": ..., \"name\": ..., \"expirationSeconds\": N}");
    json spec = b.contains("expirationSeconds") ? json{{"expirationSeconds", b["expirationSeconds"]}} : json::object();
    json tr = sa_tokens_.request(b["namespace"], b["name"], {{"spec", spec}});
    return send(201, {{"token", tr["status"]["token"]}, {"expirationTimestamp", tr["status"]["expirationTimestamp"]},
                      {"user", "system:serviceaccount:" + b["namespace"].get<std::string>() + ":" + b["name"].get<std::string>()}});
  }
  if (sub == "tokens" && m == "GET") return send(200, {{"users", tokens_.users()}});
  if (sub == "tokens" && m == "POST") {
    json b = parse_json_body(c.req.body);
    if (!b.is_object() || b.value("token", "").empty() || b.value("user", "").empty())
      throw ApiError::bad_request("want {\"token\": ..., \"user\": ..., \"groups\": [...]}");
    Identity id;
    id.user = b["user"];
    id.groups = b.value("groups", std::vector<std::string>{});
    tokens_.add(b["token"], id);
    return send(201, {{"user", id.user}});
  }
  if (sub.rfind("tokens/", 0) == 0 && m == "DELETE") {
    if (!tokens_.revoke(sub.substr(7))) throw ApiError(404, "NotFound", "no such token");
    return send(200, {{"revoked", true}});
  }
  throw ApiError(404, "NotFound", "unknown admin endpoint " + m + " " + c.path);
}

}  // namespace kubesim
