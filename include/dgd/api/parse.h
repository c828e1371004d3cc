// Text / JSON ⇄ the typed DGD model (dgd.h). Pure: no I/O.
//
// parse() accepts YAML or JSON text (JSON is YAML) holding ONE document and never throws:
// every problem is returned with its field path, and parsing continues past a bad field
// (the field is left unset), so one run reports all shape errors at once:
//  - wrong type               → "spec.components[0].replicas: must be an integer"
//  - unknown field inside a typed block (model, placement, engine, router, ...)
//                             → "spec.components[1].engine.tensorParalelSize: unknown field"
//  - unknown upstream field outside the typed blocks → kept in `extra`, no error.
// Semantic checks (ranges, names, cross-field rules) are validate.h's job.
//
// to_json() is the exact inverse for what the model holds: only set fields are written,
// keys are sorted (nlohmann::json), so output is deterministic; parse(to_json(d)) == d.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "dgd/api/dgd.h"
#include "dgd/api/field_error.h"

namespace dgd::api {

struct ParseResult {
  Dgd dgd;                         // best-effort model (bad fields left unset)
  std::vector<FieldError> errors;  // all shape problems, in document order
  bool document = false;           // the text held one YAML/JSON object (even with bad fields)
  bool ok() const { return !has_errors(errors); }
};

// YAML or JSON text with exactly one document.
ParseResult parse(std::string_view text);

// An already-decoded document (e.g. from the API server). The rvalue form moves raw
// JSON members (podTemplate, status, passthrough fields) out of `doc` instead of copying.
ParseResult from_json(const nlohmann::json& doc);
ParseResult from_json(nlohmann::json&& doc);

// The model back to a JSON document (deterministic).
nlohmann::json to_json(const Dgd& dgd);

// Block-level conversions, for code that overlays one block on another (recipes) or
// prints one block. `path` prefixes error paths (e.g. "spec.components[1]").
Component component_from_json(const nlohmann::json& j, const std::string& path,
                            std::vector<FieldError>& errors);
nlohmann::json to_json(const Component& c);
nlohmann::json to_json(const Engine& e);
nlohmann::json to_json(const Router& r);
nlohmann::json to_json(const Model& m);
nlohmann::json to_json(const Placement& p);
nlohmann::json to_json(const EnvVar& e);

// Every JSON field path the typed model can hold, with list items written "[]" and
// map / raw-JSON values written "{}" (e.g. "spec.components[].engine.kvTransfer.backends[]",
// "spec.components[].podTemplate{}"). Used to check that the CRD schema and docs/api.md
// cover the model.
std::vector<std::string> model_field_paths();

}  // namespace dgd::api
