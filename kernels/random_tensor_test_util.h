// Test helper for the kernels' tests: a tensor of float32-representable values uniform in [-1, 1).
#pragma once

#include <cstdint>
#include <random>
#include <vector>

#include "kernels/ref_tensor.h"

namespace mmref {

inline RefTensor RandomFloat32Tensor(const std::vector<int64_t>& shape, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> d(-1, 1);
  int64_t n = 1;
  for (auto s : shape) n *= s;
  std::vector<double> v(static_cast<size_t>(n));
  for (auto& x : v) x = static_cast<float>(d(g));
  return MakeExact(shape, v);
}

}  // namespace mmref
