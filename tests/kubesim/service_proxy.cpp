#include "kubesim/service_proxy.h"

#include "dgd/kube/config.h"
#include "dgd/kube/http.h"
#include "kubesim/api_error.h"

namespace kubesim {

using nlohmann::json;

namespace {

std::string key_of(const std::string& ns, const std::string& name) { return ns + "/" + name; }

bool is_http_url(const std::string& url) {
  return url.rfind("http://", 0) == 0 || url.rfind("https://", 0) == 0;
}

ApiError unavailable(const std::string& message) { return ApiError(503, "ServiceUnavailable", message); }

}  // namespace

std::pair<std::string, std::string> split_service_port(const std::string& name_port) {
  auto colon = name_port.find(':');
  if (colon == std::string::npos) return {name_port, ""};
  return {name_port.substr(0, colon), name_port.substr(colon + 1)};
}

json ServiceProxy::set_backend(const json& body) {
  if (!body.is_object() || !body.contains("namespace") || !body["namespace"].is_string() || !body.contains("name") ||
      !body["name"].is_string() || !body.contains("url") || !body["url"].is_string() ||
      !is_http_url(body["url"].get<std::string>())) {
    throw ApiError::bad_request(
        "want {\"namespace\": ..., \"name\": ..., \"url\": \"http://host:port\", \"port\": 8000 (optional)}");
  }
  Backend b;
  b.url = body["url"].get<std::string>();
  while (!b.url.empty() && b.url.back() == '/') b.url.pop_back();
  if (body.contains("port")) {
    const json& p = body["port"];
    if (p.is_number_integer()) b.port = std::to_string(p.get<int64_t>());
    else if (p.is_string()) b.port = p.get<std::string>();
    else throw ApiError::bad_request("port must be a number or a port name");
  }
  const std::string ns = body["namespace"], name = body["name"];
  std::lock_guard<std::mutex> lock(mu_);
  backends_[key_of(ns, name)] = b;
  return {{"namespace", ns}, {"name", name}, {"url", b.url}, {"port", b.port}};
}

json ServiceProxy::remove_backend(const json& body) {
  if (!body.is_object() || !body.value("namespace", json()).is_string() || !body.value("name", json()).is_string())
    throw ApiError::bad_request("want {\"namespace\": ..., \"name\": ...}");
  std::lock_guard<std::mutex> lock(mu_);
  size_t n = backends_.erase(key_of(body["namespace"], body["name"]));
  return {{"removed", n}};
}

json ServiceProxy::list() const {
  json items = json::array();
  std::lock_guard<std::mutex> lock(mu_);
  for (const auto& [k, b] : backends_) {
    auto slash = k.find('/');
    items.push_back({{"namespace", k.substr(0, slash)}, {"name", k.substr(slash + 1)}, {"url", b.url}, {"port", b.port}});
  }
  return {{"items", items}};
}

std::optional<std::string> ServiceProxy::backend_url(const std::string& ns, const std::string& name, int64_t number,
                                                     const std::string& port_name) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = backends_.find(key_of(ns, name));
  if (it == backends_.end()) return std::nullopt;
  const std::string& p = it->second.port;
  if (!p.empty() && p != std::to_string(number) && (port_name.empty() || p != port_name)) return std::nullopt;
  return it->second.url;
}

HttpResponse ServiceProxy::forward(const std::string& ns, const std::string& name_port, const std::string& path,
                                   const std::string& query, const HttpRequest& req) {
  auto [name, port] = split_service_port(name_port);
  Backend b;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = backends_.find(key_of(ns, name));
    if (it == backends_.end() || (!port.empty() && !it->second.port.empty() && it->second.port != port)) {
      throw unavailable("no endpoints available for service \"" + name_port + "\"");
    }
    b = it->second;
  }
  const size_t host_start = b.url.find("://") + 3;
  const size_t path_start = b.url.find('/', host_start);
  dgd::kube::RestConfig config;
  config.server = b.url.substr(0, path_start);
  config.insecure_skip_tls_verify = true;  // a test backend; the real proxy does not verify pods either
  const std::string base = path_start == std::string::npos ? "" : b.url.substr(path_start);
  auto transport = dgd::kube::make_cpprest_transport(config, nullptr);

  dgd::kube::HttpRequest out;
  out.method = req.method;
  out.target = base + (path.empty() ? "/" : path) + (query.empty() ? "" : "?" + query);
  for (const char* h : {"content-type", "accept"}) {
    const std::string v = req.header(h);
    if (!v.empty()) out.headers.emplace_back(h[0] == 'c' ? "Content-Type" : "Accept", v);
  }
  out.body = req.body;
  out.timeout = std::chrono::hours(1);  // the caller's own timeout decides; shutdown() cancels
  auto r = transport->send(out, stop_.token());
  if (!r) throw unavailable("error trying to reach service: " + r.error().message);
  HttpResponse resp;
  resp.status = r->status;
  const std::string ct = r->header("Content-Type");
  if (!ct.empty()) resp.content_type = ct;
  resp.body = std::move(r->body);
  return resp;
}

}  // namespace kubesim
