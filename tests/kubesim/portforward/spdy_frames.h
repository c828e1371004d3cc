// kube-sim: SPDY/3.1 frames as kubectl's SPDY streams (moby/spdystream) put them on
// the wire: control frames (SYN_STREAM, SYN_REPLY, RST_STREAM, SETTINGS, PING, GOAWAY,
// HEADERS, WINDOW_UPDATE) and data frames, big-endian, with name/value header blocks
// compressed by zlib against the SPDY/3 dictionary. One HeaderCompressor and one
// HeaderDecompressor live for the whole connection, one per direction, as the zlib
// streams continue from frame to frame. Not thread-safe; callers serialise.
#pragma once

#include <zlib.h>

#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kubesim::spdy {

enum FrameType : uint16_t {
  kSynStream = 1,
  kSynReply = 2,
  kRstStream = 3,
  kSettings = 4,
  kPing = 6,
  kGoAway = 7,
  kHeaders = 8,
  kWindowUpdate = 9,
};
constexpr uint8_t kFlagFin = 0x01;
constexpr uint32_t kInitialWindow = 64 * 1024;  // SPDY/3.1 default window, per stream and per session
constexpr uint32_t kSettingsInitialWindowSize = 7;
// RST_STREAM status codes.
constexpr uint32_t kProtocolError = 1, kInvalidStream = 2, kRefusedStream = 3, kCancel = 5, kInternalError = 6;

// A malformed frame or header block; the session answers with GOAWAY PROTOCOL_ERROR.
struct ProtocolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

using Headers = std::map<std::string, std::string>;  // lower-case name -> value (NULs join repeats)

struct Frame {
  bool control = false;
  uint16_t type = 0;       // control frames
  uint32_t stream_id = 0;  // data frames
  uint8_t flags = 0;
  std::string payload;  // the bytes after the 8-byte frame header
};

// Bytes needed for the frame starting at `buf` (0 while fewer than 8 are there).
size_t frame_size(const std::string& buf);
// Splits one complete frame (frame_size(buf) <= buf.size()).
Frame parse_frame(const std::string& buf);

uint32_t read_u32(const std::string& s, size_t at);  // throws ProtocolError when short
void put_u32(std::string& out, uint32_t v);

std::string control_frame(uint16_t type, uint8_t flags, const std::string& payload);
std::string data_frame(uint32_t stream_id, uint8_t flags, const char* data, size_t n);

class HeaderCompressor {
 public:
  HeaderCompressor();
  ~HeaderCompressor();
  HeaderCompressor(const HeaderCompressor&) = delete;
  HeaderCompressor& operator=(const HeaderCompressor&) = delete;
  std::string compress(const Headers& h);

 private:
  z_stream z_{};
};

class HeaderDecompressor {
 public:
  HeaderDecompressor();
  ~HeaderDecompressor();
  HeaderDecompressor(const HeaderDecompressor&) = delete;
  HeaderDecompressor& operator=(const HeaderDecompressor&) = delete;
  Headers decompress(const std::string& block);

 private:
  z_stream z_{};
};

}  // namespace kubesim::spdy
