#include "kubesim/http_server.h"

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <poll.h>
#include <spdlog/spdlog.h>
#include <sys/socket.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <condition_variable>
#include <list>
#include <mutex>
#include <thread>

namespace kubesim {

namespace net = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = net::ip::tcp;

namespace {

// An upgraded connection (pods/portforward). A TLS stream must not read and write at
// once, so every call on the stream holds `io_mu_`. Reads do not block under the lock:
// the socket is non-blocking while a read is tried, and an empty try waits with poll()
// outside the lock. The try goes through the stream, not poll() alone, because the TLS
// layer buffers records it has already taken from the socket.
template <class Stream>
class BeastUpgraded : public UpgradedConnection {
 public:
  BeastUpgraded(Stream& s, int fd, beast::flat_buffer& pending) : stream_(s), fd_(fd), pending_(pending) {}

  size_t read_some(char* buf, size_t n) override {
    for (;;) {
      {
        std::lock_guard lock(io_mu_);
        if (pending_.size() > 0) {  // bytes read along with the upgrade request
          const size_t k = net::buffer_copy(net::buffer(buf, n), pending_.data());
          pending_.consume(k);
          return k;
        }
        if (closed_) return 0;
        auto& socket = beast::get_lowest_layer(stream_);
        beast::error_code ec, ignored;
        socket.non_blocking(true, ignored);
        const size_t k = stream_.read_some(net::buffer(buf, n), ec);
        socket.non_blocking(false, ignored);
        if (!ec && k > 0) return k;
        if (ec != net::error::would_block && ec != net::error::try_again) {
          closed_ = true;
          return 0;
        }
      }
      pollfd p{fd_, POLLIN, 0};
      if (::poll(&p, 1, 200) < 0 && errno != EINTR) return 0;
    }
  }
  bool write_all(const char* data, size_t n) override {
    std::lock_guard lock(io_mu_);
    if (closed_) return false;
    beast::error_code ec;
    net::write(stream_, net::buffer(data, n), ec);
    if (ec) closed_ = true;
    return !ec;
  }

 private:
  Stream& stream_;
  int fd_;
  beast::flat_buffer& pending_;
  std::mutex io_mu_;
  bool closed_ = false;
};

template <class Stream>
class BeastWriter : public ResponseWriter {
 public:
  BeastWriter(Stream& s, int fd, unsigned version, bool keep_alive, beast::flat_buffer& pending)
      : stream_(s), fd_(fd), version_(version), keep_alive_(keep_alive), pending_(pending) {}

  void send(const HttpResponse& r) override {
    if (sent_) return;
    sent_ = true;
    http::response<http::string_body> res{static_cast<http::status>(r.status), version_};
    res.set(http::field::server, "kube-sim");
    res.set(http::field::content_type, r.content_type);
    res.set("Audit-Id", "kube-sim");
    for (const auto& [k, v] : r.headers) res.insert(k, v);  // repeatable (one Warning header per warning)
    res.keep_alive(keep_alive_);
    res.body() = r.body;
    res.prepare_payload();
    beast::error_code ec;
    http::write(stream_, res, ec);
    if (ec) failed_ = true;
  }
  bool start_stream(int status, const std::string& content_type) override {
    if (sent_) return false;
    sent_ = streaming_ = true;
    http::response<http::empty_body> res{static_cast<http::status>(status), version_};
    res.set(http::field::server, "kube-sim");
    res.set(http::field::content_type, content_type);
    res.set(http::field::cache_control, "no-cache, private");
    res.keep_alive(keep_alive_);
    res.chunked(true);
    http::response_serializer<http::empty_body> sr{res};
    beast::error_code ec;
    http::write_header(stream_, sr, ec);
    if (ec) failed_ = true;
    return !failed_;
  }
  bool write_chunk(const std::string& data) override {
    if (failed_ || !streaming_) return false;
    beast::error_code ec;
    net::write(stream_, http::make_chunk(net::const_buffer(data.data(), data.size())), ec);
    if (ec) failed_ = true;
    return !failed_;
  }
  void end_stream() override {
    if (failed_ || !streaming_) return;
    beast::error_code ec;
    net::write(stream_, http::make_chunk_last(), ec);
    if (ec) failed_ = true;
    streaming_ = false;
  }
  bool peer_closed() override {
    pollfd p{fd_, POLLRDHUP, 0};
    return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR));
  }
  void abort() override {
    ::shutdown(fd_, SHUT_RDWR);
    failed_ = true;
  }
  UpgradedConnection* upgrade(const std::vector<std::pair<std::string, std::string>>& headers) override {
    if (sent_) return nullptr;
    sent_ = true;
    http::response<http::empty_body> res{http::status::switching_protocols, version_};
    for (const auto& [k, v] : headers) res.insert(k, v);
    beast::error_code ec;
    http::write(stream_, res, ec);
    // Whatever follows belongs to the upgraded protocol: this connection serves no more requests.
    failed_ = true;
    if (ec) return nullptr;
    upgraded_ = std::make_unique<BeastUpgraded<Stream>>(stream_, fd_, pending_);
    return upgraded_.get();
  }
  bool failed() const { return failed_; }
  bool sent() const { return sent_; }

