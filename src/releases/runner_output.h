// What a release runner (src/ir/release_runner.h) wrote, read back as path results. The file comes
// from another process running torch: it is untrusted, and read with limits.
#pragma once

#include <string>
#include <vector>

#include "src/ir/outcome.h"
#include "src/support/status.h"

namespace mmdiff {

struct RunnerOutput {
  std::string torch;                // torch.__version__ in that venv, e.g. "2.11.0+cu130"
  std::string python;               // its Python version
  std::vector<PathResult> results;  // in the order of `paths`, as far as the runner got
};

// Parses the runner's JSON lines: a header, then one result per path, in the order of `paths`. A
// last line without its newline (the runner died while writing it) is left out; any other line
// that is not valid (not JSON, another path, an unknown outcome, dtype or device, a shape that
// does not fit its data) is an error naming the line.
Result<RunnerOutput> ParseRunnerOutput(const std::string& text,
                                       const std::vector<std::string>& paths);

}  // namespace mmdiff
