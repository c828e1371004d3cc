// Base64 (RFC 4648): the standard alphabet with padding for kubeconfig *-data fields
// and Secret data; the URL alphabet without padding (§5) for tokens and continue
// tokens. Pure. The one encoder of the project (kube-sim uses it too).
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace dgd::kube {

// Decodes either alphabet; whitespace is ignored, padding optional. nullopt on any other
// bad character.
std::optional<std::string> base64_decode(std::string_view in);
// Standard alphabet, padded to a multiple of 4.
std::string base64_encode(std::string_view in);
// URL alphabet ('-', '_'), no padding.
std::string base64url_encode(std::string_view in);

}  // namespace dgd::kube
