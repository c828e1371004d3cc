#include "kubesim/portforward/port_forward_request.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>
#include <vector>

#include "kubesim/portforward/pod_backend.h"
#include "kubesim/portforward/port_forward_session.h"

namespace kubesim::portforward {

using nlohmann::json;

namespace {

constexpr const char* kProtocol = "portforward.k8s.io";

std::string lower(std::string s) {
  for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
  return s;
}

// Go's canonical header key: "x-stream-protocol-version" -> "X-Stream-Protocol-Version".
std::string canonical(std::string k) {
  bool up = true;
  for (auto& ch : k) {
    ch = static_cast<char>(up ? std::toupper(static_cast<unsigned char>(ch)) : std::tolower(static_cast<unsigned char>(ch)));
    up = ch == '-';
  }
  return k;
}

// The request's headers as Go prints an http.Header with %#v.
std::string go_header_literal(const HttpRequest& req) {
  std::map<std::string, std::vector<std::string>> h;
  for (const auto& [k, v] : req.header_list) h[canonical(k)].push_back(v);
  std::ostringstream out;
  out << "http.Header{";
  bool first = true;
  for (const auto& [k, values] : h) {
    out << (first ? "" : ", ") << json(k).dump() << ":[]string{";
    for (size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << json(values[i]).dump();
    out << "}";
    first = false;
  }
  out << "}";
  return out.str();
}

void send_text(ResponseWriter& out, int status, const std::string& text) {
  HttpResponse r;
  r.status = status;
  r.content_type = "text/plain; charset=utf-8";
  r.headers.emplace_back("X-Content-Type-Options", "nosniff");
  r.body = text + "\n";  // http.Error's trailing newline
  out.send(r);
}

}  // namespace

int serve_request(const HttpRequest& req, ResponseWriter& out, const json& pod, const Store& store,
                  const ResourceType& pods, const ResourceType& services, const ServiceProxy& proxy) {
  if (lower(req.header("connection")).find("upgrade") == std::string::npos ||
      lower(req.header("upgrade")).find("spdy/3.1") == std::string::npos) {
    send_text(out, 400, "unable to upgrade: missing upgrade headers in request: " + go_header_literal(req));
    return 400;
  }
  std::vector<std::string> offered;
  for (const auto& [k, v] : req.header_list) {
    if (k != "x-stream-protocol-version") continue;
    std::stringstream parts(v);
    for (std::string p; std::getline(parts, p, ',');) {
      p.erase(0, p.find_first_not_of(' '));
      p.erase(p.find_last_not_of(' ') + 1);
      if (!p.empty()) offered.push_back(p);
    }
  }
  std::vector<std::pair<std::string, std::string>> headers = {{"Connection", "Upgrade"}, {"Upgrade", "SPDY/3.1"}};
  if (!offered.empty()) {
    if (std::find(offered.begin(), offered.end(), kProtocol) == offered.end()) {
      std::string client = "[";
      for (size_t i = 0; i < offered.size(); ++i) client += (i ? " " : "") + offered[i];
      send_text(out, 403, "unable to upgrade: unable to negotiate protocol: client supports " + client +
                              "], server accepts [" + kProtocol + "]");
      return 403;
    }
    headers.emplace_back("X-Stream-Protocol-Version", kProtocol);
  }
  UpgradedConnection* conn = out.upgrade(headers);
  if (!conn) return 101;
  const std::string ns = pod.value("/metadata/namespace"_json_pointer, std::string());
  Target target;
  target.pod_id = pod.value("/metadata/uid"_json_pointer, std::string());
  target.backend = [&, ns](int64_t port) -> std::optional<BackendAddress> {
    ListOptions o;
    o.ns = ns;
    // The pod as it is now: labels or ports may have changed since the upgrade.
    const json current = store.try_get(pods, ns,
                                       pod.value("/metadata/name"_json_pointer, std::string()))
                             .value_or(pod);
    return pod_port_backend(current, port, store.list(services, o).items, proxy);
  };
  serve(*conn, target);
  return 101;
}

}  // namespace kubesim::portforward
