// Tests for the reference ops: values against naive loops, and error bounds that hold for correct
// low-precision arithmetic but fail for a wrong one.
#include "kernels/reference_ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace mmref {
namespace {

RefTensor Random(std::vector<int64_t> shape, uint64_t seed, double scale = 1.0) {
  std::mt19937_64 g(seed);
  std::uniform_int_distribution<int> d(-32, 32);
  int64_t n = 1;
  for (auto s : shape) n *= s;
  std::vector<double> v(n);
  for (auto& x : v) x = d(g) / 16.0 * scale;
  return MakeExact(shape, v);
}

constexpr Arith kF32{Format::kF32, Format::kF32};

TEST(ReferenceOps, MmMatchesNaiveLoops) {
  RefTensor a = Random({3, 5}, 1), b = Random({5, 4}, 2);
  RefTensor r = Matmul(a, b, kF32);
  ASSERT_EQ(r.shape, (std::vector<int64_t>{3, 4}));
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      double s = 0;
      for (int k = 0; k < 5; ++k) s += a.val[i * 5 + k] * b.val[k * 4 + j];
      EXPECT_EQ(r.val[i * 4 + j], s);
    }
}

TEST(ReferenceOps, QuantumIsTheLeastPowerOfTwoEveryElementIsAMultipleOf) {
  const double min_sub = std::numeric_limits<double>::denorm_min();
  const double max = std::numeric_limits<double>::max();
  EXPECT_EQ(Quantum(MakeExact({3}, {0.0, -0.0, 0.0})), std::numeric_limits<double>::infinity());
  EXPECT_EQ(Quantum(MakeExact({1}, {1.0})), 1.0);
  EXPECT_EQ(Quantum(MakeExact({1}, {-12.0})), 4.0);
  EXPECT_EQ(Quantum(MakeExact({2}, {0.75, 1024.0})), 0.25);
  EXPECT_EQ(Quantum(MakeExact({1}, {1.0 + 0x1p-52})), 0x1p-52);
  EXPECT_EQ(Quantum(MakeExact({1}, {max})), 0x1p971);  // 53 ones ending at 2^1023
  EXPECT_EQ(Quantum(MakeExact({1}, {0x1p-1022})), 0x1p-1022);
  EXPECT_EQ(Quantum(MakeExact({2}, {6 * min_sub, 0x1p-1000})), 2 * min_sub);  // subnormal
  EXPECT_EQ(Quantum(MakeExact({1}, {min_sub})), min_sub);
  // A window of the tensor: only [offset, offset + count) counts.
  RefTensor t = MakeExact({4}, {0.125, 3.0, 6.0, 0.5});
  EXPECT_EQ(Quantum(t, 1, 2), 1.0);
  EXPECT_EQ(Quantum(t, 2, 2), 0.5);
  EXPECT_EQ(Quantum(t), 0.125);
}

TEST(ReferenceOps, BatchedMatmulEqualsStackedMm) {
  RefTensor a = Random({2, 1, 3, 5}, 3), b = Random({4, 5, 2}, 4);
  RefTensor r = Matmul(a, b, kF32);
  ASSERT_EQ(r.shape, (std::vector<int64_t>{2, 4, 3, 2}));
  for (int x = 0; x < 2; ++x)
    for (int y = 0; y < 4; ++y) {
      RefTensor am, bm;
      am.shape = {3, 5};
      am.val.assign(a.val.begin() + x * 15, a.val.begin() + x * 15 + 15);
      am.err.assign(15, 0);
      bm.shape = {5, 2};
      bm.val.assign(b.val.begin() + y * 10, b.val.begin() + y * 10 + 10);
      bm.err.assign(10, 0);
      RefTensor mm = Matmul(am, bm, kF32);
      for (int e = 0; e < 6; ++e) EXPECT_EQ(r.val[(x * 4 + y) * 6 + e], mm.val[e]);
    }
}

