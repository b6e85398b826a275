// The CUDA reference matmul against the CPU one: the same values and bounds. Skips, saying why,
// where there is no GPU (the shared per-element math is tested on CPU by the kernels tests).
#include "kernels/cuda/matmul_cuda.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

namespace mmref {
namespace {

RefTensor Random(std::vector<int64_t> shape, uint64_t seed) {
  std::mt19937_64 g(seed);
  std::normal_distribution<double> d;
  int64_t n = 1;
  for (int64_t s : shape) n *= s;
  std::vector<double> v(static_cast<size_t>(n));
  for (double& x : v) x = RoundTo(Format::kF16, d(g));
  return MakeExact(shape, v);
}

TEST(MatmulCuda, MatchesTheCpuReferenceIncludingBroadcastAndSpecialBatches) {
  std::string why;
  if (!CudaDeviceAvailable(&why)) GTEST_SKIP() << "CUDA reference not exercised: " << why;
  Arith arith{Format::kF16, Format::kF32};
  RefTensor a = Random({3, 1, 17, 65}, 1), b = Random({4, 65, 33}, 2);
  a.val[5] = NAN;  // batch 0 of a: those products are unjudged on both sides
  RefTensor gpu;
  ASSERT_TRUE(MatmulOnCuda(a, b, arith, gpu, &why)) << why;
  RefTensor cpu = MatmulResult(a, b, arith);
  ASSERT_EQ(gpu.shape, cpu.shape);
  for (size_t i = 0; i < cpu.val.size(); ++i) {
    if (std::isnan(cpu.val[i])) {
      EXPECT_TRUE(std::isnan(gpu.val[i])) << i;
    } else {
      EXPECT_EQ(gpu.val[i], cpu.val[i]) << i;  // same operations in the same order
    }
    EXPECT_EQ(gpu.err[i], cpu.err[i]) << i;
  }
}

TEST(MatmulCuda, LeavesOneDimensionalAndIntegerProductsToTheCpu) {
  RefTensor out;
  std::string why;
  EXPECT_FALSE(MatmulOnCuda(Random({4}, 1), Random({4, 2}, 2), Arith{Format::kF32, Format::kF32}, out, &why));
  EXPECT_FALSE(why.empty());
  EXPECT_FALSE(MatmulOnCuda(Random({2, 4}, 1), Random({4, 2}, 2), Arith{Format::kI32, Format::kI32}, out, &why));
  EXPECT_FALSE(why.empty());
}

}  // namespace
}  // namespace mmref
