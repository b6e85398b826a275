// The eager path: LibTorch ATen called from C++.
#pragma once

#include <memory>

#include "src/exec/backend.h"

namespace mmdiff {

std::unique_ptr<Backend> MakeEagerBackend();

}  // namespace mmdiff
