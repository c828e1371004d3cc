// `dgdctl smoke DGD`: the recipe pages' smoke test against a running graph (smoke.cpp).
#pragma once

namespace CLI {
class App;
}

namespace dgd::cli {

// Adds the `smoke` subcommand to `app`. When chosen it runs during parsing and ends it
// with CLI::RuntimeError(exit code), which CLI11_PARSE turns into main's return value.
void add_smoke_command(CLI::App& app);

}  // namespace dgd::cli
