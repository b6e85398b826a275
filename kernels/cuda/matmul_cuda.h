// The reference matmul's accumulation on a CUDA GPU: the same per-element math as the CPU loops
// (kernels/dot_math.h), one thread per output element. Built with nvcc behind MMDIFF_WITH_CUDA.
#pragma once

#include <string>

#include "kernels/reference_ops.h"

namespace mmref {

// True when a CUDA device can be used; otherwise `why` says why not (no driver, no device, ...).
bool CudaDeviceAvailable(std::string* why);

// MatmulResult (torch.matmul semantics, both operands of rank >= 2) with the per-element sums
// computed on the GPU and the bounds finished on the host exactly as MatmulResult does. Returns false, with `why`,
// when there is no device or an operand is 1-D (use Matmul then).
bool MatmulOnCuda(const RefTensor& a, const RefTensor& b, Arith arith, RefTensor& out, std::string* why);

}  // namespace mmref
