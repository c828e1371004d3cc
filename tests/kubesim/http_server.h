// kube-sim: the HTTP/1.1 transport (Boost.Beast, synchronous, one thread per
// connection), plain or TLS (OpenSSL through asio::ssl). Keep-alive, chunked
// streaming for watches, a 3 MiB body limit (413), client-certificate identity
// per request. Beast lives only in http_server.cpp (compile time).
//
// begin_outage() simulates the server going away and coming back (same port, same
// store). stop() closes the listening socket, ends every stream, shuts down every
// connection and joins the threads; it returns within about a second.
#pragma once

#include "kubesim/api_server.h"

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

namespace kubesim {

struct HttpServerOptions {
  std::string listen = "127.0.0.1:0";  // host:port; port 0 picks a free port
  bool tls = false;
  std::string cert_pem, key_pem;  // server certificate (with --tls)
  std::string client_ca_pem;      // CA for client certificates (optional)
  size_t max_body_bytes = 3 * 1024 * 1024;
};

class HttpServer {
 public:
  HttpServer(ApiServer& api, HttpServerOptions opts);
  ~HttpServer();
  // Binds and starts accepting. Throws std::runtime_error on failure.
  void start();
  uint16_t port() const;
  std::string host() const;
  void stop();
  size_t open_connections() const;
  // An injected outage, asynchronous: shortly after the call the listener closes
  // (connects are refused), every connection is cut, `while_down` runs, and after
  // `down` the server listens again on the same address. False if one is running.
  bool begin_outage(std::chrono::milliseconds down, std::function<void()> while_down = nullptr);
  bool in_outage() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kubesim
