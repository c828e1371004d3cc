// kube-sim: base64 with the URL alphabet and no padding (RFC 4648 §5), the form of
// service-account token segments (JWT) and list continue tokens. The codec underneath
// is dgd::kube's (OpenSSL); decoding takes either alphabet there.
#pragma once

#include <string>
#include <string_view>

namespace kubesim {

std::string base64url_encode(std::string_view in);

}  // namespace kubesim
