// dgdctl: the offline CLI (recipes, expand, render, validate). Also runs as the kubectl
// plugin `kubectl dgd ...` (the build links kubectl-dgd to this binary).
// All CLI11 use lives in this file; the commands are in commands.cpp.
#include <CLI/CLI.hpp>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <iostream>
#include <iterator>

#include "cli/dgdctl/commands.h"
#include "cli/dgdctl/get_status.h"
#include "cli/dgdctl/smoke.h"

namespace {

// Reads FILE, or stdin for "-". Returns false with a message on `err`.
bool readInput(const std::string& file, std::string& text, std::string& source) {
  if (file == "-") {
    text.assign(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
    source = "<stdin>";
    return true;
  }
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    std::cerr << "dgdctl: cannot read " << file << "\n";
    return false;
  }
  // A regular file in one read of its size into a buffer one byte larger (the second
  // read, into that byte, sees the end); a pipe or a /proc-style file (size 0) in chunks.
  struct stat st {};
  constexpr size_t kChunk = size_t{1} << 16;
  text.clear();
  text.reserve(::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 ? static_cast<size_t>(st.st_size) + 1
                                                                             : kChunk);
  bool ok = true;
  for (;;) {
    const size_t used = text.size();
    const size_t want = text.capacity() > used ? text.capacity() - used : kChunk;
    text.resize(used + want);
    const ssize_t n = ::read(fd, text.data() + used, want);
    text.resize(used + static_cast<size_t>(n > 0 ? n : 0));
    if (n > 0 || (n < 0 && errno == EINTR)) continue;
    ok = n == 0;
    break;
  }
  ::close(fd);
  if (!ok) {
    std::cerr << "dgdctl: cannot read " << file << "\n";
    return false;
  }
  source = file;
  return true;
}

}  // namespace

namespace dgd::cli {
void add_plan_command(CLI::App& app);     // plan.cpp
void add_convert_command(CLI::App& app);  // convert.cpp
}

int main(int argc, char** argv) {
  using dgd::cli::Format;
  CLI::App app{"dgdctl: NVIDIA Dynamo DynamoGraphDeployment recipes, expansion, rendering and validation.\n"
               "Runs offline; also usable as `kubectl dgd`."};
  app.require_subcommand(1);

  std::string format = "yaml";
  std::string ns = "default";
  std::string file;
  auto addFormat = [&](CLI::App* cmd) {
    cmd->add_option("-o,--output", format, "output format")->check(CLI::IsMember({"yaml", "json"}))->capture_default_str();
  };
  auto addFile = [&](CLI::App* cmd) {
    cmd->add_option("-f,--filename", file, "DGD file (YAML or JSON, several documents allowed), or - for stdin")
        ->required();
  };
  auto addNamespace = [&](CLI::App* cmd) {
    cmd->add_option("-n,--namespace", ns, "namespace of DGDs whose metadata has none")->capture_default_str();
  };

  auto* recipes = app.add_subcommand("recipes", "the built-in recipe catalog");
  recipes->require_subcommand(1);
  auto* list = recipes->add_subcommand("list", "list the recipes (NAME, GPUs, components)");
  std::string listFormat;
  list->add_option("-o,--output", listFormat, "yaml or json instead of the table")->check(CLI::IsMember({"yaml", "json"}));
  auto* show = recipes->add_subcommand("show", "print one recipe's DGD");
  std::string recipeName;
  show->add_option("NAME", recipeName, "e.g. deepseek-v4.1-flash/vllm/disagg-h200-agentic")->required();
  addFormat(show);

  auto* expandCmd = app.add_subcommand("expand", "print the explicit, upstream-compatible DGD (recipe applied, typed blocks lowered)");
  addFile(expandCmd);
  addFormat(expandCmd);
  addNamespace(expandCmd);
  bool typed = false;
  expandCmd->add_flag("--typed", typed, "print the explicit graph in the typed form instead");

  auto* renderCmd = app.add_subcommand("render", "print every child object the operator would create");
  addFile(renderCmd);
  addFormat(renderCmd);
  addNamespace(renderCmd);

  auto* validateCmd = app.add_subcommand("validate", "check DGDs; exit 0 when valid, 1 with every problem and its field path");
  addFile(validateCmd);

  dgd::cli::add_plan_command(app);
  dgd::cli::add_convert_command(app);

  dgd::cli::addSmokeCommand(app);

  dgd::cli::add_get_status_commands(app);

  CLI11_PARSE(app, argc, argv);

  dgd::cli::CommonOptions opts;
  opts.format = format == "json" ? Format::kJson : Format::kYaml;
  opts.defaultNamespace = ns;
  // Every command from here on is one offline pass that prints and exits (plan and smoke,
  // which talk to a cluster, ran as CLI11 callbacks inside the parse above): its documents
  // are left to the exit instead of being freed node by node.
  opts.keepUntilExit = true;

  if (*list) {
    if (!listFormat.empty()) opts.format = listFormat == "json" ? Format::kJson : Format::kYaml;
    return dgd::cli::recipesList(opts, std::cout, listFormat.empty());
  }
  if (*show) return dgd::cli::recipesShow(recipeName, opts, std::cout, std::cerr);

  std::string text, source;
  if (!readInput(file, text, source)) return 1;
  if (*expandCmd) return dgd::cli::expand(text, source, typed, opts, std::cout, std::cerr);
  if (*renderCmd) return dgd::cli::render(text, source, opts, std::cout, std::cerr);
  if (*validateCmd) return dgd::cli::validate(text, source, std::cout, std::cerr);
  return 2;
}
