// Fuzz target: a watch response body as the informers read it (kube/watch.h): bytes arrive
// in chunks of any size, LineFramer cuts them into frames, decode_watch_event decodes each.
//
// Input layout: byte 0 picks max_line (small values exercise the overflow path), bytes 1..8
// are chunk lengths (cycled), the rest is the stream.
// Checks beyond "no crash": the frames do not depend on the chunk boundaries (the same stream
// fed whole gives the same frames, and the same unterminated tail); no frame is longer than
// max_line; decode_watch_event agrees with a plain nlohmann::json reading of the frame
// (accepts exactly the well-formed events, same type, same resourceVersion); and every
// decoded event answers status_error() without throwing.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "dgd/kube/watch.h"

namespace {

struct Framed {
  std::vector<std::string> lines;
  std::string tail;
  bool ok = true;
};

Framed frame(std::string_view stream, size_t max_line, const uint8_t* cuts, size_t ncuts) {
  dgd::kube::LineFramer framer(max_line);
  Framed out;
  size_t i = 0;
  while (!stream.empty() && out.ok) {
    size_t n = ncuts == 0 ? stream.size() : size_t{cuts[i++ % ncuts]} + 1;
    if (n > stream.size()) n = stream.size();
    out.ok = framer.feed(stream.substr(0, n), [&](std::string_view l) { out.lines.emplace_back(l); });
    stream.remove_prefix(n);
  }
  out.tail = std::string(framer.pending());
  return out;
}

// What decode_watch_event must make of `frame`, by the obvious DOM reading.
struct Expected {
  bool ok = false;
  dgd::kube::WatchEventType type = dgd::kube::WatchEventType::kAdded;
  std::string resource_version;
};

Expected reference_decode(std::string_view frame) {
  using dgd::kube::WatchEventType;
  Expected e;
  auto j = nlohmann::json::parse(frame, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return e;
  auto t = j.find("type");
  auto o = j.find("object");
  if (t == j.end() || !t->is_string() || o == j.end() || !o->is_object()) return e;
  const auto& type = t->get_ref<const std::string&>();
  if (type == "ADDED") e.type = WatchEventType::kAdded;
  else if (type == "MODIFIED") e.type = WatchEventType::kModified;
  else if (type == "DELETED") e.type = WatchEventType::kDeleted;
  else if (type == "BOOKMARK") e.type = WatchEventType::kBookmark;
  else if (type == "ERROR") e.type = WatchEventType::kError;
  else return e;
  e.ok = true;
  auto m = o->find("metadata");
  if (m != o->end() && m->is_object()) {
    auto rv = m->find("resourceVersion");
    if (rv != m->end() && rv->is_string()) e.resource_version = rv->get<std::string>();
  }
  return e;
}

[[noreturn]] void disagree(const std::string& frame, const char* what) {
  std::fprintf(stderr, "decode_watch_event disagrees with nlohmann::json on %s: %s\n", what,
               frame.substr(0, 500).c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size < 9 || size > 1024 * 1024) return 0;
  const size_t max_line = data[0] < 16 ? size_t{data[0]} * 8 + 1 : (64u << 20);
  const uint8_t* cuts = data + 1;
  const std::string_view stream(reinterpret_cast<const char*>(data + 9), size - 9);

  Framed chunked = frame(stream, max_line, cuts, 8);
  if (max_line == (64u << 20)) {
    Framed whole = frame(stream, max_line, nullptr, 0);
    if (!chunked.ok || !whole.ok || chunked.lines != whole.lines || chunked.tail != whole.tail) {
      std::fprintf(stderr, "frames depend on chunk boundaries: %zu vs %zu lines\n", chunked.lines.size(),
                   whole.lines.size());
      std::abort();
    }
  }
  for (const auto& line : chunked.lines) {
    if (line.empty() || line.find('\n') != std::string::npos || line.size() > max_line) {
      std::fprintf(stderr, "framer emitted an empty, multi-line or over-long frame (%zu bytes)\n", line.size());
      std::abort();
    }
    auto ev = dgd::kube::decode_watch_event(line);
    // nlohmann::json stops reading at a NUL byte (it ends C strings), so it is no reference
    // for frames that hold one; those only have to decode without a crash.
    if (line.find('\0') == std::string::npos) {
      Expected want = reference_decode(line);
      if (ev.ok() != want.ok) disagree(line, want.ok ? "a well-formed event it rejected" : "a bad frame it accepted");
      if (ev.ok() && ev->type != want.type) disagree(line, "the type");
      if (ev.ok() && ev->resource_version() != want.resource_version) disagree(line, "the resourceVersion");
    }
    if (ev.ok() && ev->type == dgd::kube::WatchEventType::kError) (void)ev->status_error("GET /fuzz?watch=1");
  }
  return 0;
}
