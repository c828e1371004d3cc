// The cpprestsdk implementation of HttpTransport. Rules from cpp-stack.md: TLS through
// set_ssl_context_callback with only the cluster CA trusted; the idle timeout per request;
// streams read on the caller's thread; cancellation through pplx tokens; OpenSSL errors
// decoded for logs.
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509_vfy.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <cpprest/containerstream.h>
#include <cpprest/http_client.h>
#include <pplx/threadpool.h>
#include <cstring>
#include <mutex>
#include <vector>

#include "dgd/kube/credentials.h"
#include "dgd/kube/http.h"

namespace dgd::kube {

namespace http = web::http;
namespace client = web::http::client;

namespace {
// OpenSSL is initialised before main, so before cpprest's thread pool exists. OpenSSL
// registers its atexit cleanup when it is initialised; cpprest's pool (a function-local
// static) is joined by a destructor registered when the pool is first used. Exit handlers
// run in reverse order, so if the pool came first (the usual order: an http_client is
// made, then its first TLS handshake initialises OpenSSL), OPENSSL_cleanup ran while the
// pool's threads were alive and deleted the thread-local key: their per-thread error and
// DRBG state was never freed (LeakSanitizer: ~20 KB per process using TLS).
[[maybe_unused]] const bool kOpenSslInitialised = OPENSSL_init_ssl(0, nullptr) == 1;
}  // namespace

bool initialize_http_thread_pool(size_t threads) {
  try {
    crossplat::threadpool::initialize_with_threads(threads);
    return true;
  } catch (const std::exception&) {
    return false;  // already initialized (first cpprest use came earlier)
  }
}

std::string describe_ssl_error(unsigned long code) {
  char buf[256];
  ERR_error_string_n(code, buf, sizeof buf);
  return buf;
}

std::string HttpResponse::header(std::string_view name) const {
  for (const auto& [k, v] : headers) {
    if (k.size() == name.size() &&
        std::equal(k.begin(), k.end(), name.begin(), [](char a, char b) { return std::tolower(a) == std::tolower(b); })) {
      return v;
    }
  }
  return "";
}

namespace {

// Why the server's certificate was last refused. OpenSSL's handshake error says only
// "certificate verify failed"; the chain check notes its reason here (expired, unknown
// issuer...). A chain that passed the checks OpenSSL names but was still refused failed
// cpprest's host name check, which is named by looking at the certificate's names.
struct CertificateRefusal {
  std::string host;  // the server's host, as the kubeconfig names it
  std::mutex mu;
  std::string reason;  // "" until a certificate is refused
};

// SSL_CTX_set_cert_verify_callback: the usual chain check (X509_verify_cert, which also
// runs cpprest's per-certificate callback, the host name check), its reason noted.
int verify_noting_refusal(X509_STORE_CTX* store, void* arg) {
  int ok = X509_verify_cert(store);
  if (ok <= 0) {
    auto* refusal = static_cast<CertificateRefusal*>(arg);
    int err = X509_STORE_CTX_get_error(store);
    std::string reason = X509_verify_cert_error_string(err);
    X509* leaf = X509_STORE_CTX_get0_cert(store);
    if ((err == X509_V_OK || err == X509_V_ERR_UNSPECIFIED) && leaf != nullptr &&
        X509_check_host(leaf, refusal->host.data(), refusal->host.size(), 0, nullptr) != 1 &&
        X509_check_ip_asc(leaf, refusal->host.c_str(), 0) != 1) {
      reason = "it is not issued for host " + refusal->host;
    }
    std::lock_guard<std::mutex> l(refusal->mu);
    refusal->reason = reason;
  }
  return ok;
}

std::shared_ptr<CertificateRefusal> refusal_for(const std::string& server) {
  auto refusal = std::make_shared<CertificateRefusal>();
  try {
    refusal->host = web::uri(server).host();
  } catch (const std::exception&) {
    // Not a URL: the client fails on it before any handshake.
  }
  return refusal;
}

class CpprestTransport final : public HttpTransport {
 public:
  CpprestTransport(const RestConfig& config, std::shared_ptr<Credentials> credentials, TransportOptions options)
      : config_(config), credentials_(std::move(credentials)), options_(options),
        https_(config.server.rfind("https://", 0) == 0),
        shared_(std::make_unique<client::http_client>(config.server, make_config(options.default_timeout))) {}

