#include "dgd/reconcile/spec_pipeline.h"

#include <nlohmann/json.hpp>

#include "dgd/api/parse.h"
#include "dgd/api/validate.h"
#include "dgd/recipes/catalog.h"
#include "dgd/recipes/expand.h"
#include "dgd/reconcile/scaling_adapters.h"

namespace dgd::reconcile {

namespace {

void append_errors(const std::vector<api::FieldError>& from, std::vector<std::string>& to) {
  for (const auto& e : from) {
    if (e.severity == api::Severity::kError) to.push_back(e.str());
  }
}

}  // namespace

SpecResult run_spec_pipeline(const nlohmann::json& dgd, const std::string& ns, const recipes::Catalog& catalog,
                             const SpecOptions& options) {
  SpecResult out;
  api::ParseResult parsed = api::from_json(dgd);
  if (!parsed.document) out.errors.push_back("the object is not a DynamoGraphDeployment document");
  append_errors(parsed.errors, out.errors);
  out.user = std::move(parsed.dgd);
  if (!out.errors.empty()) return out;
  // The check stages dgdctl validate runs (expand.h), so SpecValid and dgdctl name the
  // same problems at the same paths in the user's DGD.
  recipes::CheckResult checked = recipes::expand_and_validate(catalog, api::Dgd(out.user));
  append_errors(checked.problems, out.errors);
  if (!out.errors.empty() || !checked.graph) return out;
  out.expanded = recipes::ExpandResult{std::move(*checked.graph), {}};
  // Each component's desired replica count, before anything is rendered from the graph.
  apply_desired_replicas(out.expanded->graph, options.adapter_replicas ? *options.adapter_replicas : AdapterReplicas{});
  render::RenderOptions ro = options.render;
  ro.default_namespace = ns;
  out.rendered = render::render(out.expanded->graph, ro);
  append_errors(out.rendered->errors, out.errors);
  return out;
}

}  // namespace dgd::reconcile
