// Embedded CPython with torch imported, shared by the compiled paths of one worker process.
// Initialised once on first use and never finalised (torch must not be unloaded).
#pragma once

#include <string>
#include <vector>

#include "src/backends/aten_program.h"

namespace mmdiff {

// Starts the interpreter (sys.executable = the venv's python, so Inductor's helpers find it) and
// imports torch and mmdiff's helper functions. Returns "" or why it failed; later calls are cheap.
std::string EnsurePython();

// The interpreter EnsurePython starts: $MMDIFF_PYTHON, else the venv's python of the build.
std::string PythonExecutable();
// "" when that interpreter exists, else why not — checked without starting Python, so that
// `mmdiff paths` stays fast.
std::string PythonMissing();

// The start of a path that runs the program through Python: a cuda program needs a GPU, then the
// stage "python" starts the interpreter and MakeInputsStage makes the inputs. Returns false with
// the outcome (unsupported, or the inputs' error) in `res` when one of them fails.
bool StartPythonPath(const Program& p, const InputRecipe& r, StageReporter& stages,
                     std::vector<at::Tensor>& inputs, PathResult& res);

// Imports Dynamo and Inductor into the interpreter EnsurePython started (seconds, so only for the
// paths that compile: StartPythonPath does it in their stage "python"). Returns "" or why not.
std::string EnsureCompiler();

// The torch version Python sees ("" before EnsurePython succeeded).
std::string PythonTorchVersion();

}  // namespace mmdiff
