// expandAndValidate: the one check pipeline dgdctl and the operator share (expand.h).
#include <set>
#include <string>
#include <utility>

#include "dgd/api/validate.h"
#include "dgd/recipes/expand.h"

namespace dgd::recipes {
namespace {

constexpr std::string_view kComponents = "spec.components[";

// The index `path` names in spec.components, and where its closing bracket is.
std::optional<std::pair<size_t, size_t>> component_index(const std::string& path) {
  if (path.compare(0, kComponents.size(), kComponents) != 0) return std::nullopt;
  const size_t close = path.find(']', kComponents.size());
  if (close == std::string::npos || close == kComponents.size() || close - kComponents.size() > 6) return std::nullopt;
  size_t index = 0;
  for (size_t i = kComponents.size(); i < close; ++i) {
    if (path[i] < '0' || path[i] > '9') return std::nullopt;
    index = index * 10 + static_cast<size_t>(path[i] - '0');
  }
  return std::make_pair(index, close);
}

}  // namespace

std::vector<api::FieldError> in_user_paths(std::vector<api::FieldError> problems, const api::Dgd& graph,
                                         const api::Dgd& user) {
  for (auto& e : problems) {
    const auto at = component_index(e.path);
    if (!at || at->first >= graph.spec.components.size()) continue;
    const std::string& name = graph.spec.components[at->first].name;
    const auto& mine = user.spec.components;
    size_t u = 0;
    while (u < mine.size() && mine[u].name != name) ++u;
    if (u < mine.size()) {
      e.path = std::string(kComponents) + std::to_string(u) + e.path.substr(at->second);
    } else {
      e.message += " (in component \"" + name + "\" of recipe " + user.spec.recipe.value_or("") + ")";
    }
  }
  return problems;
}

CheckResult expand_and_validate(const Catalog& catalog, api::Dgd&& user) {
  CheckResult r;
  std::set<std::string> seen;
  auto add = [&](std::vector<api::FieldError>&& found) {
    for (auto& e : found) {
      if (seen.insert(e.str()).second) r.problems.push_back(std::move(e));
    }
  };
  add(api::validate(user));
  if (!r.ok()) return r;
  if (!user.spec.recipe) {
    // Nothing to merge: the graph is the user's DGD with defaults, checked as complete
    // (validate in auto mode already did so for a DGD without a recipe).
    auto expanded = expand(catalog, std::move(user));
    add(std::move(expanded.errors));
    if (!r.ok()) return r;
    add(api::validate(expanded.graph, api::ValidateOptions{api::ValidationMode::kComplete}));
    if (r.ok()) r.graph = std::move(expanded.graph);
    return r;
  }
  auto expanded = expand(catalog, static_cast<const api::Dgd&>(user));
  add(std::move(expanded.errors));
  if (!r.ok()) return r;
  add(in_user_paths(api::validate(expanded.graph, api::ValidateOptions{api::ValidationMode::kComplete}),
                  expanded.graph, user));
  if (r.ok()) r.graph = std::move(expanded.graph);
  return r;
}

}  // namespace dgd::recipes
