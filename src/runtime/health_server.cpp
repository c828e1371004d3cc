#include "dgd/runtime/health_server.h"

#include <spdlog/spdlog.h>

#include <cpprest/containerstream.h>
#include <cpprest/http_listener.h>

#include <vector>

#include "dgd/kube/metrics.h"
#include "dgd/runtime/process_memory.h"
#include "dgd/runtime/process_metrics.h"

namespace dgd::runtime {

namespace http = web::http;

namespace {

// As bytes: cpprest's std::string set_body overloads reinterpret a streambuf<char> as a
// streambuf<unsigned char> (undefined behaviour; UBSan's vptr check stops the process).
void set_text_body(http::http_response& resp, const std::string& text, const std::string& content_type) {
  resp.set_body(concurrency::streams::bytestream::open_istream(std::vector<unsigned char>(text.begin(), text.end())),
                text.size(), content_type);
}

}  // namespace

std::string normalize_listen_address(const std::string& address) {
  if (address.empty() || address == "0") return "";
  if (address[0] == ':') return "0.0.0.0" + address;
  return address;
}

struct HealthServer::Impl {
  HealthServerOptions o;
  std::unique_ptr<http::experimental::listener::http_listener> listener;
};

HealthServer::HealthServer(HealthServerOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->o = std::move(options);
}

HealthServer::~HealthServer() { stop(); }

kube::Status HealthServer::start() {
  Impl* impl = impl_.get();
  try {
    impl->listener = std::make_unique<http::experimental::listener::http_listener>("http://" + impl->o.address);
    impl->listener->support(http::methods::GET, [impl](http::http_request req) {
      // Trivial handlers: they reply and never wait (cpp-stack.md §2.5).
      std::string path = req.relative_uri().path();
      http::http_response resp;
      if (path == "/metrics" && impl->o.serve_metrics) {
        resp.set_status_code(http::status_codes::OK);
        if (impl->o.metrics) {
          sample_memory_metrics(*impl->o.metrics);
          sample_process_metrics(*impl->o.metrics);
        }
        set_text_body(resp, impl->o.metrics ? impl->o.metrics->render() : std::string(), "text/plain; version=0.0.4; charset=utf-8");
      } else if ((path == "/healthz" || path == "/livez") && impl->o.serve_probes) {
        bool ok = !impl->o.healthy || impl->o.healthy();
        resp.set_status_code(ok ? http::status_codes::OK : http::status_codes::ServiceUnavailable);
        set_text_body(resp, ok ? std::string("ok") : std::string("unhealthy"), "text/plain; charset=utf-8");
      } else if (path == "/readyz" && impl->o.serve_probes) {
        bool ok = !impl->o.ready || impl->o.ready();
        resp.set_status_code(ok ? http::status_codes::OK : http::status_codes::ServiceUnavailable);
        set_text_body(resp, ok ? std::string("ok") : std::string("caches not synced"), "text/plain; charset=utf-8");
      } else {
        resp.set_status_code(http::status_codes::NotFound);
        set_text_body(resp, std::string("not found"), "text/plain; charset=utf-8");
      }
      req.reply(resp).then([](pplx::task<void> t) {
        try {
          t.get();
        } catch (...) {
          // The client went away; nothing to do.
        }
      });
    });
    impl->listener->open().wait();
  } catch (const std::exception& e) {
    impl->listener.reset();
    kube::Error err;
    err.kind = kube::ErrorKind::kConfig;
    err.message = e.what();  // the caller names the address and what it serves
    return err;
  }
  spdlog::info("serving{}{} on {}", impl->o.serve_metrics ? " /metrics" : "",
               impl->o.serve_probes ? " /healthz /readyz" : "", impl->o.address);
  return {};
}

void HealthServer::stop() {
  if (!impl_ || !impl_->listener) return;
  try {
    impl_->listener->close().wait();
  } catch (const std::exception& e) {
    spdlog::warn("health server close: {}", e.what());
  }
  impl_->listener.reset();
}

}  // namespace dgd::runtime
