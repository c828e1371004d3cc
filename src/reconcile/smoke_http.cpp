#include "dgd/reconcile/smoke_http.h"

#include <nlohmann/json.hpp>

#include "dgd/kube/http.h"
#include "dgd/kube/rest_client.h"

namespace dgd::reconcile {

namespace {

constexpr const char* kChatPath = "/v1/chat/completions";

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A transport failure (no HTTP status) as a SmokeExchange.
SmokeExchange failed(const kube::Error& e) {
  SmokeExchange ex;
  ex.failure = e.is(kube::ErrorKind::kTimeout) ? SmokeExchange::Failure::kTimeout : SmokeExchange::Failure::kUnreachable;
  ex.error = e.message.empty() ? std::string(kube::to_string(e.kind)) : e.message;
  return ex;
}

class UrlSmokeTransport final : public SmokeTransport {
 public:
  UrlSmokeTransport(std::string server, std::string target) : server_(std::move(server)), target_(std::move(target)) {
    kube::RestConfig config;
    config.server = server_;
    config.source = "--url " + server_;
    transport_ = kube::make_cpprest_transport(config, nullptr);
  }

  SmokeExchange post(const std::string& body, std::chrono::milliseconds timeout,
                     const kube::CancelToken& cancel) override {
    kube::HttpRequest req;
    req.method = "POST";
    req.target = target_;
    req.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"},
                   {"User-Agent", "dgd-smoke/0.1.0"}};
    req.body = body;
    req.timeout = timeout;
    const auto start = std::chrono::steady_clock::now();
    auto r = transport_->send(req, cancel);
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    SmokeExchange ex;
    if (!r) {
      ex = failed(r.error());
    } else {
      ex.status = r->status;
      ex.body = std::move(r->body);
    }
    ex.latency = took;
    return ex;
  }

  std::string where() const override { return server_ + target_; }

 private:
  std::string server_, target_;
  std::unique_ptr<kube::HttpTransport> transport_;
};

class ProxySmokeTransport final : public SmokeTransport {
 public:
  ProxySmokeTransport(std::shared_ptr<kube::RestClient> client, std::string ns, std::string service, int port)
      : client_(std::move(client)),
        target_("/api/v1/namespaces/" + ns + "/services/" + service + ":" + std::to_string(port) + "/proxy" + kChatPath) {}

  SmokeExchange post(const std::string& body, std::chrono::milliseconds timeout,
                     const kube::CancelToken& cancel) override {
    kube::HttpRequest req;
    req.method = "POST";
    req.target = target_;
    req.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
    req.body = body;
    req.timeout = timeout;
    const auto start = std::chrono::steady_clock::now();
    auto r = client_->raw(req, cancel);
    const auto took = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start);
    SmokeExchange ex;
    ex.via_apiserver_proxy = true;
    if (r) {
      ex.status = r->status;
      ex.body = std::move(r->body);
    } else if (r.error().code != 0) {
      // The client turned a non-2xx answer into an Error: rebuild what was said.
      const kube::Error& e = r.error();
      ex.status = e.code;
      if (!e.reason.empty()) {
        ex.body = nlohmann::json{{"kind", "Status"}, {"apiVersion", "v1"}, {"status", "Failure"},
                                 {"message", e.message}, {"reason", e.reason}, {"code", e.code}}
                      .dump();
      } else {
        ex.body = e.message;
      }
    } else {
      ex = failed(r.error());
      ex.via_apiserver_proxy = true;
    }
    ex.latency = took;
    return ex;
  }

  std::string where() const override { return client_->config().server + target_; }

 private:
  std::shared_ptr<kube::RestClient> client_;
  std::string target_;
};

}  // namespace

std::string chat_completions_url(const std::string& url) {
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0) return "";
  std::string u = url;
  while (!u.empty() && u.back() == '/') u.pop_back();
  if (ends_with(u, kChatPath)) return u;
  if (ends_with(u, "/v1")) return u + "/chat/completions";
  return u + kChatPath;
}

std::unique_ptr<SmokeTransport> make_url_smoke_transport(const std::string& base_url) {
  const std::string full = chat_completions_url(base_url);
  if (full.empty()) return nullptr;
  const size_t host_start = full.find("://") + 3;
  const size_t path_start = full.find('/', host_start);
  return std::make_unique<UrlSmokeTransport>(full.substr(0, path_start), full.substr(path_start));
}

std::unique_ptr<SmokeTransport> make_apiserver_proxy_smoke_transport(std::shared_ptr<kube::RestClient> client,
                                                                     std::string ns, std::string service, int port) {
  return std::make_unique<ProxySmokeTransport>(std::move(client), std::move(ns), std::move(service), port);
}

std::string service_dns_url(const std::string& ns, const std::string& service, int port) {
  return "http://" + service + "." + ns + ".svc:" + std::to_string(port);
}

}  // namespace dgd::reconcile
