// The eager path: LibTorch ATen called from C++.
#pragma once

#include <memory>

#include "src/exec/backend.h"

namespace mmdiff {

std::unique_ptr<Backend> MakeEagerBackend();
// "eager_meta": a cpu program run with every tensor on meta (dtype, shape and errors only).
std::unique_ptr<Backend> MakeEagerMetaBackend();

}  // namespace mmdiff
