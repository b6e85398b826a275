// Self-registering subcommands: a *_command.cc file adds its subcommand to the CLI without touching
// main.cc. Each registration adds its options to the app and returns what to run when it is chosen.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

namespace mmdiff::cli {

// Called once at start-up with the top-level app; returns the subcommand it created and the action
// to run (returning the exit code) when that subcommand was given.
struct RegisteredCommand {
  std::string name;
  std::function<std::pair<CLI::App*, std::function<int()>>(CLI::App& app)> add;
};

std::vector<RegisteredCommand>& CommandRegistry();

// In a *_command.cc: `static const CommandRegistrar kRegistrar{"triage", [](CLI::App& app) {...}};`
struct CommandRegistrar {
  CommandRegistrar(std::string name, decltype(RegisteredCommand::add) add) {
    CommandRegistry().push_back({std::move(name), std::move(add)});
  }
};

}  // namespace mmdiff::cli
