#include "dgd/api/field_error.h"

namespace dgd::api {

std::string FieldError::str() const {
  std::string prefix = severity == Severity::kWarning ? "warning: " : "";
  if (path.empty()) return prefix + message;
  return prefix + path + ": " + message;
}

bool has_errors(const std::vector<FieldError>& problems) {
  for (const auto& p : problems) {
    if (p.severity == Severity::kError) return true;
  }
  return false;
}

}  // namespace dgd::api
