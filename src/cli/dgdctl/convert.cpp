// `dgdctl convert -f FILE [-o yaml|json]`: upstream's nvidia.com/v1alpha1 DGDs → the
// nvidia.com/v1beta1 documents this operator serves (api/convert.h). Every other
// document of the file is printed unchanged, so `dgdctl convert -f f.yaml | kubectl
// apply -f -` applies the whole file. Exit code: 0 converted (or nothing to convert),
// 1 a field without a v1beta1 form (named with its v1alpha1 path; nothing is printed)
// or an unreadable file.
#include <CLI/CLI.hpp>

#include <iostream>
#include <memory>

#include <nlohmann/json.hpp>

#include "cli/bounded_text.h"
#include "cli/dgdctl/input.h"
#include "dgd/api/convert.h"
#include "dgd/api/yaml.h"

namespace dgd::cli {
namespace {

using nlohmann::json;

struct ConvertArgs {
  std::string file;
  std::string format = "yaml";
};

int run_convert(const ConvertArgs& a, std::ostream& out, std::ostream& err) {
  auto input = read_input(a.file, err);
  if (!input) return 1;
  const std::string& text = input->text;
  std::vector<json> docs;
  try {
    docs = api::yaml_to_json_documents(text);
  } catch (const api::YamlError& e) {
    err << bounded(input->source) << ": " << bounded(e.what()) << "\n";
    return 1;
  }
  std::vector<json> result;
  int rc = 0;
  for (size_t i = 0; i < docs.size(); ++i) {
    if (!api::is_v1alpha1_dgd(docs[i])) {
      result.push_back(std::move(docs[i]));
      continue;
    }
    auto converted = api::convert_v1alpha1(docs[i]);
    std::string name = "document " + std::to_string(i + 1);
    if (docs[i]["metadata"].is_object() && docs[i]["metadata"].value("name", json()).is_string()) {
      name = docs[i]["metadata"]["name"].get<std::string>();
    }
    for (const auto& e : converted.errors) err << bounded(input->source) << ": " << bounded(name, 80) << ": error: " << bounded(e.str(), 2048) << "\n";
    if (!converted.ok()) {
      rc = 1;
      continue;
    }
    for (auto& claim : converted.claims) {
      // In the DGD's namespace, like the PVC upstream's operator would create.
      if (docs[i]["metadata"].is_object() && docs[i]["metadata"].contains("namespace")) {
        claim["metadata"]["namespace"] = docs[i]["metadata"]["namespace"];
      }
      result.push_back(std::move(claim));
    }
    result.push_back(std::move(converted.dgd));
  }
  if (rc != 0) return rc;
  if (a.format == "json") {
    out << (result.size() == 1 ? result.front() : json{{"apiVersion", "v1"}, {"kind", "List"}, {"items", result}}).dump(2)
        << "\n";
  } else {
    std::string yaml;
    for (const auto& d : result) {
      yaml += "---\n";
      api::append_yaml(yaml, d);
    }
    out << yaml;
  }
  return 0;
}

}  // namespace

// Registers `convert` on dgdctl's command line. Its callback ends the parse with the exit
// code (CLI::RuntimeError carries it silently).
void add_convert_command(CLI::App& app) {
  auto args = std::make_shared<ConvertArgs>();
  auto* cmd = app.add_subcommand(
      "convert", "convert upstream nvidia.com/v1alpha1 DGDs to nvidia.com/v1beta1 (other documents unchanged)");
  cmd->add_option("-f,--filename", args->file, "file (YAML or JSON, several documents allowed), or - for stdin")
      ->required();
  cmd->add_option("-o,--output", args->format, "output format")
      ->check(CLI::IsMember({"yaml", "json"}))
      ->capture_default_str();
  cmd->callback([args] { throw CLI::RuntimeError(run_convert(*args, std::cout, std::cerr)); });
}

}  // namespace dgd::cli
