// Base64 (RFC 4648, standard alphabet) for kubeconfig *-data fields. Pure.
#pragma once
#include <optional>
#include <string>
#include <string_view>

namespace dgd::kube {

// Decodes; whitespace is ignored, padding optional. nullopt on any other bad character.
std::optional<std::string> base64_decode(std::string_view in);
std::string base64_encode(std::string_view in);

}  // namespace dgd::kube