 private:
  Stream& stream_;
  int fd_;
  unsigned version_;
  bool keep_alive_;
  beast::flat_buffer& pending_;
  std::unique_ptr<BeastUpgraded<Stream>> upgraded_;
  bool sent_ = false, streaming_ = false, failed_ = false;
};

Identity identity_from_cert(SSL* ssl) {
  Identity id;
  X509* cert = SSL_get1_peer_certificate(ssl);
  if (!cert) return id;
  if (SSL_get_verify_result(ssl) == X509_V_OK) {
    X509_NAME* name = X509_get_subject_name(cert);
    for (int i = 0; i < X509_NAME_entry_count(name); ++i) {
      X509_NAME_ENTRY* e = X509_NAME_get_entry(name, i);
      int nid = OBJ_obj2nid(X509_NAME_ENTRY_get_object(e));
      unsigned char* utf8 = nullptr;
      int len = ASN1_STRING_to_UTF8(&utf8, X509_NAME_ENTRY_get_data(e));
      if (len < 0) continue;
      std::string v(reinterpret_cast<char*>(utf8), static_cast<size_t>(len));
      OPENSSL_free(utf8);
      if (nid == NID_commonName) id.user = v;
      if (nid == NID_organizationName) id.groups.push_back(v);
    }
    if (!id.user.empty()) id.groups.push_back("system:authenticated");
  }
  X509_free(cert);
  return id;
}

}  // namespace

struct HttpServer::Impl {
  struct Conn {
    std::thread thread;
    std::atomic<bool> done{false};
    int fd = -1;
  };

  ApiServer& api;
  HttpServerOptions opts;
  net::io_context ioc;
  std::unique_ptr<net::ssl::context> ssl_ctx;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::thread accept_thread;
  std::atomic<bool> stopping{false};
  mutable std::mutex mu;
  std::list<std::unique_ptr<Conn>> conns;
  uint16_t bound_port = 0;
  std::string bound_host;
  // Outages (begin_outage): one at a time, ended early by stop().
  std::mutex outage_mu;
  std::condition_variable outage_cv;
  std::thread outage_thread;
  std::atomic<bool> outage{false};

  Impl(ApiServer& a, HttpServerOptions o) : api(a), opts(std::move(o)) {}

  template <class Stream>
  void serve(Stream& stream, int fd, const Identity& cert_id) {
    beast::flat_buffer buf;
    while (!stopping) {
      http::request_parser<http::string_body> parser;
      // Read bodies up to a hard cap so the client gets its 413 (the API checks
      // max_body_bytes); beyond the cap the connection is cut.
      parser.body_limit(std::max<size_t>(opts.max_body_bytes * 8, 64 * 1024 * 1024));
      parser.header_limit(1024 * 1024);
      beast::error_code ec;
      http::read_header(stream, buf, parser, ec);
      if (ec) return;
      if (beast::iequals(parser.get()[http::field::expect], "100-continue")) {
        // curl sends this for larger bodies and would otherwise wait a second.
        static const std::string cont = "HTTP/1.1 100 Continue\r\n\r\n";
        net::write(stream, net::buffer(cont), ec);
        if (ec) return;
      }
      if (!parser.is_done()) http::read(stream, buf, parser, ec);
      bool too_large = ec == http::error::body_limit;
      if (ec && !too_large) return;
      auto& msg = parser.get();
      HttpRequest req;
      req.method = std::string(msg.method_string());
      req.target = std::string(msg.target());
      for (const auto& f : msg) {
        std::string k(f.name_string());
        for (auto& ch : k) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
        req.headers[k] = std::string(f.value());
        req.header_list.emplace_back(k, std::string(f.value()));
      }
      if (!too_large) req.body = std::move(msg.body());
      req.body_too_large = too_large || req.body.size() > opts.max_body_bytes;
      if (req.body_too_large) req.body.clear();
      req.cert_identity = cert_id;
      const bool keep_alive = msg.keep_alive() && !too_large;
      BeastWriter<Stream> writer(stream, fd, msg.version(), keep_alive, buf);
      api.handle(req, writer);
      if (!writer.sent()) {
        HttpResponse r;
        r.status = 500;
        writer.send(r);
      }
      if (writer.failed() || !keep_alive) return;
    }
  }

