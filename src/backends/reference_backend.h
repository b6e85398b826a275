// The reference path: the contract decides accept/reject, kernels/ computes values with bounds.
#pragma once

#include <memory>

#include "src/exec/backend.h"

namespace mmdiff {

// The reference path; with `float64`, the reference_float64 path (oracles/accuracy.h), run on
// demand.
std::unique_ptr<Backend> MakeReferenceBackend(bool float64 = false);

}  // namespace mmdiff
