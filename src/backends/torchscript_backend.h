// The torchscript path: the program's function compiled with torch::jit::compile (TorchScript from
// C++, no Python) and run by the TorchScript interpreter on the same inputs eager gets.
#pragma once

#include <memory>

#include "src/exec/backend.h"

namespace mmdiff {

// Unavailable (with the reason) when the installed LibTorch cannot compile and run a tiny function.
// Compiled functions are reused for the same source (the last 16 programs); an ok result's message
// says which ("cache: compiled" or "cache: reused (run N of this program)", see artifact_cache.h).
std::unique_ptr<Backend> MakeTorchScriptBackend();

// What the path does with a program, but on the given TorchScript source (defining f) instead of
// the program's TorchScript spelling: for tests that hand it a spelling TorchScript rejects.
PathResult RunTorchScriptSource(const std::string& source, const Program& p, const InputRecipe& r);

}  // namespace mmdiff
