// dgdctl's offline commands, independent of the command-line parser (main.cpp holds the
// CLI11 wiring). Each reads its input text, writes to `out` / `err` and returns the exit
// code: 0 success, 1 invalid input or not found, 2 usage errors (set by main.cpp).
#pragma once

#include <iosfwd>
#include <string>

namespace dgd::cli {

enum class Format { kYaml, kJson };

struct CommonOptions {
  Format format = Format::kYaml;
  std::string default_namespace = "default";  // for DGDs whose metadata has none
  // The process ends right after the command (dgdctl's main): what it built (documents,
  // graphs) is left to the exit instead of being freed node by node. Off for any caller
  // that goes on running, where it would keep that memory.
  bool keep_until_exit = false;
};

// Table of the catalog (yaml: a summary list; json: the same as JSON).
int recipes_list(const CommonOptions& o, std::ostream& out, bool table);
// One recipe: its deploy.yaml unchanged (yaml) or the parsed DGD (json).
int recipes_show(const std::string& name, const CommonOptions& o, std::ostream& out, std::ostream& err);
// Every DGD document of `text` → the upstream-compatible documents (or, with `typed`,
// the explicit typed graph).
int expand(const std::string& text, const std::string& source, bool typed, const CommonOptions& o,
           std::ostream& out, std::ostream& err);
// Every DGD document of `text` → its desired children.
int render(const std::string& text, const std::string& source, const CommonOptions& o, std::ostream& out,
           std::ostream& err);
// Every DGD document of `text`: all problems with their field paths.
int validate(const std::string& text, const std::string& source, std::ostream& out, std::ostream& err);

}  // namespace dgd::cli
