#include "dgd/reconcile/smoke.h"

#include <nlohmann/json.hpp>

#include "dgd/api/dgd.h"
#include "dgd/api/parse.h"
#include "dgd/api/validate.h"

namespace dgd::reconcile {

using nlohmann::json;

const char* to_reason(SmokeDiagnosis d) {
  switch (d) {
    case SmokeDiagnosis::kServing: return "Serving";
    case SmokeDiagnosis::kReasoningBudgetExhausted: return "ReasoningBudgetExhausted";
    case SmokeDiagnosis::kEmptyContent: return "EmptyContent";
    case SmokeDiagnosis::kInvalidResponse: return "InvalidResponse";
    case SmokeDiagnosis::kHttpError: return "HTTPError";
    case SmokeDiagnosis::kTimeout: return "Timeout";
    case SmokeDiagnosis::kUnreachable: return "Unreachable";
  }
  return "Unknown";
}

int exit_code(SmokeDiagnosis d) {
  switch (d) {
    case SmokeDiagnosis::kServing: return 0;
    case SmokeDiagnosis::kReasoningBudgetExhausted: return 3;
    case SmokeDiagnosis::kEmptyContent: return 4;
    case SmokeDiagnosis::kInvalidResponse: return 5;
    case SmokeDiagnosis::kHttpError: return 6;
    case SmokeDiagnosis::kTimeout: return 7;
    case SmokeDiagnosis::kUnreachable: return 8;
  }
  return 1;
}

namespace {

// The value after `flag` ("--flag value" or "--flag=value") in a container's command/args.
std::optional<std::string> flag_value(const json& list, const std::string& flag) {
  if (!list.is_array()) return std::nullopt;
  for (size_t i = 0; i < list.size(); ++i) {
    if (!list[i].is_string()) continue;
    const std::string a = list[i].get<std::string>();
    if (a == flag && i + 1 < list.size() && list[i + 1].is_string()) return list[i + 1].get<std::string>();
    if (a.rfind(flag + "=", 0) == 0) return a.substr(flag.size() + 1);
    // A shell line ("python -m dynamo.vllm --served-model-name x ..."): split on spaces.
    if (a.find(' ') != std::string::npos) {
      json words = json::array();
      size_t p = 0;
      while (p < a.size()) {
        size_t q = a.find(' ', p);
        if (q == std::string::npos) q = a.size();
        if (q > p) words.push_back(a.substr(p, q - p));
        p = q + 1;
      }
      if (words.size() > 1) {
        if (auto v = flag_value(words, flag)) return v;
      }
    }
  }
  return std::nullopt;
}

// The served model name stated in an explicit-args worker (upstream style).
std::optional<std::string> model_from_args(const api::Dgd& graph) {
  for (const char* flag : {"--served-model-name", "--model", "--model-path"}) {
    for (const auto& c : graph.spec.components) {
      if (c.type && *c.type == api::ComponentType::kFrontend) continue;
      const json& pt = c.pod_template;
      if (!pt.is_object()) continue;
      const json containers = pt.value("/spec/containers"_json_pointer, json::array());
      for (const auto& ct : containers) {
        if (!ct.is_object()) continue;
        for (const char* field : {"args", "command"}) {
          if (auto v = flag_value(ct.value(field, json::array()), flag)) return v;
        }
      }
    }
  }
  return std::nullopt;
}

std::string excerpt(const std::string& body, size_t max = 200) {
  std::string out;
  for (char ch : body.substr(0, max)) out += (ch == '\n' || ch == '\r' || ch == '\t') ? ' ' : ch;
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (body.size() > max) out += "...";
  return out;
}

std::optional<int64_t> int_at(const json& obj, const char* key) {
  if (!obj.is_object()) return std::nullopt;
  auto it = obj.find(key);
  if (it == obj.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

std::string string_at(const json& obj, const char* key) {
  if (!obj.is_object()) return "";
  auto it = obj.find(key);
  return it != obj.end() && it->is_string() ? it->get<std::string>() : "";
}

bool blank(const std::string& s) { return s.find_first_not_of(" \t\r\n") == std::string::npos; }

}  // namespace

SmokePlan smoke_plan(const api::Dgd& user, const api::Dgd& graph) {
  SmokePlan plan;
  // The graph holds the recipe's block merged with the user's, field by field.
  const auto& st = graph.spec.smoke_test ? graph.spec.smoke_test : user.spec.smoke_test;
  plan.enabled = st && st->enabled ? *st->enabled : user.spec.recipe.has_value();
  if (st) {
    if (st->max_tokens) plan.max_tokens = *st->max_tokens;
    if (st->timeout_seconds) plan.timeout = std::chrono::seconds(*st->timeout_seconds);
    if (st->prompt) plan.prompt = *st->prompt;
  }
  if (graph.spec.model && graph.spec.model->served_name) {
    plan.model = *graph.spec.model->served_name;
  } else if (graph.spec.model && graph.spec.model->id) {
    plan.model = *graph.spec.model->id;
  } else if (auto m = model_from_args(graph)) {
    plan.model = *m;
  }
  bool prefill = false, decode = false;
  for (const auto& c : graph.spec.components) {
    if (!c.type) continue;
    if (*c.type == api::ComponentType::kPrefill) prefill = true;
    if (*c.type == api::ComponentType::kDecode) decode = true;
    if (*c.type == api::ComponentType::kFrontend && plan.frontend_service.empty()) {
      plan.frontend_service = api::child_name(graph.metadata.name.empty() ? user.metadata.name : graph.metadata.name,
                                             c.name);
      if (c.router && c.router->http_port) plan.frontend_port = static_cast<int>(*c.router->http_port);
    }
  }
  plan.disaggregated = prefill || decode;
  return plan;
}

std::string smoke_request_body(const SmokePlan& plan) {
  json body = {{"model", plan.model},
               {"messages", json::array({{{"role", "user"}, {"content", plan.prompt}}})},
               {"temperature", 0},
               {"max_tokens", plan.max_tokens}};
  return body.dump();
}

SmokeResult diagnose(const SmokeExchange& ex, const SmokePlan& plan) {
  SmokeResult r;
  r.latency = ex.latency;
  r.http_status = ex.status;
  const std::string deadline = std::to_string(plan.timeout.count()) + " s";
  if (ex.failure == SmokeExchange::Failure::kTimeout) {
    r.diagnosis = SmokeDiagnosis::kTimeout;
    r.message = "the frontend gave no answer within " + deadline;
    r.hint = "the engine may still be warming up (CUDA graphs, first request) or stuck; check the frontend "
             "and worker logs, or raise spec.smokeTest.timeoutSeconds / --timeout";
    return r;
  }
  if (ex.failure == SmokeExchange::Failure::kUnreachable) {
    r.diagnosis = SmokeDiagnosis::kUnreachable;
    r.message = "cannot reach the frontend: " + ex.error;
    r.hint = "check that the frontend Service has ready endpoints (kubectl get endpoints) and that this "
             "client can reach it (port-forward, network policy, DNS)";
    return r;
  }
  if (ex.status < 200 || ex.status >= 300) {
    r.body_excerpt = excerpt(ex.body);
    json status = json::parse(ex.body, nullptr, false);
    const bool k8s_status = status.is_object() && string_at(status, "kind") == "Status";
    if (ex.via_apiserver_proxy && k8s_status) {
      // The API server itself answered (a frontend never sends a Kubernetes Status): it
      // could not or would not proxy to the Service.
      r.diagnosis = SmokeDiagnosis::kUnreachable;
      r.message = "the API server did not reach the frontend Service (HTTP " + std::to_string(ex.status) + " " +
                  string_at(status, "reason") + "): " + string_at(status, "message");
      if (ex.status == 403) {
        r.hint = "the credentials lack RBAC for services/proxy (create); grant it, or use --url with kubectl "
                 "port-forward";
      } else if (ex.status == 404) {
        r.hint = "the frontend Service does not exist: check the DGD's children (kubectl get svc)";
      } else {
        r.hint = "check that the frontend pods are Ready and the Service has endpoints (kubectl get endpoints)";
      }
      return r;
    }
    r.diagnosis = SmokeDiagnosis::kHttpError;
    std::string detail;
    if (k8s_status) {
      detail = string_at(status, "message");
    } else if (status.is_object() && status.contains("error")) {
      const json& e = status["error"];
      detail = e.is_string() ? e.get<std::string>() : string_at(e, "message");
    } else if (status.is_object()) {
      detail = string_at(status, "message");
    }
    if (detail.empty()) detail = r.body_excerpt;
    r.message = "the frontend answered HTTP " + std::to_string(ex.status) + (detail.empty() ? "" : ": " + excerpt(detail, 160));
    if (ex.status == 404) {
      r.hint = "the model name may be wrong: the frontend serves the --served-model-name of the workers (" +
               (plan.model.empty() ? std::string("none found") : "sent \"" + plan.model + "\"") +
               "); list them with GET /v1/models";
    } else if (ex.status == 503 || ex.status == 502) {
      r.hint = "the frontend has no ready worker for the model yet (workers registering or crashed): check "
               "the worker pods and their logs";
    } else if (ex.status == 400 || ex.status == 422) {
      r.hint = "the frontend rejected the request: check the model name and the max_tokens limit";
    } else {
      r.hint = "check the frontend and worker logs for the error";
    }
    return r;
  }
  json resp = json::parse(ex.body, nullptr, false);
  const json* message = nullptr;
  const json* choice = nullptr;
  if (resp.is_object()) {
    auto ch = resp.find("choices");
    if (ch != resp.end() && ch->is_array() && !ch->empty() && (*ch)[0].is_object()) {
      choice = &(*ch)[0];
      auto m = choice->find("message");
      if (m != choice->end() && m->is_object()) message = &*m;
    }
  }
  if (message == nullptr) {
    r.diagnosis = SmokeDiagnosis::kInvalidResponse;
    r.body_excerpt = excerpt(ex.body);
    r.message = "HTTP " + std::to_string(ex.status) + " but not a chat completion (no choices[0].message)";
    r.hint = "something other than a Dynamo frontend answered on this address; check the URL / Service port";
    return r;
  }
  r.answer = string_at(*message, "content");
  r.reasoning_chars = string_at(*message, "reasoning_content").size() + string_at(*message, "reasoning").size();
  r.finish_reason = string_at(*choice, "finish_reason");
  if (auto u = resp.find("usage"); u != resp.end() && u->is_object()) {
    r.prompt_tokens = int_at(*u, "prompt_tokens");
    r.completion_tokens = int_at(*u, "completion_tokens");
    if (auto d = u->find("completion_tokens_details"); d != u->end()) r.reasoning_tokens = int_at(*d, "reasoning_tokens");
  }
  if (!blank(r.answer)) {
    r.diagnosis = SmokeDiagnosis::kServing;
    r.message = "the frontend answered the smoke request (model " + plan.model + ")";
    return r;
  }
  const std::string budget = std::to_string(plan.max_tokens);
  if (r.finish_reason == "length") {
    r.diagnosis = SmokeDiagnosis::kReasoningBudgetExhausted;
    r.message = "content is empty and finish_reason is length: max_tokens " + budget + " was used up" +
                (r.reasoning_chars > 0 ? " by reasoning" : "") + " before any answer";
    r.hint = "expected for reasoning (Flash) models with a small budget: raise max_tokens "
             "(spec.smokeTest.maxTokens / --max-tokens); the graph itself works";
    return r;
  }
  r.diagnosis = SmokeDiagnosis::kEmptyContent;
  const bool zero = r.completion_tokens && *r.completion_tokens == 0;
  r.message = "HTTP " + std::to_string(ex.status) + " with empty content" + (zero ? " and zero completion tokens" : "") +
              (r.finish_reason.empty() ? "" : " (finish_reason " + r.finish_reason + ")");
  if (plan.disaggregated) {
    r.message += " on a disaggregated graph: KV transfer between prefill and decode failed (suspected)";
    r.hint = "check placement (GB200: both workers in one NVLink clique, placement.nvlink.sameClique; a split logs "
             "cuMemImportFromShareableHandle failed: 400) and the KV transport (RDMA devices, no static "
             "UCX_NET_DEVICES, Mooncake MC_FORCE_TCP / NIXL UCX settings) and the prefill/decode worker logs";
  } else {
    r.hint = "the engine produced no tokens: check the worker logs (parsers, chat template, engine errors)";
  }
  return r;
}

}  // namespace dgd::reconcile
