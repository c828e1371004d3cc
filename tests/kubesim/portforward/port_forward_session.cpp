#include "kubesim/portforward/port_forward_session.h"

#include <netdb.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include <spdlog/spdlog.h>

#include "kubesim/portforward/spdy_frames.h"

namespace kubesim::portforward {

namespace {

using spdy::Frame;

constexpr size_t kMaxDataFrame = 32 * 1024;
constexpr uint32_t kGoAwayOk = 0, kGoAwayProtocolError = 1;

// A TCP connection to host:port, or the Go-style reason it failed.
int connect_to(const BackendAddress& a, std::string& error) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* res = nullptr;
  if (int rc = ::getaddrinfo(a.host.c_str(), a.port.c_str(), &hints, &res); rc != 0) {
    error = "dial tcp " + a.host + ":" + a.port + ": lookup " + a.host + ": " + gai_strerror(rc);
    return -1;
  }
  int fd = -1, last_errno = 0;
  for (addrinfo* ai = res; ai && fd < 0; ai = ai->ai_next) {
    fd = ::socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
    if (fd < 0) continue;
    if (::connect(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
      last_errno = errno;
      ::close(fd);
      fd = -1;
    }
  }
  ::freeaddrinfo(res);
  if (fd < 0) {
    std::string reason = std::strerror(last_errno);
    if (!reason.empty()) reason[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(reason[0])));
    error = "dial tcp " + a.host + ":" + a.port + ": connect: " + reason;
  }
  return fd;
}

bool send_all(int fd, const char* p, size_t n) {
  while (n > 0) {
    const ssize_t k = ::send(fd, p, n, MSG_NOSIGNAL);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    p += k;
    n -= static_cast<size_t>(k);
  }
  return true;
}

class Session {
 public:
  Session(UpgradedConnection& conn, const Target& target) : conn_(conn), target_(target) {}
  ~Session() { finish(); }

  void run() {
    std::string buf;
    std::vector<char> chunk(64 * 1024);
    try {
      for (;;) {
        size_t need;
        while ((need = spdy::frame_size(buf)) != 0 && need <= buf.size()) {
          Frame f = spdy::parse_frame(buf);
          buf.erase(0, need);
          if (f.control) handle_control(f);
          else handle_data(f);
        }
        const size_t n = conn_.read_some(chunk.data(), chunk.size());
        if (n == 0) break;
        buf.append(chunk.data(), n);
      }
      send_goaway(kGoAwayOk);
    } catch (const spdy::ProtocolError& e) {
      spdlog::warn("kube-sim: port-forward: {}", e.what());
      send_goaway(kGoAwayProtocolError);
    }
    finish();
  }

 private:
  // One forwarded connection: its two streams and the backend connection.
  struct Pair {
    uint32_t error_stream = 0, data_stream = 0;
    int64_t port = -1;
    int fd = -1;  // the backend; written by the reader thread, read by `pump`
    std::thread pump;
    bool started = false;
    // Guarded by Session::mu_.
    bool reset = false, pump_done = false;
    int64_t send_window = 0;  // the data stream's, set when it opens
  };

  void write_frame(const std::string& frame) {
    std::lock_guard lock(write_mu_);
    conn_.write_all(frame.data(), frame.size());
  }
  void send_reply(uint32_t id) {
    std::lock_guard lock(write_mu_);  // the compressor's state follows the frame order
    std::string payload;
    spdy::put_u32(payload, id);
    payload += compressor_.compress({});
    const std::string frame = spdy::control_frame(spdy::kSynReply, 0, payload);
    conn_.write_all(frame.data(), frame.size());
  }
  void send_rst(uint32_t id, uint32_t status) {
    std::string payload;
    spdy::put_u32(payload, id);
    spdy::put_u32(payload, status);
    write_frame(spdy::control_frame(spdy::kRstStream, 0, payload));
  }
  void send_window_update(uint32_t id, uint32_t delta) {
    std::string payload;
    spdy::put_u32(payload, id);
    spdy::put_u32(payload, delta);
    write_frame(spdy::control_frame(spdy::kWindowUpdate, 0, payload));
  }
  void send_goaway(uint32_t status) {
    if (goaway_sent_) return;
    goaway_sent_ = true;
    std::string payload;
    spdy::put_u32(payload, last_stream_);
    spdy::put_u32(payload, status);
    write_frame(spdy::control_frame(spdy::kGoAway, 0, payload));
  }
  void send_data(uint32_t id, uint8_t flags, const char* p, size_t n) {
    write_frame(spdy::data_frame(id, flags, p, n));
  }

