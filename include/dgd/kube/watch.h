// Watch stream decoding: LineFramer splits a byte stream into newline-delimited frames
// whatever the chunk boundaries; decode_watch_event turns one frame into a WatchEvent.
// Pure and single-owner (one framer per stream); fuzzed and unit tested.
#pragma once
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "dgd/kube/error.h"

namespace dgd::kube {

class LineFramer {
 public:
  // A frame longer than max_line bytes makes feed() fail: the stream is corrupt or hostile.
  explicit LineFramer(size_t max_line = 64u << 20) : max_line_(max_line) {}
  static constexpr size_t kKeptCapacity = 256u << 10;

  // Appends `chunk` and calls on_line(std::string_view) for every completed line, in order,
  // without its "\n" (a trailing "\r" is dropped too). Empty lines are skipped.
  // Returns false (and drops the pending data) if a line exceeds max_line.
  template <class OnLine>
  bool feed(std::string_view chunk, OnLine&& on_line) {
    while (!chunk.empty()) {
      size_t nl = chunk.find('\n');
      if (nl == std::string_view::npos) {
        if (pending_.size() + chunk.size() > max_line_) {
          pending_.clear();
          return false;
        }
        pending_.append(chunk);
        return true;
      }
      // The limit holds whether the line came in one chunk or several.
      if (pending_.size() + nl > max_line_) {
        pending_.clear();
        return false;
      }
      std::string_view line;
      if (pending_.empty()) {
        line = chunk.substr(0, nl);
      } else {
        pending_.append(chunk.substr(0, nl));
        line = pending_;
      }
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      if (!line.empty()) on_line(line);
      pending_.clear();
      // The framer lives as long as its watch: one huge frame must not stay pinned.
      if (pending_.capacity() > kKeptCapacity) pending_.shrink_to_fit();
      chunk.remove_prefix(nl + 1);
    }
    return true;
  }
  // Bytes of an unterminated last frame (at EOF a server that ends without "\n" left one).
  std::string_view pending() const { return pending_; }

 private:
  size_t max_line_;
  std::string pending_;
};

enum class WatchEventType { kAdded, kModified, kDeleted, kBookmark, kError };

struct WatchEvent {
  WatchEventType type = WatchEventType::kAdded;
  // The object's JSON text as the server sent it (validated JSON, always an object);
  // for kError a Status.
  std::string object_text;

  // The object, parsed on demand.
  nlohmann::json object() const;
  // metadata.resourceVersion of the object ("" if absent).
  std::string resource_version() const;
  // For kError: the Status as an Error (410 Expired -> ErrorKind::kGone).
  Error status_error(std::string request) const;
};

// Decodes one frame {"type": T, "object": {...}}: the whole frame is checked to be valid
// JSON. Fails with kDecode (message says why).
Result<WatchEvent> decode_watch_event(std::string_view frame);

}  // namespace dgd::kube
