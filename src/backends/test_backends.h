// Test-only paths: a planted fault that silently promotes mismatched dtypes (like the Inductor bug
// of pytorch#177630), and paths that crash or hang on purpose to exercise the supervisor.
#pragma once

#include <memory>
#include <vector>

#include "src/exec/backend.h"

namespace mmdiff {

std::vector<std::unique_ptr<Backend>> MakeTestBackends();

}  // namespace mmdiff
