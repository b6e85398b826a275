// Compiled paths: torch.compile(f, backend=NAME, fullgraph=True) driven from C++ through the
// embedded interpreter; f is the same Python function repro.py runs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "src/exec/backend.h"
#include "src/ir/paths.h"

namespace mmdiff {

// A torch.compile path of the catalogue, with its row's name and traits: torch.compile(f,
// backend=row.torch_backend): "inductor" (the main target), "aot_eager" or "eager" (ablation
// controls); a knob variant with one torch._inductor.config setting (row.knob = True) in force
// while it compiles and runs; the test-only planted_recompile and planted_worker_only with
// deliberately wrong backends (src/ir/python/planted_backends.py), one right on a function's first
// compile and wrong after a recompile with symbolic sizes (a divergence only a call before the
// case's shows), the other wrong in mmdiff's worker only (a divergence its repro.py cannot show).
std::unique_ptr<Backend> MakeCompiledBackend(const PathRow& row);

}  // namespace mmdiff
