// dgdctl: the CLI (recipes, expand, render, validate and convert offline; plan, smoke, get
// and status read the cluster). Also runs as the kubectl plugin `kubectl dgd ...` (the
// build links kubectl-dgd to this binary). Exit codes: docs/api.md, "Exit codes".
// All CLI11 use lives in this file; the commands are in commands.cpp.
#include <CLI/CLI.hpp>

#include <iostream>

#include "cli/command_line.h"
#include "cli/dgdctl/commands.h"
#include "cli/dgdctl/get_status.h"
#include "cli/dgdctl/input.h"
#include "cli/dgdctl/smoke.h"

namespace dgd::cli {
void add_plan_command(CLI::App& app);     // plan.cpp
void add_convert_command(CLI::App& app);  // convert.cpp
}

int main(int argc, char** argv) {
  using dgd::cli::Format;
  CLI::App app{"dgdctl: NVIDIA Dynamo DynamoGraphDeployment recipes, expansion, rendering and validation.\n"
               "recipes, expand, render, validate and convert run offline; plan, smoke, get and status read the "
               "cluster. "
               "Also usable as `kubectl dgd`.",
               "dgdctl"};
  app.require_subcommand(1);
  app.set_version_flag("--version", dgd::cli::version_line("dgdctl"), "print the version and exit");

  std::string format = "yaml";
  std::string ns = "default";
  std::string file;
  auto add_format = [&](CLI::App* cmd) {
    cmd->add_option("-o,--output", format, "output format")->check(CLI::IsMember({"yaml", "json"}))->capture_default_str();
  };
  auto add_file = [&](CLI::App* cmd) {
    cmd->add_option("-f,--filename", file, "DGD file (YAML or JSON, several documents allowed), or - for stdin")
        ->required();
  };
  auto add_namespace = [&](CLI::App* cmd) {
    cmd->add_option("-n,--namespace", ns, "namespace of DGDs whose metadata has none")->capture_default_str();
  };

  auto* recipes = app.add_subcommand("recipes", "the built-in recipe catalog");
  recipes->require_subcommand(1);
  auto* list = recipes->add_subcommand("list", "list the recipes (NAME, GPUs, components)");
  std::string list_format;
  list->add_option("-o,--output", list_format, "yaml or json instead of the table")->check(CLI::IsMember({"yaml", "json"}));
  auto* show = recipes->add_subcommand("show", "print one recipe's DGD");
  std::string recipe_name;
  show->add_option("NAME", recipe_name, "e.g. deepseek-v4.1-flash/vllm/disagg-h200-agentic")->required();
  add_format(show);

  auto* expand_cmd = app.add_subcommand("expand", "print the explicit, upstream-compatible DGD (recipe applied, typed blocks lowered)");
  add_file(expand_cmd);
  add_format(expand_cmd);
  add_namespace(expand_cmd);
  bool typed = false;
  expand_cmd->add_flag("--typed", typed, "print the explicit graph in the typed form instead");

  auto* render_cmd = app.add_subcommand("render", "print every child object the operator would create");
  add_file(render_cmd);
  add_format(render_cmd);
  add_namespace(render_cmd);

  auto* validate_cmd = app.add_subcommand("validate", "check DGDs; exit 0 when valid, 1 with every problem and its field path");
  add_file(validate_cmd);

  dgd::cli::add_plan_command(app);
  dgd::cli::add_convert_command(app);

  dgd::cli::add_smoke_command(app);

  dgd::cli::add_get_status_commands(app);

  if (auto rc = dgd::cli::parse_command_line(app, argc, argv)) return *rc;

  dgd::cli::CommonOptions opts;
  opts.format = format == "json" ? Format::kJson : Format::kYaml;
  opts.default_namespace = ns;
  // Every command from here on is one offline pass that prints and exits (plan and smoke,
  // which talk to a cluster, ran as CLI11 callbacks inside the parse above): its documents
  // are left to the exit instead of being freed node by node.
  opts.keep_until_exit = true;

  if (*list) {
    if (!list_format.empty()) opts.format = list_format == "json" ? Format::kJson : Format::kYaml;
    return dgd::cli::recipes_list(opts, std::cout, list_format.empty());
  }
  if (*show) return dgd::cli::recipes_show(recipe_name, opts, std::cout, std::cerr);

  auto input = dgd::cli::read_input(file, std::cerr);
  if (!input) return 1;
  const std::string& text = input->text;
  const std::string& source = input->source;
  if (*expand_cmd) return dgd::cli::expand(text, source, typed, opts, std::cout, std::cerr);
  if (*render_cmd) return dgd::cli::render(text, source, opts, std::cout, std::cerr);
  if (*validate_cmd) return dgd::cli::validate(text, source, std::cout, std::cerr);
  return 2;
}
