// What the CLI's subcommands share: the common options and the version text. Each subcommand lives
// in its own *_command.cc and registers itself (command_registry.h).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "src/support/exit_codes.h"

namespace mmdiff::cli {

struct CommonOptions {
  std::string policy_file;
  bool test_paths = false;  // offer the test-only paths (planted faults, crashers)
  std::string paths;        // comma-separated; "" = every available non-test path
  double timeout_s = 300;   // per stage of a path, before the worker is killed
};

// `mmdiff releases FINDINGS --torch TORCH` with its other options at their defaults (each report's
// releases.json recorded): its exit code.
int RunReleasesOn(const std::vector<std::string>& findings, const std::string& torch);

// `mmdiff --version`: mmdiff's, torch's and Python's versions and the venv's Python.
std::string VersionText();

}  // namespace mmdiff::cli
