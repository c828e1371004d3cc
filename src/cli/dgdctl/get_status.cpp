// `dgdctl get` and `dgdctl status` (`kubectl dgd get`, `kubectl dgd status`): what the
// operator reports about live DGDs.
//
// `get [NAME...] [kubectl get flags]` is `kubectl get dynamographdeployments.nvidia.com`
// with the same arguments: the API server prints the CRD's columns (READY, REASON,
// SERVING, BACKEND, AGE; `-o wide` adds RECIPE and STATUS), so the plugin and kubectl
// show the same table. Its exit code is kubectl's.
//
// `status NAME [-n NS]` reads one DGD and prints its engine, recipe, every condition with
// its reason and message, and each component's replicas. Exit code: 0 Ready=True, 1 not
// Ready (or no status yet), 2 the DGD cannot be read (kubeconfig, not found, usage).
#include "cli/dgdctl/get_status.h"

#include <CLI/CLI.hpp>

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "dgd/kube/config.h"
#include "dgd/kube/rest_client.h"
#include "dgd/reconcile/child_kinds.h"

namespace dgd::cli {
namespace {

using nlohmann::json;

constexpr int kReady = 0, kNotReady = 1, kError = 2;

struct StatusArgs {
  std::string name;
  std::string ns;
  std::string kubeconfig;
  std::string context;
  std::string output;  // "" (text) | json
};

// Replaces this process with `kubectl get dynamographdeployments.nvidia.com ARGS...`.
int exec_kubectl_get(const std::vector<std::string>& args) {
  std::vector<std::string> words = {"kubectl", "get", "dynamographdeployments.nvidia.com"};
  words.insert(words.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& w : words) argv.push_back(w.data());
  argv.push_back(nullptr);
  std::cout.flush();
  ::execvp("kubectl", argv.data());
  std::cerr << "dgdctl get: cannot run kubectl: " << std::strerror(errno)
            << " (dgdctl get is `kubectl get dgd`; install kubectl v1.32)\n";
  return kError;
}

std::string text_at(const json& obj, const char* pointer) {
  const json::json_pointer p(pointer);
  return obj.contains(p) && obj[p].is_string() ? obj[p].get<std::string>() : std::string();
}

int64_t int_at(const json& obj, const char* key) {
  auto it = obj.find(key);
  return it != obj.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

// Left-aligned columns separated by three spaces, as kubectl prints tables.
void print_table(const std::vector<std::vector<std::string>>& rows, std::ostream& out) {
  std::vector<size_t> width;
  for (const auto& r : rows) {
    width.resize(std::max(width.size(), r.size()), 0);
    for (size_t i = 0; i < r.size(); ++i) width[i] = std::max(width[i], r[i].size());
  }
  for (const auto& r : rows) {
    std::string line;
    for (size_t i = 0; i < r.size(); ++i) {
      line += r[i];
      if (i + 1 < r.size()) line += std::string(width[i] - r[i].size() + 3, ' ');
    }
    out << line << "\n";
  }
}

std::string ready_status(const json& dgd) {
  const json conds = dgd.contains(json::json_pointer("/status/conditions"))
                         ? dgd[json::json_pointer("/status/conditions")]
                         : json::array();
  if (conds.is_array()) {
    for (const auto& c : conds) {
      if (c.is_object() && c.value("type", "") == "Ready" && c.value("status", "").size() > 0) {
        return c.value("status", "");
      }
    }
  }
  return "";
}

void print_status(const json& dgd, std::ostream& out) {
  const json status = dgd.value("status", json::object());
  out << "DynamoGraphDeployment " << text_at(dgd, "/metadata/namespace") << "/" << text_at(dgd, "/metadata/name")
      << "\n";
  auto field = [&](const char* label, const std::string& value) {
    out << "  " << label << std::string(12 - std::strlen(label), ' ') << (value.empty() ? "-" : value) << "\n";
  };
  field("recipe:", text_at(dgd, "/spec/recipe"));
  field("backend:", text_at(dgd, "/status/backendFramework"));
  field("state:", text_at(dgd, "/status/state"));
  const int64_t generation = dgd.contains(json::json_pointer("/metadata/generation"))
                                 ? int_at(dgd["metadata"], "generation")
                                 : 0;
  field("generation:", std::to_string(generation) + " (status describes " +
                           (status.is_object() ? std::to_string(int_at(status, "observedGeneration")) : "0") + ")");
  if (!status.is_object() || status.empty()) {
    out << "\nno status yet: the operator has not reconciled this DGD (is dgd-operator running?)\n";
    return;
  }

  std::vector<std::vector<std::string>> conds = {{"CONDITION", "STATUS", "REASON", "MESSAGE"}};
  for (const auto& c : status.value("conditions", json::array())) {
    if (!c.is_object()) continue;
    conds.push_back({c.value("type", ""), c.value("status", ""), c.value("reason", ""), c.value("message", "")});
  }
  out << "\n";
  print_table(conds, out);

  const json components = status.value("components", json::object());
  if (components.is_object() && !components.empty()) {
    std::vector<std::vector<std::string>> rows = {{"COMPONENT", "DEPLOYMENT", "READY", "UP-TO-DATE", "AVAILABLE"}};
    for (const auto& [name, c] : components.items()) {
      if (!c.is_object()) continue;
      std::string workload;
      for (const auto& n : c.value("componentNames", json::array())) {
        if (n.is_string()) workload += (workload.empty() ? "" : ",") + n.get<std::string>();
      }
      rows.push_back({name, workload.empty() ? "-" : workload,
                      std::to_string(int_at(c, "readyReplicas")) + "/" + std::to_string(int_at(c, "replicas")),
                      std::to_string(int_at(c, "updatedReplicas")), std::to_string(int_at(c, "availableReplicas"))});
    }
    out << "\n";
    print_table(rows, out);
  }
}

int run_status(const StatusArgs& a) {
  kube::KubeconfigOptions ko;
  ko.path = a.kubeconfig;
  ko.context = a.context;
  auto config = kube::load_config(ko);
  if (!config) {
    std::cerr << "dgdctl status: no usable cluster configuration: " << config.error().to_string() << "\n";
    return kError;
  }
  const std::string ns = a.ns.empty() ? config->default_namespace : a.ns;
  kube::ClientOptions co;
  co.user_agent = "dgdctl/status";
  co.max_retries = 3;
  kube::RestClient client(*config, co);
  auto dgd = client.get(reconcile::dgd_resource(), ns, a.name);
  if (!dgd) {
    std::cerr << "dgdctl status: " << ns << "/" << a.name << ": " << dgd.error().to_string() << "\n";
    return kError;
  }
  if (a.output == "json") {
    std::cout << dgd->value("status", json::object()).dump(2) << "\n";
  } else {
    print_status(*dgd, std::cout);
  }
  return ready_status(*dgd) == "True" ? kReady : kNotReady;
}

}  // namespace

void add_get_status_commands(CLI::App& app) {
  auto* get = app.add_subcommand("get", "list DGDs with their Ready, reason, Serving and engine (kubectl get dgd)");
  get->prefix_command();  // every argument goes to kubectl as written
  get->callback([get] { throw CLI::RuntimeError(exec_kubectl_get(get->remaining())); });

  auto args = std::make_shared<StatusArgs>();
  auto* status = app.add_subcommand("status", "one DGD's conditions and components; exit 0 when Ready");
  status->add_option("NAME", args->name, "the DynamoGraphDeployment")->required();
  status->add_option("-n,--namespace", args->ns, "namespace (default: the kubeconfig context's)");
  status->add_option("--kubeconfig", args->kubeconfig, "kubeconfig file (default: KUBECONFIG, else ~/.kube/config)");
  status->add_option("--context", args->context, "kubeconfig context (default: current-context)");
  status->add_option("-o,--output", args->output, "json: the status object as the API server holds it")
      ->check(CLI::IsMember({"json"}));
  status->callback([args] { throw CLI::RuntimeError(run_status(*args)); });
}

}  // namespace dgd::cli
