// Compiled paths: torch.compile(f, backend=NAME, fullgraph=True) driven from C++ through the
// embedded interpreter; f is the same Python function repro.py runs.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "src/exec/backend.h"

namespace mmdiff {

// backend: "inductor" (the main target), "aot_eager" or "eager" (ablation controls).
std::unique_ptr<Backend> MakeCompiledBackend(const std::string& torch_backend);
// A knob variant of Inductor: `path` runs torch.compile(backend="inductor") with one
// torch._inductor.config setting (`knob` = True) in force while it compiles and runs.
std::unique_ptr<Backend> MakeInductorVariant(const std::string& path, const std::string& knob);
// The test-only paths planted_recompile and planted_worker_only: torch.compile with deliberately
// wrong backends (src/ir/python/planted_backends.py), one right on a function's first compile and
// wrong after a recompile with symbolic sizes (a divergence only a call before the case's shows),
// the other wrong in mmdiff's worker only (a divergence its repro.py cannot show).
std::vector<std::unique_ptr<Backend>> MakePlantedCompiledBackends();

}  // namespace mmdiff
