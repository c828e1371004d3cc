// A problem found in a DGD, named by the path of the field that holds it.
//
// Paths use the JSON field names and zero-based list indexes, e.g.
// `spec.components[2].engine.speculative.numSpeculativeTokens`. An error with an
// empty path concerns the document as a whole (e.g. YAML that does not parse).
#pragma once

#include <string>
#include <vector>

namespace dgd::api {

enum class Severity { kError, kWarning };

struct FieldError {
  std::string path;     // field path, e.g. "spec.components[0].replicas"
  std::string message;  // what is wrong and, where it helps, what to do instead
  Severity severity = Severity::kError;
  // Name of the component the path points into ("" otherwise): after a recipe is merged,
  // indexes are the expanded graph's, and the name tells the user which component it is.
  std::string component{};

  // "path: message" (or just the message when the path is empty).
  std::string str() const;
  bool operator==(const FieldError&) const = default;
};

// True when any entry has Severity::kError.
bool has_errors(const std::vector<FieldError>& problems);

}  // namespace dgd::api
