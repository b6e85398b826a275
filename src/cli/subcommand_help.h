// The top-level help and subcommand names: `mmdiff --help` lists one line per subcommand (the first
// line of its description; the rest shows in the subcommand's own --help), and an unknown
// subcommand is bad usage that names the closest known one.
#pragma once

#include <CLI/CLI.hpp>
#include <ostream>
#include <string>

namespace mmdiff::cli {

// Lists each subcommand of `app` (and of its subcommands) by its description's first line.
void UseOneLineSubcommandList(CLI::App& app);

// `footer` (may be empty) followed by a line "Example: mmdiff EXAMPLE".
std::string WithExample(const std::string& footer, const std::string& example);

// When the first argument that is not an option names no subcommand of `app`: says so on `err`,
// with the closest name, and returns kExitUsage (also with --help). Otherwise kExitOk.
int CheckSubcommandName(const CLI::App& app, int argc, char** argv, std::ostream& err);

}  // namespace mmdiff::cli
