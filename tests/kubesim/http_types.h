// kube-sim: the HTTP-library-neutral request/response types shared by the API
// logic (api_server.h) and the Beast transport (http_server.h).
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace kubesim {

struct Identity {
  std::string user;  // "" = anonymous
  std::vector<std::string> groups;
  bool authenticated() const { return !user.empty(); }
};

struct HttpRequest {
  std::string method;  // GET, POST, ...
  std::string target;  // raw path + query
  std::map<std::string, std::string> headers;  // lower-case names (a repeated header: its last value)
  std::vector<std::pair<std::string, std::string>> header_list;  // every header in order (Impersonate-Group repeats)
  std::string body;
  Identity cert_identity;  // from a verified TLS client certificate, if any
  bool body_too_large = false;

  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
};

// A connection after 101 Switching Protocols: raw bytes both ways. One thread may
// read while others write.
class UpgradedConnection {
 public:
  virtual ~UpgradedConnection() = default;
  // Up to n bytes; 0 once the peer has closed or the server stops.
  virtual size_t read_some(char* buf, size_t n) = 0;
  // False if the peer is gone.
  virtual bool write_all(const char* data, size_t n) = 0;
};

// How a handler answers: either one response, a chunked stream, or an upgrade.
class ResponseWriter {
 public:
  virtual ~ResponseWriter() = default;
  virtual void send(const HttpResponse& r) = 0;
  // Sends status + headers of a chunked response. False if the client is gone.
  virtual bool start_stream(int status, const std::string& content_type) = 0;
  // One chunk, flushed. False if the client is gone.
  virtual bool write_chunk(const std::string& data) = 0;
  virtual void end_stream() = 0;
  // True when the peer has closed its side (checked while a stream idles).
  virtual bool peer_closed() { return false; }
  // Cuts the connection without the final chunk (an injected network fault).
  virtual void abort() {}
  // Answers 101 Switching Protocols with `headers` and hands over the connection until
  // the handler returns; the connection then closes. nullptr if the transport cannot.
  virtual UpgradedConnection* upgrade(const std::vector<std::pair<std::string, std::string>>& headers) {
    (void)headers;
    return nullptr;
  }
};

}  // namespace kubesim
