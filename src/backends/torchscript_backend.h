// The torchscript path: the program's function compiled with torch::jit::compile (TorchScript from
// C++, no Python) and run by the TorchScript interpreter on the same inputs eager gets.
#pragma once

#include <memory>

#include "src/exec/backend.h"

namespace mmdiff {

// Unavailable (with the reason) when the installed LibTorch cannot compile and run a tiny function.
// Compiled functions (or the compile error) are reused for the same source (the last 16 programs);
// a result's `compile` says whether this run compiled or reused one.
std::unique_ptr<Backend> MakeTorchScriptBackend();

// What the path does with a program, but on the given TorchScript source (defining f) instead of
// the program's TorchScript spelling: for tests that hand it a spelling TorchScript rejects.
PathResult RunTorchScriptSource(const std::string& source, const Program& p, const InputRecipe& r);

}  // namespace mmdiff