  void run_connection(tcp::socket sock, Conn* conn) {
    try {
      beast::error_code ec;
      sock.set_option(tcp::no_delay(true), ec);
      const int fd = sock.native_handle();
      if (ssl_ctx) {
        net::ssl::stream<tcp::socket&> stream(sock, *ssl_ctx);
        stream.handshake(net::ssl::stream_base::server, ec);
        if (!ec) {
          Identity id = identity_from_cert(stream.native_handle());
          serve(stream, fd, id);
          stream.shutdown(ec);
        }
      } else {
        serve(sock, fd, Identity{});
      }
      sock.shutdown(tcp::socket::shutdown_both, ec);
      {
        std::lock_guard lock(mu);
        conn->fd = -1;
      }
      sock.close(ec);
    } catch (const std::exception& e) {
      spdlog::warn("kube-sim: connection error: {}", e.what());
      std::lock_guard lock(mu);
      conn->fd = -1;
    }
    conn->done = true;
  }

  void reap() {
    std::lock_guard lock(mu);
    for (auto it = conns.begin(); it != conns.end();) {
      if ((*it)->done) {
        (*it)->thread.join();
        it = conns.erase(it);
      } else {
        ++it;
      }
    }
  }

  void listen_on(const tcp::endpoint& ep) {
    acceptor = std::make_unique<tcp::acceptor>(ioc);
    acceptor->open(ep.protocol());
    acceptor->set_option(net::socket_base::reuse_address(true));
    acceptor->bind(ep);
    acceptor->listen(1024);
  }

  void cut_connections() {
    std::lock_guard lock(mu);
    for (auto& c : conns)
      if (c->fd >= 0) ::shutdown(c->fd, SHUT_RDWR);
  }

  void run_outage(std::chrono::milliseconds down, const std::function<void()>& while_down) {
    // Let the admin call that asked for it be answered first.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    {
      std::unique_lock lock(outage_mu);
      if (stopping) return void(outage = false);
      ::shutdown(acceptor->native_handle(), SHUT_RDWR);
    }
    if (accept_thread.joinable()) accept_thread.join();
    beast::error_code ec;
    acceptor->close(ec);
    api.cut_streams();
    cut_connections();
    if (while_down) while_down();
    const tcp::endpoint ep(net::ip::make_address(bound_host), bound_port);
    std::unique_lock lock(outage_mu);
    outage_cv.wait_for(lock, down, [&] { return stopping.load(); });
    // Back on the same port; a lingering socket may hold it for a moment.
    for (int attempt = 0; !stopping; ++attempt) {
      try {
        listen_on(ep);
        accept_thread = std::thread([this] { accept_loop(); });
        break;
      } catch (const std::exception& e) {
        if (attempt >= 100) {
          spdlog::error("kube-sim: cannot listen again on {}:{} after an outage: {}", bound_host, bound_port, e.what());
          break;
        }
        outage_cv.wait_for(lock, std::chrono::milliseconds(50), [&] { return stopping.load(); });
      }
    }
    outage = false;
  }

  void accept_loop() {
    while (!stopping) {
      beast::error_code ec;
      tcp::socket sock(ioc);
      acceptor->accept(sock, ec);
      if (stopping) break;
      if (ec) {
        if (ec == net::error::bad_descriptor || ec == net::error::invalid_argument) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        continue;
      }
      reap();
      auto conn = std::make_unique<Conn>();
      Conn* raw = conn.get();
      raw->fd = sock.native_handle();
      std::lock_guard lock(mu);
      conns.push_back(std::move(conn));
      raw->thread = std::thread([this, raw, s = std::move(sock)]() mutable { run_connection(std::move(s), raw); });
    }
  }
};

HttpServer::HttpServer(ApiServer& api, HttpServerOptions opts) : impl_(std::make_unique<Impl>(api, std::move(opts))) {}

HttpServer::~HttpServer() { stop(); }

