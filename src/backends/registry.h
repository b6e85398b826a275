// The paths a worker offers, in the order they run.
#pragma once

#include <memory>
#include <vector>

#include "src/exec/backend.h"

namespace mmdiff {

// reference, eager, eager_meta, inductor, aot_eager, compile_eager, torchscript, aoti, the inductor
// knob variants; plus the test-only paths when asked.
std::vector<std::unique_ptr<Backend>> MakeBackends(bool with_test_paths);

}  // namespace mmdiff
