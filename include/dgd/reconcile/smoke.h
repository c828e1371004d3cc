// The smoke test of a serving graph: one chat completion to the frontend, and the
// diagnosis of what came back (the recipe pages' "Smoke Test", seeds/).
//
// Pure functions (no I/O): what to send (SmokePlan from a DGD), and what an exchange
// means (diagnose). The HTTP call sits behind SmokeTransport (smoke_http.h), so
// `dgdctl smoke` and the operator's Serving check share one diagnosis, and unit tests
// feed it recorded answers.
//
// Diagnoses, in the order they are decided:
//   Unreachable               no HTTP answer from the frontend (refused, DNS, reset), or the
//                             API server's service proxy answered itself (a Kubernetes Status:
//                             503 no endpoints, 404 no Service, 403 no RBAC)
//   Timeout                   no answer within the deadline
//   HTTPError                 the frontend answered non-2xx
//   InvalidResponse           2xx but not a chat completion (no choices[0].message)
//   ReasoningBudgetExhausted  content empty, finish_reason "length": max_tokens went to
//                             reasoning (expected for Flash models with a small budget)
//   EmptyContent              content empty otherwise (HTTP 200, often zero completion
//                             tokens); on a disaggregated graph a KV-transfer failure
//   Serving                   a non-empty answer (it need not be exactly "READY")
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace dgd::api {
struct Dgd;
}

namespace dgd::reconcile {

inline constexpr const char* kSmokePrompt = "Reply with exactly: READY";
inline constexpr int64_t kSmokeMaxTokens = 512;
inline constexpr int64_t kSmokeTimeoutSeconds = 60;
inline constexpr int kFrontendPort = 8000;

enum class SmokeDiagnosis {
  kServing,
  kReasoningBudgetExhausted,
  kEmptyContent,
  kInvalidResponse,
  kHttpError,
  kTimeout,
  kUnreachable,
};

// The condition reason: "Serving", "ReasoningBudgetExhausted", "EmptyContent",
// "InvalidResponse", "HTTPError", "Timeout", "Unreachable".
const char* to_reason(SmokeDiagnosis d);

// `dgdctl smoke` exit code of a diagnosis: 0 Serving, 3 ReasoningBudgetExhausted,
// 4 EmptyContent, 5 InvalidResponse, 6 HTTPError, 7 Timeout, 8 Unreachable
// (1 = setup error and 2 = usage error are dgdctl's own).
int exit_code(SmokeDiagnosis d);

// What to send and where, derived from a DGD.
struct SmokePlan {
  bool enabled = false;
  std::string model;              // served model name ("" when the DGD names none)
  std::string prompt = kSmokePrompt;
  int64_t max_tokens = kSmokeMaxTokens;
  std::chrono::seconds timeout{kSmokeTimeoutSeconds};
  std::string frontend_service;   // <dgd>-<frontend component>, "" when no frontend
  int frontend_port = kFrontendPort;
  bool disaggregated = false;     // the graph has prefill and decode workers
};

// `user` is the DGD as written (it decides the default: on when spec.recipe is set);
// `graph` the expanded graph (model, frontend, topology). Both may be the same object.
SmokePlan smoke_plan(const api::Dgd& user, const api::Dgd& graph);

// The request body: {"model", "messages":[{"role":"user","content":prompt}],
// "temperature":0, "max_tokens"}.
std::string smoke_request_body(const SmokePlan& plan);

// What the HTTP layer observed.
struct SmokeExchange {
  enum class Failure { kNone, kTimeout, kUnreachable };
  Failure failure = Failure::kNone;
  std::string error;              // transport message when failure != kNone
  int status = 0;                 // HTTP status when failure == kNone
  std::string body;
  // The answer came through the API server's service proxy: a Kubernetes Status body is
  // the API server's own answer (Unreachable), not the frontend's.
  bool via_apiserver_proxy = false;
  std::chrono::milliseconds latency{0};
};

struct SmokeResult {
  SmokeDiagnosis diagnosis = SmokeDiagnosis::kUnreachable;
  // One line, stable for the same failure (no latency or counters): the Serving
  // condition's message.
  std::string message;
  // What to do about it ("" when serving).
  std::string hint;
  // Parsed from a chat completion (when there was one).
  std::string answer;
  size_t reasoning_chars = 0;
  std::string finish_reason;
  std::optional<int64_t> prompt_tokens, completion_tokens, reasoning_tokens;
  int http_status = 0;
  std::string body_excerpt;       // first bytes of a non-2xx or unreadable body
  std::chrono::milliseconds latency{0};
};

SmokeResult diagnose(const SmokeExchange& exchange, const SmokePlan& plan);

}  // namespace dgd::reconcile