void HttpServer::start() {
  auto& i = *impl_;
  std::string host = "127.0.0.1", port = "0";
  auto colon = i.opts.listen.rfind(':');
  if (colon != std::string::npos) {
    host = i.opts.listen.substr(0, colon);
    port = i.opts.listen.substr(colon + 1);
  } else {
    port = i.opts.listen;
  }
  if (host.size() > 2 && host.front() == '[') host = host.substr(1, host.size() - 2);
  if (host.empty()) host = "0.0.0.0";
  if (i.opts.tls) {
    i.ssl_ctx = std::make_unique<net::ssl::context>(net::ssl::context::tls_server);
    i.ssl_ctx->set_options(net::ssl::context::default_workarounds | net::ssl::context::no_sslv2 |
                           net::ssl::context::no_sslv3 | net::ssl::context::no_tlsv1 | net::ssl::context::no_tlsv1_1);
    i.ssl_ctx->use_certificate_chain(net::buffer(i.opts.cert_pem));
    i.ssl_ctx->use_private_key(net::buffer(i.opts.key_pem), net::ssl::context::pem);
    if (!i.opts.client_ca_pem.empty()) {
      i.ssl_ctx->add_certificate_authority(net::buffer(i.opts.client_ca_pem));
      // Advertise the CA so clients pick the right certificate; verify when one is presented.
      BIO* bio = BIO_new_mem_buf(i.opts.client_ca_pem.data(), static_cast<int>(i.opts.client_ca_pem.size()));
      STACK_OF(X509_NAME)* names = sk_X509_NAME_new_null();
      while (X509* c = PEM_read_bio_X509(bio, nullptr, nullptr, nullptr)) {
        sk_X509_NAME_push(names, X509_NAME_dup(X509_get_subject_name(c)));
        X509_free(c);
      }
      BIO_free(bio);
      SSL_CTX_set_client_CA_list(i.ssl_ctx->native_handle(), names);
      i.ssl_ctx->set_verify_mode(net::ssl::verify_peer);
    }
  }
  tcp::endpoint ep(net::ip::make_address(host), static_cast<unsigned short>(std::stoi(port)));
  i.listen_on(ep);
  i.bound_port = i.acceptor->local_endpoint().port();
  i.bound_host = host;
  i.accept_thread = std::thread([&i] { i.accept_loop(); });
}

uint16_t HttpServer::port() const { return impl_->bound_port; }
std::string HttpServer::host() const { return impl_->bound_host; }

size_t HttpServer::open_connections() const {
  std::lock_guard lock(impl_->mu);
  size_t n = 0;
  for (const auto& c : impl_->conns)
    if (!c->done) ++n;
  return n;
}

bool HttpServer::begin_outage(std::chrono::milliseconds down, std::function<void()> while_down) {
  auto& i = *impl_;
  std::lock_guard lock(i.outage_mu);
  if (i.stopping || !i.acceptor || i.outage) return false;
  if (i.outage_thread.joinable()) i.outage_thread.join();
  i.outage = true;
  i.outage_thread = std::thread([&i, down, f = std::move(while_down)] { i.run_outage(down, f); });
  return true;
}

bool HttpServer::in_outage() const { return impl_->outage; }

void HttpServer::stop() {
  auto& i = *impl_;
  {
    std::lock_guard lock(i.outage_mu);
    if (i.stopping.exchange(true)) return;
    i.outage_cv.notify_all();
  }
  if (i.outage_thread.joinable()) i.outage_thread.join();
  i.api.shutdown();
  if (i.acceptor) ::shutdown(i.acceptor->native_handle(), SHUT_RDWR);
  if (i.accept_thread.joinable()) i.accept_thread.join();
  beast::error_code ec;
  if (i.acceptor) i.acceptor->close(ec);
  // Idle keep-alive connections see EOF at once; streams end cleanly (final
  // chunk) as the API server stops them; whatever is left is cut.
  {
    std::lock_guard lock(i.mu);
    for (auto& c : i.conns)
      if (c->fd >= 0) ::shutdown(c->fd, SHUT_RD);
  }
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(600);
  while (open_connections() > 0 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  {
    std::lock_guard lock(i.mu);
    for (auto& c : i.conns)
      if (c->fd >= 0) ::shutdown(c->fd, SHUT_RDWR);
  }
  std::lock_guard lock(i.mu);
  for (auto& c : i.conns)
    if (c->thread.joinable()) c->thread.join();
  i.conns.clear();
}

}  // namespace kubesim
