// `dgdctl plan -f dgd.yaml [--kubeconfig K] [--context C] [-n NS]`: before applying,
// says where every replica of each DGD would land on the live cluster, or exactly what
// is short. Reads nodes and pods (list only; nothing is written), expands, validates
// and renders the DGD as the operator would, then simulates the placement
// (reconcile/placement_plan.h). Exit code: 0 every replica fits, 1 something does not
// fit, 2 usage errors, an invalid DGD or a cluster that cannot be read.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/bounded_text.h"
#include "cli/dgdctl/input.h"
#include "dgd/api/parse.h"
#include "dgd/api/validate.h"
#include "dgd/api/yaml.h"
#include "dgd/kube/config.h"
#include "dgd/kube/rest_client.h"
#include "dgd/recipes/catalog.h"
#include "dgd/recipes/expand.h"
#include "dgd/reconcile/placement_plan.h"
#include "dgd/render/render.h"

namespace dgd::cli {
namespace {

using nlohmann::json;

constexpr int kFits = 0, kNoFit = 1, kError = 2;

struct PlanArgs {
  std::string file;
  std::string kubeconfig;
  std::string context;
  std::string ns;
};

// Every item of a (paged) cluster-wide list.
kube::Result<std::vector<json>> list_all(kube::RestClient& client, const kube::ResourceRef& ref) {
  std::vector<json> out;
  kube::ListOptions lo;
  lo.limit = 500;
  for (;;) {
    auto r = client.list(ref, "", lo);
    if (!r) return r.error();
    const json& page = r.value();
    for (const auto& item : page.value("items", json::array())) out.push_back(item);
    lo.continue_token = page.value(json::json_pointer("/metadata/continue"), std::string());
    if (lo.continue_token.empty()) return out;
  }
}

std::string requests_text(const reconcile::ResourceAmounts& req) {
  std::string out;
  for (const char* r : {"nvidia.com/gpu"}) {
    if (req.count(r) > 0 && req.at(r) > 0) out += reconcile::format_amount(r, req.at(r)) + " " + r;
  }
  for (const auto& [r, v] : req) {
    if (v <= 0 || r == "nvidia.com/gpu" || r == "cpu" || r == "memory" || r == "ephemeral-storage") continue;
    out += (out.empty() ? "" : ", ") + reconcile::format_amount(r, v) + " " + r;
  }
  return out;
}

void print_plan(const std::string& ns, const std::string& name, const reconcile::PlacementPlan& plan,
                std::ostream& out) {
  out << "DynamoGraphDeployment " << ns << "/" << name << ": "
      << (plan.fits() ? "fits" : "does NOT fit") << "\n";
  if (plan.ignored_own_pods > 0) {
    out << "  (" << plan.ignored_own_pods << " live pod(s) of this DGD are counted as free: a new rollout replaces them)\n";
  }
  size_t width = 0;
  for (const auto& r : plan.replicas) width = std::max(width, r.component.size() + 4);
  for (const auto& r : plan.replicas) {
    std::string who = r.component + "[" + std::to_string(r.replica) + "]";
    who.resize(std::max(width, who.size()), ' ');
    out << "  " << who << "  ";
    if (r.node) {
      out << "-> " << *r.node;
      if (!r.clique.empty()) out << "  clique " << r.clique;
      const std::string req = requests_text(r.requests);
      if (!req.empty()) out << "  (" << req << ")";
    } else {
      out << "NO FIT [" << r.problem->reason << "]: " << r.problem->message;
    }
    out << "\n";
  }
  for (const auto& g : plan.group_problems) out << "  NVLink group [" << g.reason << "]: " << g.message << "\n";
}

int run_plan(const PlanArgs& a, std::ostream& out, std::ostream& err) {
  auto input = read_input(a.file, err);
  if (!input) return kError;
  std::vector<json> docs;
  try {
    docs = api::yaml_to_json_documents(input->text);
  } catch (const api::YamlError& e) {
    err << bounded(input->source) << ": " << bounded(e.what()) << "\n";
    return kError;
  }

  kube::KubeconfigOptions ko;
  ko.path = a.kubeconfig;
  ko.context = a.context;
  auto config = kube::load_config(ko);
  if (!config) {
    err << "dgdctl plan: no usable cluster configuration: " << config.error().to_string() << "\n";
    return kError;
  }
  kube::ClientOptions co;
  co.user_agent = "dgdctl/plan";
  co.max_retries = 3;
  kube::RestClient client(*config, co);
  auto nodes = list_all(client, kube::ResourceRef{"", "v1", "nodes", "Node", false});
  if (!nodes) {
    err << "dgdctl plan: listing nodes failed: " << nodes.error().to_string() << "\n";
    return kError;
  }
  auto pods = list_all(client, kube::resources::pods());
  if (!pods) {
    err << "dgdctl plan: listing pods failed: " << pods.error().to_string() << "\n";
    return kError;
  }

  int rc = kFits;
  int count = 0;
  for (size_t i = 0; i < docs.size(); ++i) {
    if (!docs[i].is_object() || docs[i].value("kind", "") != api::kKind) continue;
    ++count;
    auto parsed = api::from_json(docs[i]);
    std::vector<api::FieldError> problems = parsed.errors;
    const std::string name = parsed.dgd.metadata.name.empty() ? "document " + std::to_string(i + 1)
                                                              : parsed.dgd.metadata.name;
    const std::string ns_of_dgd = parsed.dgd.metadata.namespace_;
    std::optional<recipes::CheckResult> checked;
    if (parsed.ok()) {
      checked = recipes::expand_and_validate(recipes::Catalog::builtin(), std::move(parsed.dgd));
      for (auto& e : checked->problems) problems.push_back(e);
    }
    if (!checked || !checked->graph) {
      for (const auto& e : problems) {
        if (e.severity != api::Severity::kWarning) {
          err << bounded(input->source) << ": " << bounded(name, 80) << ": error: " << bounded(e.str(), 2048) << "\n";
        }
      }
      rc = kError;
      continue;
    }
    std::string ns = ns_of_dgd;
    if (ns.empty()) ns = a.ns.empty() ? config->default_namespace : a.ns;
    auto rendered = render::render(*checked->graph, render::RenderOptions{ns});
    if (!rendered.ok()) {
      for (const auto& e : rendered.errors) {
        err << bounded(input->source) << ": " << bounded(name, 80) << ": error: " << bounded(e.str(), 2048) << "\n";
      }
      rc = kError;
      continue;
    }
    auto plan = reconcile::plan_placement(rendered.objects, *nodes, *pods, ns, name);
    print_plan(ns, name, plan, out);
    if (!plan.fits() && rc == kFits) rc = kNoFit;
  }
  if (count == 0) {
    err << bounded(input->source) << ": no " << api::kKind << " document found\n";
    return kError;
  }
  return rc;
}

}  // namespace

// Registers `plan` on dgdctl's command line. Its callback ends the parse with the exit
// code (CLI::RuntimeError carries it silently).
void add_plan_command(CLI::App& app) {
  auto args = std::make_shared<PlanArgs>();
  auto* cmd = app.add_subcommand(
      "plan", "say where every replica would run on the live cluster, or what is short; exit 0 fits, 1 does not");
  cmd->add_option("-f,--filename", args->file, "DGD file (YAML or JSON, several documents allowed), or - for stdin")
      ->required();
  cmd->add_option("--kubeconfig", args->kubeconfig, "kubeconfig file (default: KUBECONFIG, else ~/.kube/config)");
  cmd->add_option("--context", args->context, "kubeconfig context (default: current-context)");
  cmd->add_option("-n,--namespace", args->ns, "namespace of DGDs whose metadata has none (default: the context's)");
  cmd->callback([args] { throw CLI::RuntimeError(run_plan(*args, std::cout, std::cerr)); });
}

}  // namespace dgd::cli
