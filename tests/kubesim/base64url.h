// Base64url without padding (RFC 4648 §5): continue tokens and ServiceAccount tokens.
#pragma once

#include <cstdint>
#include <string>

namespace kubesim {

inline std::string base64url(const std::string& in) {
  static const char t[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8) | uint8_t(in[i + 2]);
    out += {t[n >> 18], t[(n >> 12) & 63], t[(n >> 6) & 63], t[n & 63]};
  }
  if (in.size() - i == 1) {
    uint32_t n = uint8_t(in[i]) << 16;
    out += {t[n >> 18], t[(n >> 12) & 63]};
  } else if (in.size() - i == 2) {
    uint32_t n = (uint8_t(in[i]) << 16) | (uint8_t(in[i + 1]) << 8);
    out += {t[n >> 18], t[(n >> 12) & 63], t[(n >> 6) & 63]};
  }
  return out;
}

}  // namespace kubesim
