// Compiled paths: torch.compile(f, backend=NAME, fullgraph=True) driven from C++ through the
// embedded interpreter; f is the same Python function repro.py runs.
#pragma once

#include <memory>
#include <string>

#include "src/exec/backend.h"

namespace mmdiff {

// backend: "inductor" (the main target), "aot_eager" or "eager" (ablation controls).
std::unique_ptr<Backend> MakeCompiledBackend(const std::string& torch_backend);
// A knob variant of Inductor: `path` runs torch.compile(backend="inductor") with one
// torch._inductor.config setting (`knob` = True) in force while it compiles and runs.
std::unique_ptr<Backend> MakeInductorVariant(const std::string& path, const std::string& knob);

}  // namespace mmdiff
