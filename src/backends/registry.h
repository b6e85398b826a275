// The paths a worker offers, in the order they run.
#pragma once

#include <memory>
#include <vector>

#include "src/exec/backend.h"

namespace mmdiff {

// One Backend per row of the path catalogue (src/ir/paths.h), in its order (reference, eager,
// eager_meta, inductor, aot_eager, compile_eager, torchscript, aoti, the inductor knob variants);
// the test-only paths only when asked.
std::vector<std::unique_ptr<Backend>> MakeBackends(bool with_test_paths);

}  // namespace mmdiff
