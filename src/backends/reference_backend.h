// The reference path: the contract decides accept/reject, kernels/ computes values with bounds.
#pragma once

#include <memory>

#include "src/exec/backend.h"

namespace mmdiff {

std::unique_ptr<Backend> MakeReferenceBackend();

}  // namespace mmdiff
