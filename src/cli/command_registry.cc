// The list of self-registered subcommands.
#include "src/cli/command_registry.h"

namespace mmdiff::cli {

std::vector<RegisteredCommand>& CommandRegistry() {
  static std::vector<RegisteredCommand>
      commands;  // constructed on first use, before any registrar runs
  return commands;
}

}  // namespace mmdiff::cli
