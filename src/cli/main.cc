// mmdiff: command-line entry point.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "src/cli/command_registry.h"
#include "src/cli/commands.h"
#include "src/cli/subcommand_help.h"

namespace {

constexpr const char* kExitCodes =
    "`mmdiff SUBCOMMAND --help` explains a subcommand, with an example.\n"
    "Exit codes: 0 success (run: all paths agree); 1 run: the paths diverge; 2 bad usage or\n"
    "invalid input file; 3 environment problem (worker cannot start or keeps failing: a\n"
    "campaign stops and `fuzz --resume` continues; a worker fault; output folder not\n"
    "writable); 4 replay: an expected divergence is gone (fixed upstream?); 5 replay: a verdict\n"
    "changed in another way (new behaviour).";

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "mmdiff: a differential fuzzer for PyTorch's matrix-multiplication family.\n"
      "Runs random programs through a reference engine, LibTorch eager and compiled paths\n"
      "(torch.compile, AOTInductor, TorchScript) in isolated worker processes, and reports where\n"
      "they disagree on errors, result types or values."};
  app.footer(kExitCodes);
  app.set_version_flag("--version", mmdiff::cli::VersionText());
  app.require_subcommand(1);

  // Every subcommand, from its own *_command.cc file, in name order.
  std::vector<std::pair<CLI::App*, std::function<int()>>> registered;
  auto& registry = mmdiff::cli::CommandRegistry();
  std::sort(registry.begin(), registry.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  for (auto& c : registry) registered.push_back(c.add(app));
  mmdiff::cli::UseOneLineSubcommandList(app);
  if (int code = mmdiff::cli::CheckSubcommandName(app, argc, argv, std::cerr); code != 0)
    return code;

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : mmdiff::kExitUsage;
  }
  for (auto& [sub, action] : registered)
    if (*sub) return action();
  return mmdiff::kExitUsage;
}
