// HealthServer: serves /metrics (Prometheus text), /healthz and /readyz over plain HTTP
// (Boost.Beast on one asio thread, kept inside the .cpp). Handlers never block.
// Port 0 binds a port the kernel picks; port() reads it back once start() returned, so
// callers never choose a port and release it. Thread-safe.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "dgd/kube/error.h"

namespace dgd::kube {
class MetricsRegistry;
}

namespace dgd::runtime {

struct HealthServerOptions {
  std::string address = "0.0.0.0:8080";  // host:port to listen on; port 0 lets the kernel pick
  std::shared_ptr<kube::MetricsRegistry> metrics;
  std::function<bool()> healthy;  // /healthz: 200 while true (null: always)
  std::function<bool()> ready;    // /readyz: 200 while true (null: always)
  bool serve_metrics = true;      // /metrics on this listener
  bool serve_probes = true;       // /healthz, /livez, /readyz on this listener
};

// ":8080" -> "0.0.0.0:8080"; "0" or "" -> "" (disabled); "host:port" unchanged.
std::string normalize_listen_address(const std::string& address);

class HealthServer {
 public:
  explicit HealthServer(HealthServerOptions options);
  ~HealthServer();  // stop()
  HealthServer(const HealthServer&) = delete;
  HealthServer& operator=(const HealthServer&) = delete;

  // Binds and starts serving; on return the socket accepts connections.
  kube::Status start();
  // The bound "host:port" (the kernel's port when the address asked for 0); "" before start().
  std::string bound_address() const;
  uint16_t port() const;
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace dgd::runtime
