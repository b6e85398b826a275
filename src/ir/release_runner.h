// The runner `mmdiff releases` runs in another torch release's venv: a standalone Python script
// that runs one case (a program and its inputs) through the named Python paths and writes what each
// returned as JSON lines (src/ir/python/release_runner.py), so that no mmdiff build per release is
// needed.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "src/ir/call_sequence.h"
#include "src/ir/input_recipe.h"
#include "src/ir/program.h"

namespace mmdiff {

// The paths the runner runs, as mmdiff's paths of those names do: eager, eager_meta, inductor,
// aot_eager, compile_eager, torchscript (torch.jit.CompilationUnit on f's TorchScript spelling) and
// aoti (torch.export and AOTInductor's package).
bool ReleaseRunnerRuns(std::string_view path);

// The script for the case on `paths` (each one ReleaseRunnerRuns accepts; others are left out).
// Run as `python SCRIPT OUT`: it writes OUT (see release_runner.py), exits 0 when every path ran,
// kReproFailedExitCode when the inputs cannot be built in that environment (e.g. cuda without a
// GPU), another status when Python itself failed.
// `before`: the case's calls before (src/ir/call_sequence.h), which the paths that keep state make
// first.
std::string EmitReleaseRunner(const Program& p, const InputRecipe& r,
                              const std::vector<std::string>& paths,
                              const std::vector<PriorCall>& before = {});

}  // namespace mmdiff
