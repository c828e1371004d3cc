#include "dgd/reconcile/spec_pipeline.h"

#include <algorithm>
#include <cstdlib>

#include <nlohmann/json.hpp>

#include "dgd/api/parse.h"
#include "dgd/api/validate.h"
#include "dgd/recipes/catalog.h"

namespace dgd::reconcile {

namespace {

void append_errors(const std::vector<api::FieldError>& from, std::vector<std::string>& to) {
  for (const auto& e : from) {
    if (e.severity == api::Severity::kError) to.push_back(e.str());
  }
}

// Errors found in the expanded graph name its component indexes; rewrite them to the
// index of the same component in the user's DGD so the path points at what the user
// wrote (a component only the recipe has keeps the graph's index and says so).
std::vector<std::string> graph_errors_as_user_paths(const std::vector<api::FieldError>& errors,
                                                    const api::Dgd& graph, const api::Dgd& user) {
  std::vector<std::string> out;
  const std::string prefix = "spec.components[";
  for (const auto& e : errors) {
    if (e.severity != api::Severity::kError) continue;
    api::FieldError mapped = e;
    const auto close = e.path.rfind(prefix, 0) == 0 ? e.path.find(']', prefix.size()) : std::string::npos;
    if (close != std::string::npos) {
      const size_t index = std::strtoul(e.path.substr(prefix.size(), close - prefix.size()).c_str(), nullptr, 10);
      if (index < graph.spec.components.size()) {
        const std::string& name = graph.spec.components[index].name;
        const auto& uc = user.spec.components;
        auto it = std::find_if(uc.begin(), uc.end(), [&](const api::Component& c) { return c.name == name; });
        if (it != uc.end()) {
          mapped.path = prefix + std::to_string(it - uc.begin()) + e.path.substr(close);
        } else {
          mapped.message += " (in component \"" + name + "\" of recipe " + user.spec.recipe.value_or("") + ")";
        }
      }
    }
    out.push_back(mapped.str());
  }
  return out;
}

}  // namespace

SpecResult run_spec_pipeline(const nlohmann::json& dgd, const std::string& ns, const recipes::Catalog& catalog) {
  SpecResult out;
  api::ParseResult parsed = api::fromJson(dgd);
  if (!parsed.document) out.errors.push_back("the object is not a DynamoGraphDeployment document");
  append_errors(parsed.errors, out.errors);
  out.user = std::move(parsed.dgd);
  if (out.errors.empty()) append_errors(api::validate(out.user), out.errors);
  if (!out.errors.empty()) return out;
  out.expanded = recipes::expand(catalog, out.user);
  append_errors(out.expanded->errors, out.errors);
  if (!out.errors.empty()) return out;
  api::ValidateOptions complete;
  complete.mode = api::ValidationMode::kComplete;
  out.errors = graph_errors_as_user_paths(api::validate(out.expanded->graph, complete), out.expanded->graph, out.user);
  if (!out.errors.empty()) return out;
  render::RenderOptions ro;
  ro.defaultNamespace = ns;
  out.rendered = render::render(out.expanded->graph, ro);
  append_errors(out.rendered->errors, out.errors);
  return out;
}

}  // namespace dgd::reconcile
