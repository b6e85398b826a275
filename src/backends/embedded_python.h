// Embedded CPython with torch imported, shared by the compiled paths of one worker process.
// Initialised once on first use and never finalised (torch must not be unloaded).
#pragma once

#include <string>

namespace mmdiff {

// Starts the interpreter (sys.executable = the venv's python, so Inductor's helpers find it) and
// imports torch and mmdiff's helper functions. Returns "" or why it failed; later calls are cheap.
std::string EnsurePython();

// The torch version Python sees ("" before EnsurePython succeeded).
std::string PythonTorchVersion();

}  // namespace mmdiff
