// RefusingPort: a loopback TCP port that refuses connections, for tests of an unreachable
// server. The object binds it (so no other process takes it while the test runs) and never
// listens, so a connect gets ECONNREFUSED. Single-owner.
#pragma once
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include <string>

namespace dgd::testing {

class RefusingPort {
 public:
  RefusingPort() : socket_(io_, {boost::asio::ip::make_address("127.0.0.1"), 0}) {}
  int port() const { return socket_.local_endpoint().port(); }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port()); }

 private:
  boost::asio::io_context io_;
  boost::asio::ip::tcp::socket socket_;
};

}  // namespace dgd::testing
