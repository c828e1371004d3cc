// Command-line conventions both binaries keep (dgdctl, dgd-operator): the exit codes of
// docs/api.md ("Exit codes"), `--version`, and messages of bounded length. Header-only:
// each binary compiles it into its own main.cpp. Stateless.
#pragma once

#include <CLI/CLI.hpp>

#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include "cli/bounded_text.h"
#include "dgd/build_version.h"

namespace dgd::cli {

inline constexpr int kExitUsage = 2;

// "<program> 0.1.0 (git-describe)", or without the parenthesis when the build had no git.
inline std::string version_line(std::string_view program) {
  std::string out = std::string(program) + " " + kVersion;
  if (*kGitDescribe != '\0') out += std::string(" (") + kGitDescribe + ")";
  return out;
}

namespace detail {

// The first word of argv that names no subcommand where one is required, as
// "unknown command \"X\" for \"prog sub\"", or the first flag the command it follows
// does not have, as "unknown flag: --x" (kubectl's wording); "" when there is none.
inline std::string unknown_command(CLI::App& app, int argc, char** argv) {
  CLI::App* current = &app;
  std::string where = app.get_name();
  for (int i = 1; i < argc; ++i) {
    const std::string_view word = argv[i];
    if (word.size() > 1 && word[0] == '-' && word != "--") {
      const std::string flag(word.substr(0, word.find('=')));
      // "-ofoo": CLI11 reads a short flag followed by its value.
      const std::string name = flag[1] != '-' && flag.size() > 2 ? flag.substr(0, 2) : flag;
      if (current->get_option_no_throw(name) == nullptr) return "unknown flag: " + bounded(flag, 64);
      break;  // options and their values follow: CLI11 checks the rest
    }
    if (word.empty() || word[0] == '-') break;
    auto found = current->get_subcommands([&](CLI::App* s) { return s->check_name(std::string(word)); });
    if (!found.empty()) {
      current = found.front();
      where += " " + current->get_name();
      if (current->get_prefix_command()) break;  // passes its arguments on as written
      continue;
    }
    if (current->get_require_subcommand_min() == 0) break;  // a positional argument
    return "unknown command \"" + bounded(word, 64) + "\" for \"" + where + "\"";
  }
  return "";
}

}  // namespace detail

// Parses argv. Returns the exit code to end with, or nullopt to go on:
//  0 after --help / --version (printed on stdout);
//  2 for every usage error (no command, an unknown command, flag or value, a missing
//    argument): one message and a hint on stderr, as kubectl does;
//  a subcommand that runs during the parse (CLI11 callback) ends it with
//    CLI::RuntimeError(code): that code.
inline std::optional<int> parse_command_line(CLI::App& app, int argc, char** argv) {
  const std::string program = app.get_name();
  auto usage_error = [&](const std::string& message) {
    std::cerr << program << ": " << bounded(message) << "\nRun '" << program << " --help' for usage.\n";
    return kExitUsage;
  };
  if (argc <= 1 && app.get_require_subcommand_min() > 0) {
    std::cerr << app.help();
    return usage_error("a command is required");
  }
  if (std::string unknown = detail::unknown_command(app, argc, argv); !unknown.empty()) return usage_error(unknown);
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);
    std::string message = e.what();
    if (message == "A subcommand is required") message = "a command is required";
    return usage_error(message);
  }
  return std::nullopt;
}

}  // namespace dgd::cli
