// The paths a worker offers, in the order they run.
#pragma once

#include <memory>
#include <vector>

#include "src/exec/backend.h"

namespace mmdiff {

// reference, eager, inductor, aot_eager, compile_eager; plus the test-only paths when asked.
std::vector<std::unique_ptr<Backend>> MakeBackends(bool with_test_paths);

}  // namespace mmdiff
