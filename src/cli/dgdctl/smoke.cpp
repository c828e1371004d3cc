// dgdctl smoke: sends the recipe page's smoke request to a graph's frontend and diagnoses
// the answer (dgd/reconcile/smoke.h holds the logic the operator's Serving check shares).
//
// Exit codes: 0 a non-empty answer; 1 setup error (kubeconfig, DGD not found or invalid,
// no served model name, bad --url); 2 usage; 3 ReasoningBudgetExhausted; 4 EmptyContent;
// 5 InvalidResponse; 6 HTTPError; 7 Timeout; 8 Unreachable.
#include "cli/dgdctl/smoke.h"

#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "dgd/api/parse.h"
#include "dgd/build_version.h"
#include "dgd/kube/config.h"
#include "dgd/kube/rest_client.h"
#include "dgd/recipes/catalog.h"
#include "dgd/recipes/expand.h"
#include "dgd/reconcile/child_kinds.h"
#include "dgd/reconcile/smoke.h"
#include "dgd/reconcile/smoke_http.h"

namespace dgd::cli {
namespace {

struct SmokeOptions {
  std::string dgd;
  std::string ns;
  std::string url;
  std::string via = "apiserver-proxy";
  std::string kubeconfig;
  std::string context;
  std::string model;
  std::optional<int64_t> timeout_seconds;
  std::optional<int64_t> max_tokens;
  std::string output;  // "" (text) | json
};

int fail_setup(const std::string& what) {
  std::cerr << "dgdctl smoke: " << what << "\n";
  return 1;
}

void print_text(const reconcile::SmokeResult& r, const reconcile::SmokePlan& plan, const std::string& where) {
  std::cout << "POST " << where << "\n";
  std::cout << "model:      " << plan.model << " (max_tokens " << plan.max_tokens << ")\n";
  if (r.http_status != 0) std::cout << "status:     HTTP " << r.http_status << "\n";
  std::cout << "answer:     " << (r.answer.empty() ? "(empty)" : r.answer) << "\n";
  std::cout << "reasoning:  " << r.reasoning_chars << " characters\n";
  auto n = [](const std::optional<int64_t>& v) { return v ? std::to_string(*v) : std::string("-"); };
  std::cout << "tokens:     prompt " << n(r.prompt_tokens) << ", completion " << n(r.completion_tokens);
  if (r.reasoning_tokens) std::cout << " (reasoning " << *r.reasoning_tokens << ")";
  std::cout << "\n";
  if (!r.finish_reason.empty()) std::cout << "finish:     " << r.finish_reason << "\n";
  std::cout << "latency:    " << r.latency.count() << " ms\n";
  if (!r.body_excerpt.empty()) std::cout << "body:       " << r.body_excerpt << "\n";
  std::cout << "result:     " << reconcile::to_reason(r.diagnosis) << ": " << r.message << "\n";
  if (!r.hint.empty()) std::cout << "hint:       " << r.hint << "\n";
}

void print_json(const reconcile::SmokeResult& r, const reconcile::SmokePlan& plan, const std::string& where) {
  nlohmann::json j = {{"url", where},
                      {"model", plan.model},
                      {"maxTokens", plan.max_tokens},
                      {"disaggregated", plan.disaggregated},
                      {"diagnosis", reconcile::to_reason(r.diagnosis)},
                      {"exitCode", reconcile::exit_code(r.diagnosis)},
                      {"message", r.message},
                      {"hint", r.hint},
                      {"answer", r.answer},
                      {"reasoningChars", r.reasoning_chars},
                      {"finishReason", r.finish_reason},
                      {"httpStatus", r.http_status},
                      {"latencyMs", r.latency.count()}};
  j["promptTokens"] = r.prompt_tokens ? nlohmann::json(*r.prompt_tokens) : nlohmann::json();
  j["completionTokens"] = r.completion_tokens ? nlohmann::json(*r.completion_tokens) : nlohmann::json();
  if (!r.body_excerpt.empty()) j["body"] = r.body_excerpt;
  std::cout << j.dump(2) << "\n";
}

int run_smoke(const SmokeOptions& o) {
  reconcile::SmokePlan plan;
  std::shared_ptr<kube::RestClient> client;
  std::string ns = o.ns;
  const bool need_cluster = o.url.empty() || o.model.empty() || o.via == "service-dns";
  if (need_cluster) {
    kube::KubeconfigOptions ko;
    ko.path = o.kubeconfig;
    ko.context = o.context;
    auto config = kube::load_config(ko);
    if (!config) return fail_setup(config.error().to_string());
    if (ns.empty()) ns = config->default_namespace;
    kube::ClientOptions co;
    co.user_agent = std::string("dgdctl/") + kVersion + " (smoke)";
    co.max_retries = 3;
    client = std::make_shared<kube::RestClient>(*config, co);
  }
  if (o.dgd.empty() && !(o.url.size() && o.model.size())) {
    return fail_setup("name the DGD (or give both --url and --model)");
  }
  if (!o.dgd.empty() && client) {
    auto obj = client->get(reconcile::dgd_resource(), ns, o.dgd);
    if (!obj) return fail_setup("cannot read DynamoGraphDeployment " + ns + "/" + o.dgd + ": " + obj.error().to_string());
    api::ParseResult parsed = api::from_json(*obj);
    if (!parsed.document) return fail_setup(ns + "/" + o.dgd + " is not a DynamoGraphDeployment");
    api::Dgd graph = parsed.dgd;
    if (parsed.dgd.spec.recipe) {
      auto expanded = recipes::expand(recipes::Catalog::builtin(), parsed.dgd);
      if (!expanded.errors.empty()) return fail_setup(ns + "/" + o.dgd + ": " + expanded.errors.front().str());
      graph = expanded.graph;
    }
    if (graph.metadata.name.empty()) graph.metadata.name = o.dgd;
    plan = reconcile::smoke_plan(parsed.dgd, graph);
  } else {
    plan.frontend_service = o.dgd.empty() ? "" : o.dgd + "-frontend";
  }
  if (!o.model.empty()) plan.model = o.model;
  if (o.max_tokens) plan.max_tokens = *o.max_tokens;
  if (o.timeout_seconds) plan.timeout = std::chrono::seconds(*o.timeout_seconds);
  if (plan.model.empty()) {
    return fail_setup("no served model name in " + ns + "/" + o.dgd +
                      " (spec.model.servedName, spec.model.id or --served-model-name in the worker args): pass --model");
  }

  std::unique_ptr<reconcile::SmokeTransport> transport;
  if (!o.url.empty()) {
    transport = reconcile::make_url_smoke_transport(o.url);
    if (!transport) return fail_setup("--url must start with http:// or https://, got " + o.url);
  } else {
    if (plan.frontend_service.empty()) return fail_setup(ns + "/" + o.dgd + " has no frontend component");
    if (o.via == "service-dns") {
      transport = reconcile::make_url_smoke_transport(
          reconcile::service_dns_url(ns, plan.frontend_service, plan.frontend_port));
    } else {
      transport = reconcile::make_apiserver_proxy_smoke_transport(client, ns, plan.frontend_service, plan.frontend_port);
    }
  }
  const auto timeout = std::chrono::duration_cast<std::chrono::milliseconds>(plan.timeout);
  reconcile::SmokeExchange ex = transport->post(reconcile::smoke_request_body(plan), timeout, kube::CancelToken());
  if (ex.failure == reconcile::SmokeExchange::Failure::kNone && ex.status == 0) {
    ex.failure = reconcile::SmokeExchange::Failure::kUnreachable;
  }
  reconcile::SmokeResult r = reconcile::diagnose(ex, plan);
  if (o.output == "json") {
    print_json(r, plan, transport->where());
  } else {
    print_text(r, plan, transport->where());
  }
  if (r.diagnosis != reconcile::SmokeDiagnosis::kServing) {
    std::cerr << "dgdctl smoke: " << reconcile::to_reason(r.diagnosis) << ": " << r.message << "\n";
  }
  return reconcile::exit_code(r.diagnosis);
}

}  // namespace

void add_smoke_command(CLI::App& app) {
  auto o = std::make_shared<SmokeOptions>();
  auto* cmd = app.add_subcommand(
      "smoke",
      "send the recipe page's smoke request (\"Reply with exactly: READY\", temperature 0) to a DGD's frontend and "
      "diagnose the answer.\nExit codes: 0 answer; 1 setup error; 2 usage; 3 ReasoningBudgetExhausted; "
      "4 EmptyContent; 5 InvalidResponse; 6 HTTPError; 7 Timeout; 8 Unreachable");
  cmd->add_option("DGD", o->dgd, "name of the DynamoGraphDeployment (its served model name and frontend Service)");
  cmd->add_option("-n,--namespace", o->ns, "namespace of the DGD (default: the kubeconfig context's)");
  cmd->add_option("--url", o->url,
                  "frontend base URL, e.g. http://localhost:8000 after `kubectl port-forward svc/DGD-frontend "
                  "8000:8000`; without it the request goes through the API server's service proxy");
  cmd->add_option("--via", o->via,
                  "without --url: apiserver-proxy (from anywhere with a kubeconfig; needs services/proxy create) or "
                  "service-dns (http://DGD-frontend.NS.svc:8000, from inside the cluster)")
      ->check(CLI::IsMember({"apiserver-proxy", "service-dns"}))
      ->capture_default_str();
  cmd->add_option("--kubeconfig", o->kubeconfig, "kubeconfig file (default: KUBECONFIG, in-cluster, ~/.kube/config)");
  cmd->add_option("--context", o->context, "kubeconfig context");
  cmd->add_option("--model", o->model, "served model name (default: from the DGD)");
  cmd->add_option("--timeout", o->timeout_seconds, "seconds to wait for the answer (default: spec.smokeTest or 60)")
      ->check(CLI::Range(1, 3600));
  cmd->add_option("--max-tokens", o->max_tokens, "max_tokens of the request (default: spec.smokeTest or 512)")
      ->check(CLI::Range(1, 1048576));
  cmd->add_option("-o,--output", o->output, "json: one JSON object instead of the text report")
      ->check(CLI::IsMember({"json"}));
  cmd->callback([o] { throw CLI::RuntimeError(run_smoke(*o)); });
}

}  // namespace dgd::cli