  Result<HttpResponse> send(const HttpRequest& req, const CancelToken& cancel) override {
    if (req.timeout.count() > 0 && req.timeout != options_.default_timeout) {
      client::http_client c(config_.server, make_config(req.timeout));
      return run(c, req, nullptr, cancel);
    }
    return run(*shared_, req, nullptr, cancel);
  }

  Result<HttpResponse> stream(const HttpRequest& req, const std::function<bool(std::string_view)>& on_data,
                              const CancelToken& cancel) override {
    // A fresh client per stream: its own connection, its own idle timeout (cpp-stack.md §1.2).
    client::http_client c(config_.server,
                          make_config(req.timeout.count() > 0 ? req.timeout : options_.default_timeout));
    return run(c, req, &on_data, cancel);
  }

 private:
  client::http_client_config make_config(std::chrono::milliseconds timeout) const {
    client::http_client_config cfg;
    cfg.set_timeout(std::chrono::duration_cast<std::chrono::microseconds>(timeout));
    cfg.set_validate_certificates(!config_.insecure_skip_tls_verify);
    std::string ca = config_.ca_pem;
    std::shared_ptr<Credentials> creds = credentials_;
    RestConfig static_cfg = config_;
    std::shared_ptr<CertificateRefusal> refusal = refusal_;
    cfg.set_ssl_context_callback([ca, creds, static_cfg, refusal](boost::asio::ssl::context& ctx) {
      SSL_CTX_set_min_proto_version(ctx.native_handle(), TLS1_2_VERSION);
      // The callback's owner (this lambda, kept by the client) outlives the context.
      SSL_CTX_set_cert_verify_callback(ctx.native_handle(), verify_noting_refusal, refusal.get());
      if (!ca.empty()) {
        // Trust only the cluster's CA, not the system store (cpp-stack.md §1.4).
        SSL_CTX_set_cert_store(ctx.native_handle(), X509_STORE_new());
        boost::system::error_code ec;
        ctx.add_certificate_authority(boost::asio::buffer(ca), ec);
      }
      Auth a = creds ? creds->cached() : Auth{static_cfg.token, static_cfg.client_cert_pem, static_cfg.client_key_pem};
      if (!a.client_cert_pem.empty()) {
        boost::system::error_code ec;
        ctx.use_certificate_chain(boost::asio::buffer(a.client_cert_pem), ec);
        ctx.use_private_key(boost::asio::buffer(a.client_key_pem), boost::asio::ssl::context::pem, ec);
      }
      // PEM loading leaves benign errors (end of data) on this thread's OpenSSL error
      // queue; a later handshake failure would report them instead of its own cause.
      ERR_clear_error();
    });
    return cfg;
  }

  Error transport_error(const HttpRequest& req, const std::error_code& code, const std::string& what,
                        const CancelToken& cancel) const {
    Error e;
    e.request = req.method + " " + req.target;
    if (cancel.cancelled()) {
      e.kind = ErrorKind::kCanceled;
      e.message = "canceled";
      return e;
    }
    e.kind = ErrorKind::kTransport;
    std::string msg = what;
    if (std::strcmp(code.category().name(), "asio.ssl") == 0 || code.value() > 0xFFFFF) {
      msg += " (" + describe_ssl_error(static_cast<unsigned long>(code.value())) + ")";
      if (ERR_GET_REASON(static_cast<unsigned long>(code.value())) == SSL_R_CERTIFICATE_VERIFY_FAILED) {
        std::lock_guard<std::mutex> l(refusal_->mu);
        if (!refusal_->reason.empty()) msg += ": the server's certificate was refused: " + refusal_->reason;
      }
    } else if (code.value() == ETIMEDOUT || what.find("timed out") != std::string::npos) {
      e.kind = ErrorKind::kTimeout;
    }
    e.message = msg;
    return e;
  }

