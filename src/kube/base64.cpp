// Base64 through OpenSSL's EVP_EncodeBlock / EVP_DecodeBlock (standard alphabet, padded);
// the URL alphabet and optional padding on input are a translation in front of them.
#include "dgd/kube/base64.h"

#include <openssl/evp.h>

namespace dgd::kube {

std::optional<std::string> base64_decode(std::string_view in) {
  std::string text;
  text.reserve(in.size() + 3);
  size_t padding = 0;
  for (char c : in) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    if (c == '=') {
      ++padding;
      continue;
    }
    if (padding > 0) return std::nullopt;  // data after padding
    text += c == '-' ? '+' : c == '_' ? '/' : c;
  }
  if (padding > 2 || text.size() % 4 == 1) return std::nullopt;
  // EVP_DecodeBlock wants whole quantums; it decodes padding as zero bytes, dropped below.
  const size_t pad = (4 - text.size() % 4) % 4;
  text.append(pad, '=');
  std::string out(text.size() / 4 * 3, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  out.resize(static_cast<size_t>(n) - pad);
  return out;
}

std::string base64_encode(std::string_view in) {
  std::string out((in.size() + 2) / 3 * 4 + 1, '\0');  // EVP_EncodeBlock writes a NUL
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(in.data()), static_cast<int>(in.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

}  // namespace dgd::kube