  void handle_control(const Frame& f) {
    switch (f.type) {
      case spdy::kSynStream: return on_syn_stream(f);
      case spdy::kRstStream: return on_rst_stream(spdy::read_u32(f.payload, 0) & 0x7fffffff);
      case spdy::kSettings: return on_settings(f);
      case spdy::kPing:
        // Client pings carry odd ids; an even id would answer a ping kube-sim never sends.
        if (spdy::read_u32(f.payload, 0) % 2 == 1) write_frame(spdy::control_frame(spdy::kPing, 0, f.payload.substr(0, 4)));
        return;
      case spdy::kGoAway: goaway_received_ = true; return;
      case spdy::kHeaders:
        spdy::read_u32(f.payload, 0);
        decompressor_.decompress(f.payload.substr(4));  // keeps the zlib stream in step
        return;
      case spdy::kWindowUpdate:
        return on_window_update(spdy::read_u32(f.payload, 0) & 0x7fffffff, spdy::read_u32(f.payload, 4) & 0x7fffffff);
      default: return;  // SYN_REPLY to no stream of ours, or a type SPDY/3.1 says to ignore
    }
  }

  void on_syn_stream(const Frame& f) {
    const uint32_t id = spdy::read_u32(f.payload, 0) & 0x7fffffff;
    if (f.payload.size() < 10) throw spdy::ProtocolError("short SYN_STREAM");
    const spdy::Headers h = decompressor_.decompress(f.payload.substr(10));
    // After the client's GOAWAY kubelet's spdystream (Connection.checkStreamFrame) drops a
    // new stream without an answer: no SYN_REPLY, no RST_STREAM, its id not recorded.
    if (goaway_received_) return;
    if (id == 0 || id % 2 == 0 || id <= last_stream_) throw spdy::ProtocolError("invalid stream id in SYN_STREAM");
    last_stream_ = id;
    reap();
    auto get = [&h](const char* k) {
      auto it = h.find(k);
      return it == h.end() ? std::string() : it->second;
    };
    const std::string type = get("streamtype");
    if (type != "error" && type != "data") return send_rst(id, spdy::kProtocolError);
    // Clients older than requestid pair a data stream with the error stream just before it.
    std::string request = get("requestid");
    if (request.empty()) request = "#" + std::to_string(type == "error" ? id : id - 2);
    auto& pair = pairs_[request];
    if (!pair) pair = std::make_shared<Pair>();
    if ((type == "error" ? pair->error_stream : pair->data_stream) != 0) return send_rst(id, spdy::kProtocolError);
    send_reply(id);
    {
      std::lock_guard lock(mu_);
      if (type == "error") {
        pair->error_stream = id;
      } else {
        pair->data_stream = id;
        pair->send_window = initial_window_;  // SETTINGS may have changed it
      }
      by_stream_[id] = pair;
    }
    if (type == "data") {
      const std::string port = get("port");
      char* end = nullptr;
      const long long p = port.empty() ? -1 : std::strtoll(port.c_str(), &end, 10);
      pair->port = (end && *end == '\0' && p > 0 && p < 65536) ? p : -1;
    }
    if (pair->error_stream != 0 && pair->data_stream != 0 && !pair->started) start(pair);
  }

  // Both streams are there: connect and relay, or report the failure on the error stream.
  void start(const std::shared_ptr<Pair>& pair) {
    pair->started = true;
    std::string error;
    if (pair->port < 0) {
      error = "invalid port";
    } else if (auto backend = target_.backend(pair->port)) {
      pair->fd = connect_to(*backend, error);
    } else {
      error = "failed to connect to localhost:" + std::to_string(pair->port) + " inside the pod: connection refused";
    }
    if (pair->fd < 0) {
      const std::string msg = "error forwarding port " + std::to_string(std::max<int64_t>(pair->port, 0)) + " to pod " +
                              target_.pod_id + ", uid : " + error;
      send_data(pair->error_stream, 0, msg.data(), msg.size());
      close_streams(*pair);
      std::lock_guard lock(mu_);
      pair->pump_done = true;
      return;
    }
    pair->pump = std::thread([this, pair] { pump(pair); });
  }