TEST(ReferenceOps, VectorOperandsFollowMatmulRules) {
  RefTensor v = Random({5}, 5), m = Random({5, 3}, 6);
  EXPECT_EQ(Matmul(v, v, kF32).shape, std::vector<int64_t>{});
  EXPECT_EQ(Matmul(v, m, kF32).shape, std::vector<int64_t>{3});
  RefTensor batched = Random({2, 3, 5}, 7);
  EXPECT_EQ(Matmul(batched, v, kF32).shape, (std::vector<int64_t>{2, 3}));
}

TEST(ReferenceOps, AddmmBroadcastsBiasAndBetaZeroIgnoresNaN) {
  RefTensor a = Random({2, 3}, 8), b = Random({3, 4}, 9);
  RefTensor bias = MakeExact({4}, {1, 2, 3, 4});
  RefTensor r = Addmm(bias, a, b, 2.0, 0.5, kF32);
  RefTensor mm = Matmul(a, b, kF32);
  for (int i = 0; i < 8; ++i) EXPECT_DOUBLE_EQ(r.val[i], 0.5 * bias.val[i % 4] + 2.0 * mm.val[i]);
  RefTensor nan_bias = MakeExact({2, 1}, {NAN, NAN});
  RefTensor z = Addmm(nan_bias, a, b, 1.0, 0.0, kF32);
  for (int i = 0; i < 8; ++i) {
    EXPECT_FALSE(std::isnan(z.val[i]));
    EXPECT_FALSE(std::isinf(z.err[i]));
  }
}

// A float32 dot product in the given order, optionally rounding every partial sum to float16.
double LowPrecisionDot(const RefTensor& a, const RefTensor& b, int64_t k, bool fp16_accumulate) {
  float s = 0;
  for (int64_t i = 0; i < k; ++i) {
    s += static_cast<float>(a.val[i]) * static_cast<float>(b.val[i]);
    if (fp16_accumulate) s = static_cast<float>(RoundTo(Format::kF16, s));
  }
  return RoundTo(Format::kF16, s);
}

TEST(ReferenceOps, BoundHoldsForCorrectArithmeticAndCatchesFp16Accumulation) {
  const int64_t k = 4096;
  // Positive terms: the running sum grows, so a float16 accumulator loses whole ulps at every step.
  RefTensor a = Random({1, k}, 10, 3.7), b = Random({k, 1}, 11, 1.3);
  for (double& x : a.val) x = std::fabs(x);
  for (double& x : b.val) x = std::fabs(x);
  RefTensor r = Matmul(a, b, Arith{Format::kF16, Format::kF32});
  double correct = LowPrecisionDot(a, b, k, false);
  double sloppy = LowPrecisionDot(a, b, k, true);
  EXPECT_LE(std::fabs(correct - r.val[0]), r.err[0]);
  EXPECT_GT(std::fabs(sloppy - r.val[0]), r.err[0]) << "fp16 accumulation must exceed the bound";
}

TEST(ReferenceOps, CastOfExactValuesIsExactAndOfInexactOnesWidensTheBound) {
  RefTensor x = MakeExact({3}, {1.0 + std::ldexp(1, -20), 2.0, -0.0});
  RefTensor c = Cast(x, Format::kF16);
  EXPECT_EQ(c.val[0], 1.0);
  EXPECT_EQ(c.err[0], 0.0);
  x.err = {1e-3, 0, 0};
  EXPECT_GT(Cast(x, Format::kF16).err[0], 1e-3);
}

