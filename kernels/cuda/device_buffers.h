// Helpers shared by the CUDA reference kernels: device buffers freed on every path out, and
// error messages that say what failed.
#pragma once

#include <cuda_runtime.h>

#include <algorithm>
#include <string>
#include <vector>

namespace mmref {

inline bool Fail(std::string* why, const std::string& what, cudaError_t e) {
  if (why) *why = what + ": " + cudaGetErrorString(e);
  return false;
}

struct DeviceBuffers {
  std::vector<void*> ptrs;
  DeviceBuffers() = default;
  DeviceBuffers(const DeviceBuffers&) = delete;
  DeviceBuffers& operator=(const DeviceBuffers&) = delete;
  ~DeviceBuffers() {
    for (void* p : ptrs) cudaFree(p);
  }
  template <typename T>
  cudaError_t Alloc(size_t count, T** dev) {
    cudaError_t e =
        cudaMalloc(reinterpret_cast<void**>(dev), std::max<size_t>(count, 1) * sizeof(T));
    if (e == cudaSuccess) ptrs.push_back(*dev);
    return e;
  }
  template <typename T>
  cudaError_t Copy(const std::vector<T>& host, T** dev) {
    cudaError_t e = Alloc(host.size(), dev);
    if (e != cudaSuccess) return e;
    return cudaMemcpy(*dev, host.data(), host.size() * sizeof(T), cudaMemcpyHostToDevice);
  }
};

}  // namespace mmref