  // Backend -> data stream, until the backend closes or the stream is reset.
  void pump(std::shared_ptr<Pair> pair) {
    std::vector<char> buf(kMaxDataFrame);
    for (;;) {
      const ssize_t n = ::recv(pair->fd, buf.data(), buf.size(), 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      size_t at = 0;
      while (at < static_cast<size_t>(n)) {
        size_t k = static_cast<size_t>(n) - at;
        {
          std::unique_lock lock(mu_);
          cv_.wait(lock, [&] {
            return pair->reset || ending_ || !peer_keeps_windows_ ||
                   std::min(session_send_window_, pair->send_window) > 0;
          });
          if (pair->reset || ending_) break;
          if (peer_keeps_windows_) {
            k = std::min<size_t>(k, static_cast<size_t>(std::min(session_send_window_, pair->send_window)));
            session_send_window_ -= static_cast<int64_t>(k);
            pair->send_window -= static_cast<int64_t>(k);
          }
        }
        send_data(pair->data_stream, 0, buf.data() + at, k);
        at += k;
      }
      std::lock_guard lock(mu_);
      if (pair->reset || ending_) break;
    }
    bool reset;
    {
      std::lock_guard lock(mu_);
      reset = pair->reset;
    }
    if (!reset) close_streams(*pair);
    std::lock_guard lock(mu_);
    pair->pump_done = true;
  }

  void close_streams(const Pair& pair) {
    send_data(pair.data_stream, spdy::kFlagFin, nullptr, 0);
    send_data(pair.error_stream, spdy::kFlagFin, nullptr, 0);
  }

  void handle_data(const Frame& f) {
    std::shared_ptr<Pair> pair;
    {
      std::lock_guard lock(mu_);
      auto it = by_stream_.find(f.stream_id);
      if (it != by_stream_.end()) pair = it->second;
    }
    if (!pair) {
      // A stream already finished may still see the client's last frames.
      if (f.stream_id > last_stream_) send_rst(f.stream_id, spdy::kInvalidStream);
      return;
    }
    if (f.stream_id != pair->data_stream) return;  // the client writes nothing on the error stream
    if (!f.payload.empty()) {
      if (pair->fd >= 0) send_all(pair->fd, f.payload.data(), f.payload.size());
      const auto n = static_cast<uint32_t>(f.payload.size());
      send_window_update(f.stream_id, n);
      send_window_update(0, n);
    }
    if ((f.flags & spdy::kFlagFin) && pair->fd >= 0) ::shutdown(pair->fd, SHUT_WR);
  }

  void on_rst_stream(uint32_t id) {
    std::lock_guard lock(mu_);
    auto it = by_stream_.find(id);
    if (it == by_stream_.end()) return;
    it->second->reset = true;
    if (it->second->fd >= 0) ::shutdown(it->second->fd, SHUT_RDWR);
    cv_.notify_all();
  }

  void on_settings(const Frame& f) {
    const uint32_t n = spdy::read_u32(f.payload, 0);
    for (uint32_t i = 0; i < n; ++i) {
      const uint32_t id = spdy::read_u32(f.payload, 4 + 8 * i) & 0xffffff;
      const uint32_t value = spdy::read_u32(f.payload, 8 + 8 * i);
      if (id != spdy::kSettingsInitialWindowSize) continue;
      std::lock_guard lock(mu_);
      const int64_t delta = static_cast<int64_t>(value) - initial_window_;
      initial_window_ = value;
      for (auto& [sid, p] : by_stream_)
        if (sid == p->data_stream) p->send_window += delta;
      peer_keeps_windows_ = true;
      cv_.notify_all();
    }
  }

  void on_window_update(uint32_t id, uint32_t delta) {
    std::lock_guard lock(mu_);
    peer_keeps_windows_ = true;
    if (id == 0) {
      session_send_window_ += delta;
    } else if (auto it = by_stream_.find(id); it != by_stream_.end() && id == it->second->data_stream) {
      it->second->send_window += delta;
    }
    cv_.notify_all();
  }

  // Forgets connections whose backend has closed (reader thread only).
  void reap() {
    std::vector<std::shared_ptr<Pair>> done;
    {
      std::lock_guard lock(mu_);
      for (auto it = pairs_.begin(); it != pairs_.end();) {
        if (it->second->pump_done) {
          done.push_back(it->second);
          by_stream_.erase(it->second->error_stream);
          by_stream_.erase(it->second->data_stream);
          it = pairs_.erase(it);
        } else {
          ++it;
        }
      }
    }
    for (auto& p : done) release(*p);
  }

  static void release(Pair& p) {
    if (p.pump.joinable()) p.pump.join();
    if (p.fd >= 0) ::close(p.fd);
    p.fd = -1;
  }

  void finish() {
    {
      std::lock_guard lock(mu_);
      if (finished_) return;
      finished_ = ending_ = true;
      for (auto& [id, p] : pairs_)
        if (p->fd >= 0) ::shutdown(p->fd, SHUT_RDWR);
      cv_.notify_all();
    }
    for (auto& [id, p] : pairs_) release(*p);
    pairs_.clear();
    by_stream_.clear();
  }

  UpgradedConnection& conn_;
  const Target& target_;
  std::mutex write_mu_;  // one frame at a time; guards compressor_
  spdy::HeaderCompressor compressor_;
  spdy::HeaderDecompressor decompressor_;  // reader thread only
  uint32_t last_stream_ = 0;               // reader thread only
  bool goaway_received_ = false, goaway_sent_ = false;
  std::map<std::string, std::shared_ptr<Pair>> pairs_;  // by requestid; reader thread only

  std::mutex mu_;
  std::condition_variable cv_;
  std::map<uint32_t, std::shared_ptr<Pair>> by_stream_;
  int64_t session_send_window_ = spdy::kInitialWindow;
  int64_t initial_window_ = spdy::kInitialWindow;
  bool peer_keeps_windows_ = false, ending_ = false, finished_ = false;
};

}  // namespace

void serve(UpgradedConnection& conn, const Target& target) {
  Session session(conn, target);
  session.run();
}

}  // namespace kubesim::portforward
