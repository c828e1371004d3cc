// Parsing a cached object without the parts a reader does not need. The informer caches
// hold compact JSON text; a status read needs a Deployment without its pod template, a
// status pass needs a DGD without its spec. Cutting the text first and parsing the rest
// costs a scan instead of building (or lexing through a parser callback) the largest
// subtree.
#pragma once

#include <optional>
#include <string_view>

#include <nlohmann/json.hpp>

namespace dgd::reconcile {

// The JSON object `text` parsed without its member `top` (when `inner` is empty) or
// without the member `inner` of the object `top` (e.g. "spec", "template"). Everything
// else is kept as it is, and parsed (so checked). nullopt when `text` is not a JSON object.
// What is left out is skipped by its brackets and quotes, not validated: meant for text
// the cache validated on the way in (runtime::CachedObject).
std::optional<nlohmann::json> parse_without(std::string_view text, std::string_view top, std::string_view inner = {});

}  // namespace dgd::reconcile
