#include "dgd/runtime/health_server.h"

#include <spdlog/spdlog.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <thread>

#include "dgd/kube/metrics.h"
#include "dgd/runtime/process_memory.h"
#include "dgd/runtime/process_metrics.h"

namespace dgd::runtime {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

std::string normalize_listen_address(const std::string& address) {
  if (address.empty() || address == "0") return "";
  if (address[0] == ':') return "0.0.0.0" + address;
  return address;
}

struct HealthServer::Impl {
  HealthServerOptions o;
  net::io_context io;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::thread thread;
  std::string bound_address;
  uint16_t port = 0;

  // Trivial handlers: they reply and never wait (cpp-stack.md §2.5).
  http::response<http::string_body> respond(const http::request<http::string_body>& req) const {
    http::response<http::string_body> resp;
    resp.version(req.version());
    resp.keep_alive(req.keep_alive());
    auto text = [&resp](http::status status, std::string body, const char* content_type) {
      resp.result(status);
      resp.set(http::field::content_type, content_type);
      resp.body() = std::move(body);
    };
    std::string path(req.target());
    if (auto q = path.find('?'); q != std::string::npos) path.resize(q);
    if (req.method() != http::verb::get) {
      text(http::status::method_not_allowed, "method not allowed", "text/plain; charset=utf-8");
    } else if (path == "/metrics" && o.serve_metrics) {
      if (o.metrics) {
        sample_memory_metrics(*o.metrics);
        sample_process_metrics(*o.metrics);
      }
      text(http::status::ok, o.metrics ? o.metrics->render() : std::string(), "text/plain; version=0.0.4; charset=utf-8");
    } else if ((path == "/healthz" || path == "/livez") && o.serve_probes) {
      bool ok = !o.healthy || o.healthy();
      text(ok ? http::status::ok : http::status::service_unavailable, ok ? "ok" : "unhealthy", "text/plain; charset=utf-8");
    } else if (path == "/readyz" && o.serve_probes) {
      bool ok = !o.ready || o.ready();
      text(ok ? http::status::ok : http::status::service_unavailable, ok ? "ok" : "caches not synced",
           "text/plain; charset=utf-8");
    } else {
      text(http::status::not_found, "not found", "text/plain; charset=utf-8");
    }
    resp.prepare_payload();
    return resp;
  }

  void accept() {
    acceptor->async_accept([this](beast::error_code ec, tcp::socket socket) {
      if (ec == net::error::operation_aborted || !acceptor->is_open()) return;
      if (!ec) std::make_shared<Session>(*this, std::move(socket))->read();
      accept();
    });
  }

  // One connection: read a request, write the reply, repeat while the client keeps it alive.
  struct Session : std::enable_shared_from_this<Session> {
    Session(Impl& server, tcp::socket socket) : server(server), stream(std::move(socket)) {}
    Impl& server;
    beast::tcp_stream stream;
    beast::flat_buffer buffer;
    http::request<http::string_body> req;
    http::response<http::string_body> resp;

    void read() {
      req = {};
      // A probe that stops talking must not hold a socket forever.
      stream.expires_after(std::chrono::seconds(30));
      http::async_read(stream, buffer, req, [self = shared_from_this()](beast::error_code ec, size_t) {
        if (ec) return self->close();
        self->resp = self->server.respond(self->req);
        http::async_write(self->stream, self->resp, [self](beast::error_code wec, size_t) {
          if (wec || !self->resp.keep_alive()) return self->close();
          self->read();
        });
      });
    }
    void close() {
      beast::error_code ignored;
      stream.socket().shutdown(tcp::socket::shutdown_send, ignored);
    }
  };
};

HealthServer::HealthServer(HealthServerOptions options) : impl_(std::make_unique<Impl>()) {
  impl_->o = std::move(options);
}

HealthServer::~HealthServer() { stop(); }

kube::Status HealthServer::start() {
  Impl* impl = impl_.get();
  const std::string& address = impl->o.address;
  auto fail = [](const std::string& why) {
    kube::Error err;
    err.kind = kube::ErrorKind::kConfig;
    err.message = why;  // the caller names the address and what it serves
    return err;
  };
  auto colon = address.rfind(':');
  if (colon == std::string::npos) return fail("want host:port");
  std::string host = address.substr(0, colon), port = address.substr(colon + 1);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  try {
    tcp::resolver resolver(impl->io);
    auto endpoints = resolver.resolve(host, port, tcp::resolver::passive | tcp::resolver::numeric_service);
    if (endpoints.empty()) return fail("no address for " + host);
    tcp::endpoint endpoint = *endpoints.begin();
    impl->acceptor = std::make_unique<tcp::acceptor>(impl->io);
    impl->acceptor->open(endpoint.protocol());
    impl->acceptor->set_option(net::socket_base::reuse_address(true));
    impl->acceptor->bind(endpoint);
    impl->acceptor->listen(net::socket_base::max_listen_connections);
    tcp::endpoint bound = impl->acceptor->local_endpoint();
    impl->port = bound.port();
    std::string bound_host = bound.address().to_string();
    impl->bound_address = (bound.address().is_v6() ? "[" + bound_host + "]" : bound_host) + ":" + std::to_string(impl->port);
  } catch (const std::exception& e) {
    impl->acceptor.reset();
    return fail(e.what());
  }
  impl->accept();
  impl->thread = std::thread([impl] {
    try {
      impl->io.run();
    } catch (const std::exception& e) {
      spdlog::error("health server on {}: {}", impl->bound_address, e.what());
    }
  });
  // The bound address, so a caller that asked for port 0 learns the port from the log.
  spdlog::info("serving{}{} on {}", impl->o.serve_metrics ? " /metrics" : "",
               impl->o.serve_probes ? " /healthz /readyz" : "", impl->bound_address);
  return {};
}

std::string HealthServer::bound_address() const { return impl_ ? impl_->bound_address : std::string(); }

uint16_t HealthServer::port() const { return impl_ ? impl_->port : 0; }

void HealthServer::stop() {
  if (!impl_ || !impl_->acceptor) return;
  // Pending accepts and open sessions are abandoned with the io_context's run.
  impl_->io.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
  beast::error_code ignored;
  impl_->acceptor->close(ignored);
  impl_->acceptor.reset();
}

}  // namespace dgd::runtime
