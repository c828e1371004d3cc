// `dgdctl get` / `dgdctl status` (get_status.cpp): the live DGDs as the operator reports them.
#pragma once

namespace CLI {
class App;
}

namespace dgd::cli {

// Adds the `get` and `status` subcommands to `app`. When chosen they run during parsing
// and end it with CLI::RuntimeError(exit code), which CLI11_PARSE turns into main's
// return value.
void add_get_status_commands(CLI::App& app);

}  // namespace dgd::cli
