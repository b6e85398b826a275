// Tests for reference softmax and attention: values against direct formulas, special rows, and
// bounds that accept a float32 computation but not a perturbed one.
#include "kernels/attention_ops.h"

#include <gtest/gtest.h>

#include <cmath>

namespace mmref {
namespace {

constexpr Arith kF32{Format::kF32, Format::kF32};

TEST(Softmax, MatchesTheFormulaAndAFloatComputationIsWithinBounds) {
  RefTensor a = MakeExact({2, 3}, {1.0, 2.0, 3.0, -1.0, 0.5, 0.25});
  RefTensor r = Softmax(a, 1, kF32);
  for (int row = 0; row < 2; ++row) {
    double sum = 0;
    for (int j = 0; j < 3; ++j) sum += std::exp(a.val[row * 3 + j]);
    float fsum = 0;
    for (int j = 0; j < 3; ++j) fsum += std::exp(static_cast<float>(a.val[row * 3 + j]));
    for (int j = 0; j < 3; ++j) {
      double want = std::exp(a.val[row * 3 + j]) / sum;
      EXPECT_NEAR(r.val[row * 3 + j], want, 1e-15);
      float got = std::exp(static_cast<float>(a.val[row * 3 + j])) / fsum;
      EXPECT_LE(std::fabs(got - r.val[row * 3 + j]), r.err[row * 3 + j]);
      EXPECT_GT(std::fabs(got * 1.001 - r.val[row * 3 + j]),
                r.err[row * 3 + j]);  // a wrong one fails
    }
  }
}

TEST(Softmax, AlongAnInnerDimAndSpecialRows) {
  RefTensor a = MakeExact({2, 2}, {0.0, 5.0, 0.0, 5.0});
  RefTensor r = Softmax(a, 0, kF32);  // columns: each is [0, 0] -> 0.5
  for (double p : r.val) EXPECT_DOUBLE_EQ(p, 0.5);
  RefTensor s =
      Softmax(MakeExact({3, 2}, {-INFINITY, -INFINITY, 1.0, -INFINITY, NAN, 0.0}), 1, kF32);
  EXPECT_TRUE(std::isnan(s.val[0]) && s.err[0] == 0);  // every entry -inf: NaN
  EXPECT_EQ(s.val[2], 1.0);
  EXPECT_EQ(s.val[3], 0.0);  // a masked entry is exactly 0
  EXPECT_EQ(s.err[3], 0.0);
  EXPECT_TRUE(std::isnan(s.val[5]) && s.err[5] == 0);  // NaN spreads over the row
}

RefTensor Iota(std::vector<int64_t> shape, double scale) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = std::fmod(i * 0.37, 2.0) * scale - scale;
  return MakeExact(shape, v);
}

TEST(Attention, EqualsTheDecompositionWithCausalMaskingTopLeft) {
  RefTensor q = Iota({1, 2, 3, 4}, 1.0), k = Iota({1, 2, 5, 4}, 0.5), v = Iota({1, 2, 5, 2}, 2.0);
  AttentionArgs args;
  args.is_causal = true;
  RefTensor r = ScaledDotProductAttention(q, k, v, args, kF32);
  ASSERT_EQ(r.shape, (std::vector<int64_t>{1, 2, 3, 2}));
  for (int h = 0; h < 2; ++h)
    for (int i = 0; i < 3; ++i) {
      double w[5], sum = 0;
      for (int j = 0; j < 5; ++j) {
        double dot = 0;
        for (int e = 0; e < 4; ++e)
          dot += q.val[((h * 3) + i) * 4 + e] * k.val[((h * 5) + j) * 4 + e];
        w[j] = j > i ? 0.0 : std::exp(dot / 2.0);  // scale 1/sqrt(4)
        sum += w[j];
      }
      for (int c = 0; c < 2; ++c) {
        double out = 0;
        for (int j = 0; j < 5; ++j) out += w[j] / sum * v.val[((h * 5) + j) * 2 + c];
        EXPECT_NEAR(r.val[((h * 3) + i) * 2 + c], out, 1e-12);
      }
    }
}

TEST(Attention, FullyMaskedRowsGiveZeroAndGqaRepeatsHeads) {
  RefTensor q = Iota({4, 2, 3}, 1.0), k = Iota({2, 3, 3}, 1.0), v = Iota({2, 3, 2}, 1.0);
  RefTensor mask = MakeExact({2, 3}, {0, 0, 0, 1, 0, 1});  // row 0 attends nothing
  AttentionArgs args;
  args.mask = &mask;
  args.mask_is_bool = true;
  args.enable_gqa = true;
  RefTensor r = ScaledDotProductAttention(q, k, v, args, kF32);
  ASSERT_EQ(r.shape, (std::vector<int64_t>{4, 2, 2}));
  for (int h = 0; h < 4; ++h) {
    EXPECT_EQ(r.val[h * 4 + 0], 0.0);
    EXPECT_EQ(r.val[h * 4 + 1], 0.0);
  }
  // Query heads 0 and 1 share kv head 0, so with equal queries they would agree; check head 2 uses
  // kv head 1: its row 1 averages v rows 0 and 2 of kv head 1 with softmax weights.
  RefTensor q2 = MakeExact({1, 1, 3}, {q.val[2 * 6 + 3], q.val[2 * 6 + 4], q.val[2 * 6 + 5]});
  RefTensor k1 = MakeExact({1, 3, 3}, std::vector<double>(k.val.begin() + 9, k.val.end()));
  RefTensor v1 = MakeExact({1, 3, 2}, std::vector<double>(v.val.begin() + 6, v.val.end()));
  RefTensor m1 = MakeExact({1, 3}, {1, 0, 1});
  AttentionArgs one;
  one.mask = &m1;
  one.mask_is_bool = true;
  RefTensor single = ScaledDotProductAttention(q2, k1, v1, one, kF32);
  EXPECT_NEAR(r.val[2 * 4 + 2], single.val[0], 1e-14);
  EXPECT_NEAR(r.val[2 * 4 + 3], single.val[1], 1e-14);
}

}  // namespace
}  // namespace mmref