TEST(ReferenceOps, PossibleOverflowAllowsTheInfinityOfItsSignOnly) {
  RefTensor a = MakeExact({1, 2}, {60000, 60000}), b = MakeExact({2, 1}, {1, 1});
  RefTensor r = Matmul(a, b, Arith{Format::kF16, Format::kF32});
  EXPECT_EQ(r.val[0], 120000);  // beyond float16's range: rounds to +inf, never to -inf or NaN
  EXPECT_EQ(r.Also(0), kAlsoPosInf);
  RefTensor small = Matmul(MakeExact({1, 2}, {3, 4}), b, Arith{Format::kF16, Format::kF32});
  EXPECT_EQ(small.Also(0), 0);  // far from the range: a non-finite result is wrong
}

}  // namespace
}  // namespace mmref

namespace mmref {
namespace {

TEST(ReferenceOps, TransposeLast2SwapsEveryMatrix) {
  RefTensor a = Random({2, 2, 3}, 12);
  RefTensor t = TransposeLast2(a);
  ASSERT_EQ(t.shape, (std::vector<int64_t>{2, 3, 2}));
  for (int m = 0; m < 2; ++m)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j) EXPECT_EQ(t.val[m * 6 + j * 2 + i], a.val[m * 6 + i * 3 + j]);
}

TEST(ReferenceOps, FoldedAddbmmEqualsTheSumOfBatchedProducts) {
  RefTensor a = Random({3, 2, 4}, 13), b = Random({3, 4, 5}, 14), fa, fb;
  FoldBatchIntoK(a, b, fa, fb);
  RefTensor folded = Matmul(fa, fb, kF32);
  RefTensor batched = Matmul(a, b, kF32);
  ASSERT_EQ(folded.shape, (std::vector<int64_t>{2, 5}));
  for (int e = 0; e < 10; ++e) {
    double sum = 0;
    for (int x = 0; x < 3; ++x) sum += batched.val[x * 10 + e];
    EXPECT_DOUBLE_EQ(folded.val[e], sum);
  }
}

TEST(ReferenceOps, AddScaledBroadcastsABatchedBias) {
  RefTensor prod = Random({2, 3, 4}, 15);
  RefTensor bias = MakeExact({3, 1}, {1, 2, 3});
  RefTensor r = AddScaled(bias, prod, -1.0, 2.0, kF32);
  for (int x = 0; x < 2; ++x)
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 4; ++j) {
        int o = (x * 3 + i) * 4 + j;
        EXPECT_DOUBLE_EQ(r.val[o], 2.0 * bias.val[i] - prod.val[o]);
      }
}

}  // namespace
}  // namespace mmref

