// What a plain YAML scalar means, shared by the reader (yaml-cpp's nodes to JSON) and the
// emitter of yaml.cpp, so the two agree by construction (contract: include/dgd/api/yaml.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace dgd::api::yaml_detail {

// Limits against hostile input: alias expansion ("billion laughs") and deep nesting.
inline constexpr size_t kMaxNodes = 250'000;  // per document; a recipe DGD is ~300 nodes
inline constexpr int kMaxDepth = 256;

// Plain scalar → JSON value (null, YAML 1.1 bool, integer, float or the string itself),
// as sigs.k8s.io/yaml resolves it.
nlohmann::json resolve_plain(std::string s);

// resolve_plain(s).is_null(), without building the value.
bool plain_is_null(std::string_view s);

// resolve_plain(s).is_string(), without building the value (the emitter asks this of
// every string it writes).
bool plain_is_string(std::string_view s);

// Strict UTF-8 (JSON strings must be valid UTF-8, or serializing them later throws).
bool valid_utf8(std::string_view s);

}  // namespace dgd::api::yaml_detail
