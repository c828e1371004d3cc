// expand: recipe + user DGD → the explicit graph (DESIGN.md §3). Pure.
//
// The recipe named by spec.recipe is the base and what the user's DGD states overrides
// it, field by field:
//  - metadata is the user's (name, namespace, labels, annotations);
//  - typed blocks (model, placement, engine, router, ...) merge recursively; a value the
//    user sets replaces the recipe's; lists (backends, pcieMap, extraArgs, tolerations)
//    are replaced whole;
//  - components are matched by name: a matched component merges as above, a new one is
//    appended after the recipe's; a component's `type` cannot differ from the recipe's;
//  - env lists (spec.env, components[].env) merge by variable name;
//  - podTemplate merges strategically (containers, env, volumes... by their keys), the
//    way the operator later puts it over its own defaults.
// The result has no spec.recipe and has api::applyDefaults applied, so it is complete and
// rendering it needs nothing else. Expanding a DGD without spec.recipe only applies
// defaults. Expanding is idempotent: expand(expand(x)) == expand(x).
#pragma once

#include <optional>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "dgd/api/dgd.h"
#include "dgd/api/field_error.h"
#include "dgd/recipes/catalog.h"

namespace dgd::recipes {

struct ExpandResult {
  api::Dgd graph;                         // the explicit graph (valid only when ok())
  std::vector<api::FieldError> errors;    // e.g. spec.recipe unknown, a component's type changed
  bool ok() const { return !api::has_errors(errors); }
};

ExpandResult expand(const Catalog& catalog, const api::Dgd& user);
// The same, consuming `user` (no copy of its podTemplates when it names no recipe).
ExpandResult expand(const Catalog& catalog, api::Dgd&& user);

// What `dgdctl validate` and the operator's SpecValid condition report for one DGD, in
// three stages, each run only when the one before found no error (so one mistake is
// reported once, by the first stage that sees it):
//  1. validate the DGD as written (overlay mode when it names a recipe);
//  2. expand it;
//  3. validate the explicit graph (complete mode).
// Every path points into the user's DGD: an index into the merged graph's components is
// rewritten to the index of the same-named component in the user's spec.components; an
// error in a component only the recipe has keeps the graph's index and its message
// names the component and the recipe. Errors and warnings, deduplicated, in order.
struct CheckResult {
  std::vector<api::FieldError> problems;
  std::optional<api::Dgd> graph;  // the explicit graph, set when no problem is an error
  bool ok() const { return !api::has_errors(problems); }
};
CheckResult expand_and_validate(const Catalog& catalog, api::Dgd&& user);

// Problems found in the expanded `graph`, with their component indexes rewritten into
// `user`'s as expandAndValidate does (stage 3).
std::vector<api::FieldError> in_user_paths(std::vector<api::FieldError> graph_problems, const api::Dgd& graph,
                                         const api::Dgd& user);

// The JSON-level overlay used by expand, exposed for tests: `over` merged onto `base`
// (both DGD documents as api::to_json writes them). Errors carry field paths of `over`.
nlohmann::json overlay_dgd(const nlohmann::json& base, const nlohmann::json& over,
                          std::vector<api::FieldError>& errors);

}  // namespace dgd::recipes
