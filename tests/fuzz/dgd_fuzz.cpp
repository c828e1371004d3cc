// Fuzz target: a DGD as a user writes it (YAML or JSON text) through the whole pure pipeline
// the operator and `dgdctl` run: parse -> validate -> expand (builtin recipes) -> validate the
// graph -> render -> to_upstream.
//
// Beyond "no crash, no sanitizer report" it checks the contracts the headers promise:
//  - parse() never throws (api/parse.h); neither do validate/expand/render;
//  - to_json is the inverse of parse for what the model holds: from_json(to_json(d)) == d;
//  - expand is idempotent: expand(expand(x)) == expand(x) (recipes/expand.h).
// Both compare the typed models (api::Dgd's operator==, every field), as the headers state
// them: as strict as comparing their toJson documents (toJson writes every set field), and
// it spares three whole-graph serialisations per input (toJson was the largest single cost
// of an execution). A broken contract aborts with the two sides printed as JSON, so
// libFuzzer saves the input.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "dgd/api/parse.h"
#include "dgd/api/validate.h"
#include "dgd/recipes/catalog.h"
#include "dgd/recipes/expand.h"
#include "dgd/render/render.h"

namespace {

[[noreturn]] void broken(const char* contract, const dgd::api::Dgd& a, const dgd::api::Dgd& b) {
  std::fprintf(stderr, "contract broken: %s\n--- first\n%s\n--- second\n%s\n", contract,
               dgd::api::to_json(a).dump(2).c_str(), dgd::api::to_json(b).dump(2).c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dgd;
  // Bodies the API server accepts are at most 3 MiB; beyond a few hundred KiB the fuzzer
  // only spends time copying.
  if (size > 256 * 1024) return 0;
  const std::string_view text(reinterpret_cast<const char*>(data), size);

  api::ParseResult parsed = api::parse(text);
  (void)api::validate(parsed.dgd);
  if (!parsed.document) return 0;

  const nlohmann::json doc = api::to_json(parsed.dgd);
  api::ParseResult again = api::from_json(doc);  // the const& overload (parse() uses the && one)
  if (!(again.dgd == parsed.dgd)) broken("from_json(to_json(d)) == d", parsed.dgd, again.dgd);

  const auto& catalog = recipes::Catalog::builtin();
  recipes::ExpandResult expanded = recipes::expand(catalog, parsed.dgd);
  if (!expanded.ok()) return 0;
  recipes::ExpandResult twice = recipes::expand(catalog, expanded.graph);
  if (!twice.ok() || !(twice.graph == expanded.graph)) broken("expand(expand(x)) == expand(x)", expanded.graph, twice.graph);

  api::ValidateOptions complete;
  complete.mode = api::ValidationMode::kComplete;
  if (api::has_errors(api::validate(expanded.graph, complete))) return 0;

  (void)render::render(expanded.graph);
  (void)render::to_upstream(expanded.graph);
  return 0;
}