namespace mmref {
namespace {

TEST(Attention, NoKeysGiveZerosButANaNQueryLeavesThemUnjudged) {
  RefTensor q = MakeExact({1, 2, 3}, {1, 2, 3, 4, 5, 6}), k = MakeExact({1, 0, 3}, {}),
            v = MakeExact({1, 0, 2}, {});
  RefTensor r =
      ScaledDotProductAttention(q, k, v, AttentionArgs{}, Arith{Format::kF16, Format::kF32});
  ASSERT_EQ(r.shape, (std::vector<int64_t>{1, 2, 2}));
  for (size_t i = 0; i < r.val.size(); ++i) {
    EXPECT_EQ(r.val[i], 0.0);
    EXPECT_FALSE(std::isinf(r.err[i]));
  }
  q.val[4] =
      NAN;  // torch's kernels give NaN everywhere here (2.15.0 cpu), the sum over no key is 0
  RefTensor n =
      ScaledDotProductAttention(q, k, v, AttentionArgs{}, Arith{Format::kF16, Format::kF32});
  for (double e : n.err) EXPECT_TRUE(std::isinf(e));
}

// Stages substitute the products and the softmax inside composite ops (the CUDA build does):
// these stand-ins count their calls and double their results, so the plumbing is observable.
int product_calls = 0, softmax_calls = 0;
RefTensor DoubledProduct(const RefTensor& a, const RefTensor& b, Arith arith) {
  ++product_calls;
  RefTensor r = Matmul(a, b, arith);
  for (double& x : r.val) x *= 2;
  return r;
}
RefTensor CountedSoftmax(const RefTensor& a, int64_t dim, Arith arith) {
  ++softmax_calls;
  return Softmax(a, dim, arith);
}

TEST(Stages, AttentionAndAddmmRunTheirProductsAndSoftmaxThroughTheGivenStages) {
  RefTensor q = MakeExact({2, 2}, {1, 0, 0, 1}), k = MakeExact({2, 2}, {1, 0, 0, 1}),
            v = MakeExact({2, 2}, {1, 2, 3, 4});
  Stages stages{DoubledProduct, CountedSoftmax};
  RefTensor plain = ScaledDotProductAttention(q, k, v, AttentionArgs{}, kF32);
  RefTensor staged = ScaledDotProductAttention(q, k, v, AttentionArgs{}, kF32, stages);
  EXPECT_EQ(product_calls, 2);
  EXPECT_EQ(softmax_calls, 1);
  ASSERT_EQ(staged.val.size(), plain.val.size());
  EXPECT_NE(staged.val[0], plain.val[0]);  // the doubled scores and output show through
  RefTensor bias = MakeExact({2}, {0, 0});
  RefTensor sum = Addmm(bias, q, v, 1.0, 1.0, kF32, stages);
  EXPECT_EQ(product_calls, 3);
  EXPECT_EQ(sum.val, (std::vector<double>{2, 4, 6, 8}));
}
TEST(Attention, AScoreWhoseUnscaledProductMayOverflowIsUnjudged) {
  // Fused kernels multiply q by k before scaling: 3 * 1.7e38 overflows float32 there, though the
  // scaled score (51) does not (torch 2.15.0 cpu gives NaN under a mask).
  Arith f32{Format::kF32, Format::kF32};
  RefTensor q = MakeExact({1, 1}, {3}), k = MakeExact({1, 1}, {1.7014117331926443e38}),
            v = MakeExact({1, 1}, {1});
  AttentionArgs args;
  args.scale = 1e-37;
  EXPECT_TRUE(std::isinf(ScaledDotProductAttention(q, k, v, args, f32).err[0]));
  RefTensor small = MakeExact({1, 1}, {2});
  EXPECT_FALSE(std::isinf(ScaledDotProductAttention(q, small, v, args, f32).err[0]));
}

TEST(Softmax, AProbabilityBelowTheSmallestNormalMayBeZero) {
  // exp(-95.3) is 4e-42 in float64 and a float32 subnormal; ATen's vectorized float32 exp gives 0.
  RefTensor r = Softmax(MakeExact({1, 2}, {0, -95.3125}), 1, kF32);
  EXPECT_GT(r.val[1], 0);
  EXPECT_GE(r.err[1], r.val[1]);
  EXPECT_LT(r.err[1], 1e-37);  // and no more than a few smallest normals
  EXPECT_LT(r.err[0], 1e-4);   // the spread's rounding (2 * 95 * 2^-24), as before
}

TEST(Attention, AHugeValueTimesAProbabilityFlushedToZeroIsWithinTheBound) {
  // Found by a campaign on torch 2.15.0 cpu: a value of 3.4e38 under a weight of 4e-42 adds
  // 0.00137 to -4 in float64; eager, inductor and TorchScript all give -4 (the weight flushed).
  RefTensor q = MakeExact({1, 1}, {1}), k = MakeExact({2, 1}, {0, -95.3125}),
            v = MakeExact({2, 1}, {-4, 3.4028234663852886e38});
  AttentionArgs args;
  args.scale = 1;
  RefTensor out = ScaledDotProductAttention(q, k, v, args, kF32);
  EXPECT_NEAR(out.val[0], -4 + 3.4028234663852886e38 * std::exp(-95.3125), 1e-12);
  EXPECT_LE(std::fabs(-4 - out.val[0]), out.err[0]);
  EXPECT_LT(out.err[0], 8);  // judged: 3.4e38 times a few smallest normals
}

TEST(Softmax, LogitsTooFarApartForTheBoundAreUnjudgedNotNaN) {
  // Found by fuzz/reference_fuzzer: a spread near 1e308 overflows the relative term; 0 * inf was
  // NaN.
  RefTensor r = Softmax(MakeExact({1, 2}, {1.875, -1.7e308}), 1, Arith{Format::kF64, Format::kF64});
  for (double e : r.err) EXPECT_FALSE(std::isnan(e));
  EXPECT_TRUE(std::isinf(r.err[1]));
}

}  // namespace
}  // namespace mmref
