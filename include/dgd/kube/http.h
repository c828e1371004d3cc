// HttpTransport: the thin seam between the Kubernetes client and the HTTP library
// (cpprestsdk, kept inside src/kube/cpprest_transport.cpp). A transport is bound to
// one server and its TLS settings; it sends requests and streams bodies. Thread-safe.
#pragma once
#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "dgd/kube/cancel.h"
#include "dgd/kube/config.h"
#include "dgd/kube/error.h"

namespace dgd::kube {

class Credentials;

using Headers = std::vector<std::pair<std::string, std::string>>;

struct HttpRequest {
  std::string method = "GET";
  std::string target;  // path and query, e.g. "/api/v1/pods?limit=500"
  Headers headers;
  std::string body;
  // Idle timeout: the request fails when no byte arrives for this long. 0 = transport default.
  std::chrono::milliseconds timeout{0};
};

struct HttpResponse {
  int status = 0;
  Headers headers;
  std::string body;
  // Case-insensitive header lookup; "" if absent.
  std::string header(std::string_view name) const;
};

class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // Sends the request and reads the whole body. Any HTTP status is a successful Result;
  // only transport failures (kTransport, kTimeout, kCanceled) are errors.
  virtual Result<HttpResponse> send(const HttpRequest& req, const CancelToken& cancel) = 0;
  // As send(), but for a 2xx status the body is passed to on_data piece by piece as it
  // arrives (pieces split anywhere) and the returned body is empty. Reading stops at EOF,
  // when on_data returns false, or on cancel (then the Result is kCanceled).
  // Runs on the caller's thread; on_data is called on it too.
  virtual Result<HttpResponse> stream(const HttpRequest& req,
                                      const std::function<bool(std::string_view)>& on_data,
                                      const CancelToken& cancel) = 0;
};

struct TransportOptions {
  std::chrono::milliseconds default_timeout{30000};
};

// A cpprestsdk transport for config.server with its TLS settings. Client certificates come
// from `credentials->cached()` at each new connection (exec plugins may rotate them).
// REQUIRES: the cpprest thread pool is set up by main (cpp-stack.md §2.5) or defaults apply.
std::unique_ptr<HttpTransport> make_cpprest_transport(const RestConfig& config,
                                                      std::shared_ptr<Credentials> credentials,
                                                      TransportOptions options = {});

// Sizes the HTTP library's shared thread pool (cpprest's default is 40 threads; a few do
// better, cpp-stack.md §2.1). REQUIRES: called first in main, after
// block_termination_signals() and before any client or listener exists. Returns false if
// the pool was already initialized.
bool initialize_http_thread_pool(size_t threads = 4);

// Human-readable text of an OpenSSL error code as carried in cpprest's error_code.
std::string describe_ssl_error(unsigned long code);

}  // namespace dgd::kube
