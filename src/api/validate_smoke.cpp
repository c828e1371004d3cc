// spec.smokeTest: ranges of the serving check's request (the CRD schema states the same).
#include "api/checker.h"

namespace dgd::api::detail {

void Checker::check_smoke_test(const SmokeTest& t, const std::string& path) {
  range(path + ".maxTokens", t.max_tokens, 1, 1048576);
  range(path + ".timeoutSeconds", t.timeout_seconds, 1, 3600);
  if (t.prompt && (t.prompt->empty() || t.prompt->size() > 4096)) {
    error(path + ".prompt", "must be 1..4096 characters");
  }
}

}  // namespace dgd::api::detail
