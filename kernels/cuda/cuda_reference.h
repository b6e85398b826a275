// The reference engine's CUDA kernels: the same per-element math as the CPU loops
// (kernels/dot_math.h, kernels/softmax_math.h), one thread per output element or softmax row, the
// bounds finished on the host as the CPU path does. Built with nvcc behind MMDIFF_WITH_CUDA.
#pragma once

#include <string>

#include "kernels/reference_ops.h"

namespace mmref {

// True when a CUDA device can be used; otherwise `why` says why not (no driver, no device, ...).
bool CudaDeviceAvailable(std::string* why);

// MatmulResult (final_product) or Matmul (a product inside addmm, linear or attention),
// torch.matmul semantics with both operands of rank >= 2, the per-element sums computed on the GPU.
// Returns false, with `why`, when there is no device, an operand is 1-D or the product is an
// integer one (use the CPU functions then).
bool MatmulOnCuda(const RefTensor& a, const RefTensor& b, Arith arith, RefTensor& out,
                  std::string* why, bool final_product = true);

// Softmax (attention_ops.h) with each row computed on the GPU. False, with `why`, without a device.
bool SoftmaxOnCuda(const RefTensor& a, int64_t dim, Arith arith, RefTensor& out, std::string* why);

// Stages for Addmm and ScaledDotProductAttention that run their products and softmax on the GPU,
// each falling back to the CPU loop (the same math) where the GPU function declines.
Stages CudaStages();

}  // namespace mmref
