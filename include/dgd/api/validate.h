// Validation of a DGD: every problem, each with its field path, in one pass.
//
// Checks names (DNS-1123 / DNS-1035, the `<dgd>-<component>` 63-character budget, unique
// component names case-insensitively), ranges, enums, quantities, and the cross-field
// rules the CRD schema cannot express (Blackwell-only kernels on H200, EPLB without
// expert parallelism, disaggregation without a KV-transfer connector, speculative
// settings that differ between prefill and decode, a static UCX_NET_DEVICES with SR-IOV
// NIC selection, engine + Dynamo tool-call parsers together, SGLang on a GPU without an
// SGLang recipe, explicit `main` args together with an engine block, ...). docs/api.md
// lists every rule.
//
// Independent of the recipe catalog. Works on a raw user DGD and on the expanded graph:
//  - kComplete: the DGD is the whole graph (expanded, or written without a recipe):
//    required fields must be present and rules about missing things apply
//    (prefill without decode, disaggregation without a connector, ...).
//  - kOverlay: a user DGD that names spec.recipe; components and blocks may be partial
//    (the recipe supplies the rest), so only what is stated is checked.
//  - kAuto (default): kOverlay when spec.recipe is set, else kComplete.
// A valid DGD yields an empty list: no errors and no warnings.
#pragma once

#include <vector>

#include "dgd/api/dgd.h"
#include "dgd/api/field_error.h"

namespace dgd::api {

enum class ValidationMode { kAuto, kOverlay, kComplete };

struct ValidateOptions {
  ValidationMode mode = ValidationMode::kAuto;
};

std::vector<FieldError> validate(const Dgd& dgd, const ValidateOptions& options);
inline std::vector<FieldError> validate(const Dgd& dgd) { return validate(dgd, ValidateOptions{}); }

// parse() then, when the text held a document, validate(): what `dgdctl validate` reports
// for one file. Text that is not a YAML/JSON object yields only the parse error.
std::vector<FieldError> parse_and_validate(std::string_view text, const ValidateOptions& options = {});

// The child object name of a component: "<dgd>-<lowercase component name>" with dots
// replaced by dashes (upstream's rule).
std::string child_name(std::string_view dgd_name, std::string_view component_name);

}  // namespace dgd::api
