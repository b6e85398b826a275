// The Python half of the aoti path: torch.export.export of the program's function (wrapped in a
// torch.nn.Module) and torch._inductor.aoti_compile_and_package into a .pt2 file, run in the
// embedded interpreter. The package is loaded and run from C++ (aoti_backend.cc).
#pragma once

#include <ATen/ATen.h>

#include <string>
#include <vector>

#include "src/exec/backend.h"

namespace mmdiff {

// Exports `source` (a Python function named f, as EmitFunction writes it) on the example `inputs`
// (their shapes, dtypes, strides and devices are baked into the package) and writes the package to
// `package_path`. Reports the stages "export" and "aoti-compile". Returns "" on success; otherwise
// fills `error` (an error outcome: the root cause's class, as root_cause() names it) and returns
// the stage that failed. Call after EnsurePython() succeeded, without holding the GIL.
std::string ExportAndPackage(const std::string& source, const std::vector<at::Tensor>& inputs,
                             const std::string& package_path, StageReporter& stages,
                             PathResult& error);

}  // namespace mmdiff