namespace mmref {
namespace {

TEST(ReferenceOps, ViewsMoveValuesLikeTorch) {
  RefTensor a = MakeExact({2, 3}, {0, 1, 2, 3, 4, 5});
  EXPECT_EQ(Permute(a, {1, 0}).val, (std::vector<double>{0, 3, 1, 4, 2, 5}));
  EXPECT_EQ(Narrow(a, 1, 1, 2).val, (std::vector<double>{1, 2, 4, 5}));
  EXPECT_EQ(Narrow(a, 0, 1, 1).val, (std::vector<double>{3, 4, 5}));
  EXPECT_EQ(Reshape(a, {3, 2}).shape, (std::vector<int64_t>{3, 2}));
  RefTensor row = MakeExact({1, 3}, {7, 8, 9});
  RefTensor e = Expand(row, {2, 2, 3});
  EXPECT_EQ(e.val, (std::vector<double>{7, 8, 9, 7, 8, 9, 7, 8, 9, 7, 8, 9}));
  RefTensor b = MakeExact({2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  EXPECT_EQ(Permute(b, {2, 0, 1}).val, (std::vector<double>{0, 2, 4, 6, 1, 3, 5, 7}));
}

}  // namespace
}  // namespace mmref

namespace mmref {
namespace {

TEST(ReferenceOps, AddBroadcastsAndScaleScales) {
  RefTensor a = MakeExact({2, 3}, {0, 1, 2, 3, 4, 5}), row = MakeExact({3}, {10, 20, 30});
  RefTensor s = Add(a, row, {2, 3}, Format::kF32);
  EXPECT_EQ(s.val, (std::vector<double>{10, 21, 32, 13, 24, 35}));
  for (double e : s.err) EXPECT_GT(e, 0);  // one float32 rounding allowed
  RefTensor h = Scale(a, -0.5, Format::kF16);
  EXPECT_EQ(h.val[3], -1.5);
  RefTensor big = Scale(MakeExact({1}, {60000}), -2.0, Format::kF16);
  EXPECT_EQ(big.Also(0), kAlsoNegInf);  // beyond float16's range: -inf, nothing else special
}

}  // namespace
}  // namespace mmref

namespace mmref {
namespace {

constexpr Arith kF16Acc32{Format::kF16, Format::kF32};

TEST(ReferenceOpsSpecial, ANonFiniteValueDecidesOnlyTheElementsOfItsRowAndColumn) {
  // Batch 0 has a NaN in row 0; row 1 of batch 0 and batch 1 never meet it.
  RefTensor a = MakeExact({2, 2, 2}, {1.0, NAN, 2.0, 3.0, 1.0, 1.0, 2.0, 3.0}),
            b = MakeExact({2, 1}, {1.0, 1.0});
  RefTensor r = Matmul(a, b, kF16Acc32);
  EXPECT_TRUE(std::isnan(r.val[0]));  // exactly NaN: its own row holds the NaN
  EXPECT_EQ(r.err[0], 0.0);
  EXPECT_EQ(r.Also(0), 0);
  EXPECT_EQ(r.val[1], 5.0);  // its own row is finite: judged as any finite element
  EXPECT_LT(r.err[1], 1e-2);
  EXPECT_EQ(r.Also(1), 0);
  EXPECT_EQ(r.val[2], 2.0);
}

TEST(ReferenceOpsSpecial, PartialSumsThatMayOverflowTheAccumulatorAllowBothInfinitiesAndNaN) {
  RefTensor big = Matmul(MakeExact({1, 3}, {3e38, -3e38, 1.0}), MakeExact({3, 1}, {1.0, 1.0, 1.0}),
                         Arith{Format::kF32, Format::kF32});
  EXPECT_EQ(big.val[0], 1.0);  // the exact sum, if no partial sum overflowed
  EXPECT_EQ(big.Also(0), kAlsoPosInf | kAlsoNegInf | kAlsoNaN);
}

TEST(ReferenceOpsSpecial, BetaZeroIgnoresANaNBiasAndAlphaZeroWithANaNProductGivesTheBiasOrNaN) {
  RefTensor bias = MakeExact({1, 1}, {NAN}), a = MakeExact({1, 1}, {2.0}),
            b = MakeExact({1, 1}, {3.0});
  RefTensor r = Addmm(bias, a, b, 1.0, 0.0, kF16Acc32);
  EXPECT_EQ(r.val[0], 6.0);
  EXPECT_LT(r.err[0], 1e-2);
  RefTensor n = Addmm(MakeExact({1, 1}, {1.0}), MakeExact({1, 1}, {NAN}), b, 0.0, 1.0, kF16Acc32);
  EXPECT_EQ(n.val[0], 1.0);        // the product skipped ...
  EXPECT_EQ(n.Also(0), kAlsoNaN);  // ... or computed: 0 * NaN
  EXPECT_FALSE(std::isinf(n.err[0]));
  RefTensor keep = Addmm(bias, a, b, 1.0, 1.0, kF16Acc32);
  EXPECT_TRUE(std::isnan(keep.val[0]));
  EXPECT_EQ(keep.err[0], 0.0);
}

TEST(ReferenceOpsInteger, Int8MatmulWrapsLikeTwosComplement) {
  RefTensor a = MakeExact({1, 3}, {100, 100, 100}), b = MakeExact({3, 1}, {100, 100, 100});
  RefTensor r = Matmul(a, b, Arith{Format::kI8, Format::kI8});
  EXPECT_EQ(r.val[0], static_cast<double>(static_cast<int8_t>(30000 & 0xFF)));
  EXPECT_EQ(r.err[0], 0.0);
  RefTensor u =
      Matmul(MakeExact({1, 1}, {200}), MakeExact({1, 1}, {2}), Arith{Format::kU8, Format::kU8});
  EXPECT_EQ(u.val[0], 400 - 256);
}

TEST(ReferenceOpsInteger, AddmmWithIntegerScalarsIsExact) {
  RefTensor r = Addmm(MakeExact({1}, {5}), MakeExact({1, 2}, {3, 4}), MakeExact({2, 1}, {1, 2}), 2,
                      3, Arith{Format::kI32, Format::kI32});
  EXPECT_EQ(r.val[0], 3 * 5 + 2 * 11);
  EXPECT_EQ(r.err[0], 0.0);
}

TEST(ReferenceOpsInteger, FloatToIntegerCastsTruncateAndOutOfRangeIsUnknown) {
  RefTensor r = Cast(MakeExact({5}, {2.75, -2.75, 1e10, NAN, 127.5}), Format::kI8);
  EXPECT_EQ(r.val[0], 2.0);
  EXPECT_EQ(r.val[1], -2.0);
  EXPECT_EQ(r.err[0], 0.0);
  EXPECT_TRUE(std::isinf(r.err[2]));
  EXPECT_TRUE(std::isinf(r.err[3]));
  EXPECT_EQ(r.val[4], 127.0);
  RefTensor wrap = Cast(MakeExact({1}, {300}), Format::kI8, Format::kI32);
  EXPECT_EQ(wrap.val[0], 44.0);
  EXPECT_EQ(wrap.err[0], 0.0);
  RefTensor b = Cast(MakeExact({3}, {0.0, -0.5, NAN}), Format::kBool);
  EXPECT_EQ(b.val, (std::vector<double>{0, 1, 1}));
}

}  // namespace
}  // namespace mmref

namespace mmref {
namespace {

// Hand-computed bounds: |correct - val| <= (gamma_K(u_acc) + gamma_K(u_64)) * sum|a||b|
//                                           + u_out * (|val| + that) + smallest subnormal of out.
double HandBound(double val, double mag, long k, Format acc, Format out) {
  double before = (Gamma(k, UnitRoundoff(acc)) + Gamma(k, UnitRoundoff(Format::kF64))) * mag;
  return before + UnitRoundoff(out) * (std::fabs(val) + before) + MinSubnormal(out);
}

TEST(ReferenceBound, KZeroIsAnExactZero) {
  RefTensor r =
      Matmul(MakeExact({2, 0}, {}), MakeExact({0, 3}, {}), Arith{Format::kF16, Format::kF32});
  ASSERT_EQ(r.val.size(), 6u);
  for (size_t i = 0; i < 6; ++i) {
    EXPECT_EQ(r.val[i], 0.0);
    EXPECT_EQ(r.err[i], MinSubnormal(Format::kF16));  // only the (empty) rounding slack
  }
}

// Operands with a negligible error: not "exact", so the general bound applies.
RefTensor NearlyExact(std::vector<int64_t> shape, std::vector<double> values) {
  RefTensor t = MakeExact(std::move(shape), std::move(values));
  for (double& e : t.err) e = 1e-300;
  return t;
}

TEST(ReferenceBound, KOneIsOneProductAndOneRounding) {
  // 1.5 * 1.25 = 1.875: exact in float16, so only the output rounding term matters.
  RefTensor r = Matmul(NearlyExact({1, 1}, {1.5}), NearlyExact({1, 1}, {1.25}),
                       Arith{Format::kF16, Format::kF32});
  EXPECT_EQ(r.val[0], 1.875);
  EXPECT_DOUBLE_EQ(r.err[0], HandBound(1.875, 1.875, 1, Format::kF32, Format::kF16));
  EXPECT_LT(r.err[0], 2 * std::ldexp(1.875, -11) + 1e-6);  // about one float16 half-ulp
}

TEST(ReferenceBound, GrowsWithKAndWithACoarserAccumulator) {
  auto bound = [](int64_t k, Arith arith) {
    std::vector<double> ones(static_cast<size_t>(k), 1.0);
    RefTensor r = Matmul(NearlyExact({1, k}, ones), NearlyExact({k, 1}, ones), arith);
    EXPECT_EQ(r.val[0], static_cast<double>(k));
    return r.err[0];
  };
  Arith f32{Format::kF32, Format::kF32}, f16_out{Format::kF16, Format::kF32},
      bf16_out{Format::kBF16, Format::kF32};
  EXPECT_DOUBLE_EQ(bound(4096, f32), HandBound(4096, 4096, 4096, Format::kF32, Format::kF32));
  // The accumulation part grows like K^2 here (gamma_K * sum|ab| with sum|ab| = K): 4x K, ~16x.
  double b1 = bound(1024, f32), b4 = bound(4096, f32);
  EXPECT_GT(b4 / b1, 15.0);
  EXPECT_LT(b4 / b1, 17.0);
  // Same accumulation, coarser output: the output rounding dominates.
  EXPECT_NEAR(bound(16, f16_out), std::ldexp(16.0, -11), 1e-3);
  EXPECT_NEAR(bound(16, bf16_out), std::ldexp(16.0, -8), 1e-2);
  // A float16 accumulator (what a planted or buggy path would use) is far coarser than float32.
  EXPECT_GT(bound(256, Arith{Format::kF16, Format::kF16}), 10 * bound(256, f16_out));
}

TEST(ReferenceBound, ExactOperandsWithExactPartialSumsInAnyOrderGiveBitForBitResults) {
  // Small dyadic values: every partial sum, in any order, is exact in float32, so every correct
  // path returns RoundTo(out, sum) exactly; the bound is 0.
  RefTensor a = MakeExact({1, 3}, {0.5, 3.0, -1.25}), b = MakeExact({3, 1}, {2.0, 0.75, 4.0});
  RefTensor r = MatmulResult(a, b, Arith{Format::kF16, Format::kF32});
  EXPECT_EQ(r.val[0], 1.0 + 2.25 - 5.0);
  EXPECT_EQ(r.err[0], 0.0);
  EXPECT_GT(Matmul(a, b, Arith{Format::kF16, Format::kF32}).err[0],
            0.0);  // inside addmm: not rounded alone
  // float16 output of an exact float32 sum that float16 cannot hold: rounded once, still exact.
  RefTensor c = MatmulResult(MakeExact({1, 2}, {2049.0, 1.0}), MakeExact({2, 1}, {1.0, 0.0}),
                             Arith{Format::kF16, Format::kF32});
  EXPECT_EQ(c.val[0], 2048.0);  // 2049 rounds to even in float16
  EXPECT_EQ(c.err[0], 0.0);
  // 2^24 + 1 - 2^24: exact left to right in float64 but not in every float32 order: the general
  // bound.
  RefTensor d = MatmulResult(MakeExact({1, 3}, {16777216.0, 1.0, -16777216.0}),
                             MakeExact({3, 1}, {1.0, 1.0, 1.0}), Arith{Format::kF32, Format::kF32});
  EXPECT_EQ(d.val[0], 1.0);
  EXPECT_GT(d.err[0], 1.0);  // gamma_3(float32) * 2^25: a float32 path may well return 0 or 2
}

TEST(ReferenceBound, AddmmOfExactTermsIsBitForBitOnlyWhereNoEvaluationOrderRounds) {
  Arith f16{Format::kF16, Format::kF32};
  RefTensor a = MakeExact({2, 2}, {1, 2, 3, 4}), b = MakeExact({2, 2}, {0.5, -1, 2, 8}),
            bias = MakeExact({2}, {3, -0.25});
  // 2 * bias + 0.5 * (a @ b): small dyadic terms, every sum representable in float16.
  RefTensor r = Addmm(bias, a, b, 0.5, 2.0, f16);
  EXPECT_EQ(r.val,
            (std::vector<double>{6 + 0.5 * 4.5, -0.5 + 0.5 * 15, 6 + 0.5 * 9.5, -0.5 + 0.5 * 29}));
  for (double e : r.err) EXPECT_EQ(e, 0.0);
  // alpha = 0.3 is not a power of two: scaling rounds, so the general bound.
  for (double e : Addmm(bias, a, b, 0.3, 2.0, f16).err) EXPECT_GT(e, 0.0);
  // A bias that already carries an error.
  RefTensor rounded = bias;
  rounded.err[0] = 1e-3;
  EXPECT_GT(Addmm(rounded, a, b, 1.0, 1.0, f16).err[0], 0.0);
  // A product float16 cannot hold (2049): an unfused path rounds it before adding the bias (-1),
  // a fused one does not; both are correct, so no bit-for-bit demand for that element.
  RefTensor big = Addmm(MakeExact({1}, {-1}), MakeExact({1, 2}, {2048, 1}),
                        MakeExact({2, 1}, {1, 1}), 1.0, 1.0, f16);
  EXPECT_EQ(big.val[0], 2048.0);
  EXPECT_GT(big.err[0], 0.0);
  // Subnormal float16 operands halved by alpha lose their last bit when alpha is folded in.
  RefTensor tiny = MakeExact({1, 1}, {std::ldexp(1.0, -24)});
  EXPECT_GT(Addmm(MakeExact({1}, {0}), tiny, MakeExact({1, 1}, {1}), 0.5, 1.0, f16).err[0], 0.0);
  // beta = 0 ignores the bias entirely, errors included.
  for (double e : Addmm(rounded, a, b, 1.0, 0.0, f16).err) EXPECT_EQ(e, 0.0);
}

TEST(ReferenceBound, MixedPrecisionInputsCarryTheirErrorIntoTheProduct) {
  // An inexact operand (a float32 product already rounded) adds |b| * err(a) to the bound.
  RefTensor a = MakeExact({1, 1}, {3.0});
  a.err[0] = 1e-3;
  RefTensor r = Matmul(a, MakeExact({1, 1}, {2.0}), Arith{Format::kF32, Format::kF32});
  EXPECT_GE(r.err[0], 2.0 * 1e-3);
  EXPECT_LT(r.err[0], 2.0 * 1e-3 + 1e-5);
}

}  // namespace
}  // namespace mmref

namespace mmref {
namespace {

TEST(CastMaybeSkipped, AllowsTheUnroundedValueAndLeavesOverflowUnjudged) {
  const double x = 1.0 + 1.0 / 512;  // exact in float32, between two bfloat16 neighbours
  RefTensor a = MakeExact({4}, {x, 70000.0, std::nan(""), 3.0});
  RefTensor strict = Cast(a, Format::kBF16, Format::kF32);
  RefTensor loose = CastMaybeSkipped(a, Format::kBF16, Format::kF32);
  EXPECT_EQ(loose.val[0], strict.val[0]);
  EXPECT_EQ(strict.err[0], 0);  // an exact input rounds one way
  EXPECT_GE(loose.err[0], std::fabs(x - loose.val[0]));
  EXPECT_GT(loose.err[0], 0);
  EXPECT_TRUE(std::isnan(loose.val[2]));
  EXPECT_EQ(loose.err[3], 0);  // representable: nothing to skip
  RefTensor half = CastMaybeSkipped(a, Format::kF16, Format::kF32);
  EXPECT_TRUE(std::isinf(half.err[1]));  // 70000 overflows float16: inf or 70000, unjudged
}

}  // namespace
}  // namespace mmref
