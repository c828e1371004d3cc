// Base64 (RFC 4648) for kubeconfig *-data fields, basic auth and exec-plugin cluster
// info: OpenSSL's codec underneath. kube-sim uses it too (Secret data, its tokens).
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace dgd::kube {

// Decodes the standard or the URL alphabet (RFC 4648 §5); whitespace is ignored, padding
// optional. nullopt on any other bad character or a truncated quantum.
std::optional<std::string> base64_decode(std::string_view in);
// Standard alphabet, padded to a multiple of 4.
std::string base64_encode(std::string_view in);

}  // namespace dgd::kube
