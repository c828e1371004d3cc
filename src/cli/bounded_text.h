// Text of bounded length for messages on a terminal or in a log. Header-only, stateless.
// Kept apart from the build's version (command_line.h), which changes with each commit.
#pragma once

#include <cstdio>
#include <string>
#include <string_view>

namespace dgd::cli {

// At most `max` bytes of `text` for a message: control characters and bytes that are
// not UTF-8 are written as \xNN (they would garble a terminal or a JSON log), and what
// is cut is counted, so a 10 MB value costs a line, not 10 MB of stderr.
inline std::string bounded(std::string_view text, size_t max = 512) {
  std::string out;
  size_t i = 0;
  while (i < text.size() && out.size() < max) {
    const auto c = static_cast<unsigned char>(text[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    bool ok = len > 0 && i + len <= text.size();
    for (size_t k = 1; ok && k < len; ++k) ok = (static_cast<unsigned char>(text[i + k]) >> 6) == 0x2;
    if (ok && len == 1 && ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7f)) ok = false;
    if (ok) {
      out.append(text.substr(i, len));
      i += len;
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
      ++i;
    }
  }
  if (i < text.size()) out += "... (" + std::to_string(text.size() - i) + " more bytes)";
  return out;
}

}  // namespace dgd::cli
