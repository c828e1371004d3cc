// The spec half of a DGD's reconcile: parse -> validate -> expand (recipe catalog) ->
// validate the explicit graph -> the desired replica counts (scaling adapters) -> render
// the desired children. Every error carries the
// field path of what the user wrote. Pure: no clock, logger or client.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "dgd/api/dgd.h"
#include "dgd/recipes/expand.h"
#include "dgd/render/render.h"

namespace dgd::recipes {
class Catalog;
}

namespace dgd::reconcile {

struct SpecResult {
  api::Dgd user;                                 // the DGD as written
  std::optional<recipes::ExpandResult> expanded;  // set when parsing and validation passed
  std::optional<render::RenderResult> rendered;   // set when the graph is valid
  std::vector<std::string> errors;                // "path: message"; empty: rendered is usable
};

struct SpecOptions {
  // The replica counts of the components' scaling adapters (scaling_adapters.h), applied
  // to the explicit graph before it is rendered; null: none.
  const std::map<std::string, int32_t>* adapter_replicas = nullptr;
  // Render options; defaultNamespace is replaced by `ns`.
  render::RenderOptions render;
};

// `dgd` is the whole cached DGD; `ns` the namespace its children go to.
SpecResult run_spec_pipeline(const nlohmann::json& dgd, const std::string& ns, const recipes::Catalog& catalog,
                             const SpecOptions& options = {});

}  // namespace dgd::reconcile
