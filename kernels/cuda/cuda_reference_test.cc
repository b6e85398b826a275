// The CUDA reference kernels against the CPU loops: the same values and bounds. Skips, saying why,
// where there is no GPU (the shared per-element math is tested on CPU by the kernels tests).
#include "kernels/cuda/cuda_reference.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "kernels/attention_ops.h"

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

TEST(MatmulCuda, MatchesTheCpuReferenceIncludingBroadcastAndLeavesSpecialValuesToIt) {
  std::string why;
  if (!CudaDeviceAvailable(&why)) GTEST_SKIP() << "CUDA reference not exercised: " << why;
  Arith arith{Format::kF16, Format::kF32};
  RefTensor a = Random({3, 1, 17, 65}, 1), b = Random({4, 65, 33}, 2);
  a.val[7] = 60000;  // products that may overflow float16: +inf allowed on both sides
  RefTensor gpu;
  ASSERT_TRUE(MatmulOnCuda(a, b, arith, gpu, &why)) << why;
  RefTensor cpu = MatmulResult(a, b, arith);
  ASSERT_EQ(gpu.shape, cpu.shape);
  for (size_t i = 0; i < cpu.val.size(); ++i) {
    EXPECT_EQ(gpu.val[i], cpu.val[i]) << i;  // same operations in the same order
    EXPECT_EQ(gpu.err[i], cpu.err[i]) << i;
    EXPECT_EQ(gpu.Also(i), cpu.Also(i)) << i;
  }
  a.val[5] = NAN;  // special values are followed element by element on the CPU
  EXPECT_FALSE(MatmulOnCuda(a, b, arith, gpu, &why));
  EXPECT_NE(why.find("special"), std::string::npos) << why;
}

// exp on the GPU may differ from the CPU's in the last bit. Where an attention output is a sum of
// terms that cancel, those float64 ulps of the terms are many ulps of the value (seen on an H100:
// 3e-14 relative on outputs 1e-4 in size), so the allowance is a millionth of the element's bound
// (which holds a float64 term for that) besides 1e-14 relative: still far inside every bound.
void ExpectClose(const RefTensor& gpu, const RefTensor& cpu) {
  ASSERT_EQ(gpu.shape, cpu.shape);
  for (size_t i = 0; i < cpu.val.size(); ++i) {
    if (std::isnan(cpu.val[i])) {
      EXPECT_TRUE(std::isnan(gpu.val[i])) << i;
    } else {
      double bound_share = std::isfinite(cpu.err[i]) ? 1e-6 * cpu.err[i] : 0.0;
      double allowed = 1e-14 * std::fabs(cpu.val[i]) + bound_share + 1e-300;
      EXPECT_NEAR(gpu.val[i], cpu.val[i], allowed) << i;
    }
    if (std::isinf(cpu.err[i])) {
      EXPECT_TRUE(std::isinf(gpu.err[i])) << i;
    } else {
      EXPECT_NEAR(gpu.err[i], cpu.err[i], 1e-12 * cpu.err[i]) << i;
    }
  }
}

TEST(SoftmaxCuda, MatchesTheCpuReferenceOnInnerDimsAndSpecialRows) {
  std::string why;
  if (!CudaDeviceAvailable(&why)) GTEST_SKIP() << "CUDA reference not exercised: " << why;
  RefTensor a = Random({3, 65, 17}, 3);
  a.val[0] = -INFINITY;  // a -inf entry is exactly 0
  a.val[17] = NAN;       // and a NaN makes its row NaN
  Arith arith{Format::kF16, Format::kF32};
  for (int64_t dim : {0, 1, 2}) {
    RefTensor gpu;
    ASSERT_TRUE(SoftmaxOnCuda(a, dim, arith, gpu, &why)) << why;
    ExpectClose(gpu, Softmax(a, dim, arith));
  }
}

TEST(StagesCuda, AttentionAndAddmmOnTheGpuMatchTheCpu) {
  std::string why;
  if (!CudaDeviceAvailable(&why)) GTEST_SKIP() << "CUDA reference not exercised: " << why;
  RefTensor q = Random({2, 4, 33, 16}, 4), k = Random({2, 2, 40, 16}, 5),
            v = Random({2, 2, 40, 8}, 6);
  AttentionArgs args;
  args.is_causal = true;
  args.enable_gqa = true;
  Arith arith{Format::kF16, Format::kF32};
  ExpectClose(ScaledDotProductAttention(q, k, v, args, arith, CudaStages()),
              ScaledDotProductAttention(q, k, v, args, arith));
  RefTensor bias = Random({33}, 7), a = Random({40, 17}, 8), b = Random({17, 33}, 9);
  RefTensor gpu = Addmm(bias, a, b, 0.5, 2.0, arith, CudaStages()),
            cpu = Addmm(bias, a, b, 0.5, 2.0, arith);
  EXPECT_EQ(gpu.val, cpu.val);  // no transcendental function: bit for bit
  EXPECT_EQ(gpu.err, cpu.err);
}

TEST(MatmulCuda, LeavesOneDimensionalAndIntegerProductsToTheCpu) {
  RefTensor out;
  std::string why;
  EXPECT_FALSE(MatmulOnCuda(Random({4}, 1), Random({4, 2}, 2), Arith{Format::kF32, Format::kF32},
                            out, &why));
  EXPECT_FALSE(why.empty());
  EXPECT_FALSE(MatmulOnCuda(Random({2, 4}, 1), Random({4, 2}, 2), Arith{Format::kI32, Format::kI32},
                            out, &why));
  EXPECT_FALSE(why.empty());
}

TEST(StagesCuda, FallBackToTheCpuLoopsWhereTheGpuDeclines) {
  // A 1-D product is always left to the CPU: the stage must still give Matmul's result, GPU or not.
  Stages stages = CudaStages();
  RefTensor a = Random({5}, 1), b = Random({5, 3}, 2);
  Arith arith{Format::kF32, Format::kF32};
  RefTensor staged = stages.matmul(a, b, arith), cpu = Matmul(a, b, arith);
  EXPECT_EQ(staged.val, cpu.val);
  EXPECT_EQ(staged.err, cpu.err);
  std::string why;
  if (CudaDeviceAvailable(&why)) return;
  RefTensor s = stages.softmax(b, 1, arith), c = Softmax(b, 1, arith);  // no GPU: the CPU loop
  EXPECT_EQ(s.val, c.val);
}

}  // namespace
}  // namespace mmref