  Result<HttpResponse> run(client::http_client& c, const HttpRequest& req,
                           const std::function<bool(std::string_view)>* on_data, const CancelToken& cancel) {
    pplx::cancellation_token_source cts;
    auto sub = cancel.on_cancel([&cts] { cts.cancel(); });
    http::http_request r(req.method);
    r.set_request_uri(req.target);
    std::string content_type;
    for (const auto& [k, v] : req.headers) {
      if (k == "Content-Type") content_type = v;
      else r.headers().add(k, v);
    }
    if (https_ && !config_.tls_server_name.empty()) {
      // cpprest verifies and sends SNI for the Host header's name when one is set.
      r.headers().add("Host", config_.tls_server_name);
    }
    if (!req.body.empty() || !content_type.empty()) {
      // As bytes: cpprest's std::string overloads reinterpret a streambuf<char> as a
      // streambuf<unsigned char> (undefined behaviour; UBSan's vptr check stops the process).
      r.set_body(concurrency::streams::bytestream::open_istream(std::vector<unsigned char>(req.body.begin(), req.body.end())),
                 req.body.size(), content_type.empty() ? "application/json" : content_type);
    }
    try {
      http::http_response resp = c.request(r, cts.get_token()).get();
      HttpResponse out;
      out.status = resp.status_code();
      for (const auto& [k, v] : resp.headers()) out.headers.emplace_back(k, v);
      bool stream_body = on_data && out.status >= 200 && out.status < 300;
      if (!stream_body) {
        out.body = resp.extract_utf8string(true).get();
        return out;
      }
      auto sb = resp.body().streambuf();
      // At most kMaxChunk bytes per call of on_data: a watch stream lives for minutes, and a
      // chunk that took a whole burst (everything buffered while the informer was busy)
      // would keep that burst's size for the life of the stream, megabytes across the
      // informers of a converging fleet.
      // Not reserved up front: most chunks are one event of a few KB.
      constexpr size_t kMaxChunk = 64 * 1024;
      std::string chunk;
      char buf[16384];
      for (;;) {
        // Wait for at least one byte, then take whatever else is already buffered.
        auto c0 = sb.bumpc().get();
        if (c0 == concurrency::streams::streambuf<uint8_t>::traits::eof()) break;
        chunk.assign(1, static_cast<char>(c0));
        size_t avail = sb.in_avail();
        while (avail > 0 && chunk.size() < kMaxChunk) {
          const size_t want = std::min({avail, sizeof buf, kMaxChunk - chunk.size()});
          size_t n = sb.getn(reinterpret_cast<uint8_t*>(buf), want).get();
          if (n == 0) break;
          chunk.append(buf, n);
          avail = sb.in_avail();
        }
        if (!(*on_data)(chunk)) break;
        if (cancel.cancelled()) break;
      }
      if (cancel.cancelled()) {
        Error e;
        e.kind = ErrorKind::kCanceled;
        e.request = req.method + " " + req.target;
        e.message = "canceled";
        return e;
      }
      return out;
    } catch (const http::http_exception& ex) {
      return transport_error(req, ex.error_code(), ex.what(), cancel);
    } catch (const pplx::task_canceled&) {
      return transport_error(req, std::make_error_code(std::errc::operation_canceled), "canceled", cancel);
    } catch (const std::exception& ex) {
      return transport_error(req, std::error_code(), ex.what(), cancel);
    }
  }

  const RestConfig config_;
  const std::shared_ptr<Credentials> credentials_;
  const TransportOptions options_;
  const bool https_;
  const std::shared_ptr<CertificateRefusal> refusal_ = refusal_for(config_.server);  // before shared_
  std::unique_ptr<client::http_client> shared_;
};

}  // namespace

std::unique_ptr<HttpTransport> make_cpprest_transport(const RestConfig& config,
                                                      std::shared_ptr<Credentials> credentials,
                                                      TransportOptions options) {
  return std::make_unique<CpprestTransport>(config, std::move(credentials), options);
}

}  // namespace dgd::kube
