// The aoti path: AOTInductor. The program's function is exported (torch.export) and compiled into a
// .pt2 package in the embedded Python, then loaded and run from C++ with AOTIModelPackageLoader.
#pragma once

#include <memory>

#include "src/exec/backend.h"

namespace mmdiff {

// Run on demand only (a compile takes tens of seconds). Cpu and cuda programs; meta ones are
// unsupported. Loaded packages are reused for the same program (same function and input shapes,
// dtypes, layouts and devices; the last 4 programs); a result's `compile` says whether this run
// compiled or reused one. Stages: python, inputs, export, aoti-compile, aoti-load, aoti-run,
// results.
std::unique_ptr<Backend> MakeAotiBackend();

}  // namespace mmdiff
