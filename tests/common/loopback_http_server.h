// LoopbackHttpServer: a plain-HTTP server on 127.0.0.1 for a C++ test, answering each
// request with a handler's reply. It binds port 0 and reads the port back, so the port is
// the server's from the start (never picked, released and bound again). Boost.Beast on one
// asio thread; the handler runs on that thread. Stopped by the destructor. Single-owner.
//
//   LoopbackHttpServer server([](const LoopbackHttpServer::Request& req) {
//     LoopbackHttpServer::Response r{http::status::ok, 11};
//     r.body() = "{}";
//     return r;
//   });
//   client.get(server.url() + "/x");
#pragma once
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>

#include <functional>
#include <memory>
#include <string>
#include <thread>

namespace dgd::testing {

class LoopbackHttpServer {
 public:
  using Request = boost::beast::http::request<boost::beast::http::string_body>;
  using Response = boost::beast::http::response<boost::beast::http::string_body>;
  using Handler = std::function<Response(const Request&)>;

  explicit LoopbackHttpServer(Handler handler)
      : handler_(std::move(handler)), acceptor_(io_, {boost::asio::ip::make_address("127.0.0.1"), 0}) {
    port_ = acceptor_.local_endpoint().port();
    accept();
    thread_ = std::thread([this] { io_.run(); });
  }
  ~LoopbackHttpServer() {
    io_.stop();
    thread_.join();
  }
  LoopbackHttpServer(const LoopbackHttpServer&) = delete;
  LoopbackHttpServer& operator=(const LoopbackHttpServer&) = delete;

  int port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

 private:
  using tcp = boost::asio::ip::tcp;

  struct Session : std::enable_shared_from_this<Session> {
    Session(LoopbackHttpServer& server, tcp::socket socket) : server(server), stream(std::move(socket)) {}
    LoopbackHttpServer& server;
    boost::beast::tcp_stream stream;
    boost::beast::flat_buffer buffer;
    Request req;
    Response resp;

    void read() {
      req = {};
      boost::beast::http::async_read(stream, buffer, req, [self = shared_from_this()](boost::beast::error_code ec, size_t) {
        if (ec) return;
        self->resp = self->server.handler_(self->req);
        self->resp.version(self->req.version());
        self->resp.keep_alive(self->req.keep_alive());
        self->resp.prepare_payload();
        boost::beast::http::async_write(self->stream, self->resp, [self](boost::beast::error_code wec, size_t) {
          if (!wec && self->resp.keep_alive()) self->read();
        });
      });
    }
  };

  void accept() {
    acceptor_.async_accept([this](boost::beast::error_code ec, tcp::socket socket) {
      if (ec == boost::asio::error::operation_aborted) return;
      if (!ec) std::make_shared<Session>(*this, std::move(socket))->read();
      accept();
    });
  }

  Handler handler_;
  boost::asio::io_context io_;
  tcp::acceptor acceptor_;
  std::thread thread_;
  int port_ = 0;
};

}  // namespace dgd::testing
