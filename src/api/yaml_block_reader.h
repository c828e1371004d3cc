// A fast reader for the block-style YAML that Kubernetes manifests are written in (the
// recipes, kustomize output, what users hand to `dgdctl`). yaml-cpp spends ~20 M
// instructions on one 200-line DGD, more CPU than everything else `dgdctl render` does;
// this reader needs a few hundred thousand.
//
// It reads a strict subset and gives up on everything else, so that for every text it
// accepts the result is exactly what the yaml-cpp path of yamlToJsonDocuments gives:
//  - block mappings and sequences (compact `- key: v` items, sequences at their key's
//    indentation), plain keys and single-line quoted keys;
//  - plain, single-quoted and double-quoted scalars on one line, `|` / `|-` literal
//    blocks, one-line flow collections (`[a, "b"]`, `{k: v}`), comments, `---`.
// Anything else (anchors, aliases, tags, folded or multi-line scalars, multi-line flow,
// tabs, CR, BOM, directives, duplicate keys, limits exceeded, any error) → nullopt, and
// the caller falls back to yaml-cpp, which also words the error. Pure, never throws.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace dgd::api::yaml_detail {

// All non-empty documents of `text`, or nullopt when the text is outside the subset.
std::optional<std::vector<nlohmann::json>> readBlockYaml(std::string_view text);

// The general reader (yaml-cpp, yaml.cpp) that yamlToJsonDocuments falls back to.
// Throws YamlError. Tests hold the two readers against each other.
std::vector<nlohmann::json> readWithYamlCpp(std::string_view text);

}  // namespace dgd::api::yaml_detail
