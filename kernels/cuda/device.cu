// Whether the CUDA reference kernels can run here.
#include <cuda_runtime.h>

#include "kernels/cuda/cuda_reference.h"
#include "kernels/cuda/device_buffers.h"

namespace mmref {

bool CudaDeviceAvailable(std::string* why) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) return Fail(why, "no usable CUDA device", e);
  if (count == 0) {
    if (why) *why = "no CUDA device";
    return false;
  }
  return true;
}

}  // namespace mmref
