// Tests for attention's backward: gradients against central differences of the reference forward
// (float64, so the differences are accurate), with causal, additive-mask and grouped-query cases;
// finite bounds that a backward leaving out a term breaks; and degenerate inputs unjudged.
#include "kernels/attention_backward.h"

#include <gtest/gtest.h>

#include <cmath>

#include "kernels/random_tensor_test_util.h"

namespace mmref {
namespace {

constexpr Arith kF64{Format::kF64, Format::kF64};
constexpr Arith kF32{Format::kF32, Format::kF32};

// Σ out ⊙ g of the forward, for central differences.
double Loss(const RefTensor& q, const RefTensor& k, const RefTensor& v, const RefTensor& g,
            const AttentionArgs& args) {
  RefTensor out = ScaledDotProductAttention(q, k, v, args, kF64);
  double s = 0;
  for (size_t i = 0; i < out.val.size(); ++i) s += out.val[i] * g.val[i];
  return s;
}

// Each gradient element against (L(x + h) − L(x − h)) / 2h, perturbing copies of the operands.
void ExpectMatchesDifferences(RefTensor q, RefTensor k, RefTensor v, const RefTensor& g,
                              AttentionArgs args) {
  RefTensor mask = args.mask ? *args.mask : RefTensor{};
  if (args.mask) args.mask = &mask;
  AttentionGrads d = ScaledDotProductAttentionBackward(q, k, v, g, args, kF64);
  ASSERT_EQ(d.dq.shape, q.shape);
  ASSERT_EQ(d.dk.shape, k.shape);
  ASSERT_EQ(d.dv.shape, v.shape);
  const double h = 1e-6;
  auto check = [&](RefTensor& x, const RefTensor& dx, const char* what) {
    for (size_t i = 0; i < x.val.size(); ++i) {
      const double keep = x.val[i];
      x.val[i] = keep + h;
      const double up = Loss(q, k, v, g, args);
      x.val[i] = keep - h;
      const double down = Loss(q, k, v, g, args);
      x.val[i] = keep;
      EXPECT_NEAR(dx.val[i], (up - down) / (2 * h), 1e-6) << what << " " << i;
      EXPECT_TRUE(std::isfinite(dx.err[i])) << what << " " << i;
    }
  };
  check(q, d.dq, "dq");
  check(k, d.dk, "dk");
  check(v, d.dv, "dv");
  if (args.mask && !args.mask_is_bool) {
    ASSERT_EQ(d.dmask.shape, mask.shape);
    check(mask, d.dmask, "dmask");
  }
}

TEST(AttentionBackward, MatchesCentralDifferencesPlainCausalMaskedAndGrouped) {
  RefTensor q = RandomFloat32Tensor({2, 3, 4}, 1), k = RandomFloat32Tensor({2, 5, 4}, 2),
            v = RandomFloat32Tensor({2, 5, 3}, 3);
  RefTensor g = RandomFloat32Tensor({2, 3, 3}, 4);
  ExpectMatchesDifferences(q, k, v, g, {});
  AttentionArgs causal;
  causal.is_causal = true;
  causal.scale = 0.7;
  ExpectMatchesDifferences(q, k, v, g, causal);
  RefTensor mask = RandomFloat32Tensor({3, 5}, 5);
  AttentionArgs additive;
  additive.mask = &mask;
  ExpectMatchesDifferences(q, k, v, g, additive);
  // Four query heads share two key/value heads.
  RefTensor q4 = RandomFloat32Tensor({1, 4, 3, 2}, 6), k2 = RandomFloat32Tensor({1, 2, 5, 2}, 7),
            v2 = RandomFloat32Tensor({1, 2, 5, 3}, 8);
  RefTensor g4 = RandomFloat32Tensor({1, 4, 3, 3}, 9);
  AttentionArgs gqa;
  gqa.enable_gqa = true;
  ExpectMatchesDifferences(q4, k2, v2, g4, gqa);
}

TEST(AttentionBackward, BoundsHoldForFloat32AndADroppedTermBreaksThem) {
  RefTensor q = RandomFloat32Tensor({3, 8}, 11), k = RandomFloat32Tensor({6, 8}, 12),
            v = RandomFloat32Tensor({6, 4}, 13);
  RefTensor g = RandomFloat32Tensor({3, 4}, 14);
  AttentionGrads exact = ScaledDotProductAttentionBackward(q, k, v, g, {}, kF64);
  AttentionGrads f32 = ScaledDotProductAttentionBackward(q, k, v, g, {}, kF32);
  for (size_t i = 0; i < f32.dv.val.size(); ++i) {
    EXPECT_GT(f32.dv.err[i], 0);
    EXPECT_LT(f32.dv.err[i], 1e-4);
    EXPECT_NEAR(f32.dv.val[i], exact.dv.val[i], 1e-12);
  }
  // dv[j] = Σ_i P[i][j] g[i]: leaving out query row 0's term is far outside the bound.
  AttentionStages a = AttentionProbabilities(q, k, v, {}, kF64);
  for (int64_t j = 0; j < 6; ++j)
    for (int64_t c = 0; c < 4; ++c) {
      size_t e = static_cast<size_t>(j * 4 + c);
      double term = a.probs.val[static_cast<size_t>(j)] * g.val[static_cast<size_t>(c)];
      if (std::fabs(term) > 1e-3) {
        EXPECT_GT(std::fabs(f32.dv.val[e] - term - exact.dv.val[e]), f32.dv.err[e]);
      }
    }
}

TEST(AttentionBackward, SpecialValuesAndEmptyKeysLeaveEveryGradientUnjudged) {
  RefTensor q = RandomFloat32Tensor({2, 4}, 21), k = RandomFloat32Tensor({3, 4}, 22),
            v = RandomFloat32Tensor({3, 2}, 23);
  RefTensor g = RandomFloat32Tensor({2, 2}, 24);
  g.val[1] = NAN;
  AttentionGrads d = ScaledDotProductAttentionBackward(q, k, v, g, {}, kF32);
  for (double e : d.dq.err) EXPECT_TRUE(std::isinf(e));
  for (double e : d.dv.err) EXPECT_TRUE(std::isinf(e));
  RefTensor none = MakeExact({0, 4}, {}), vnone = MakeExact({0, 2}, {});
  d = ScaledDotProductAttentionBackward(q, none, vnone, RandomFloat32Tensor({2, 2}, 25), {}, kF32);
  for (double e : d.dq.err) EXPECT_TRUE(std::isinf(e));
}

}  // namespace
}  // namespace mmref

namespace mmref {
namespace {

TEST(AttentionBackward, AFloat16RowsumFromTheRoundedOutputIsWithinTheBound) {
  // Seen on torch 2.15.0 cpu under a float16 autocast region: one query row whose weights are
  // nearly one-hot; every path's float16 dq element was 9.21487808e-05 where float64 on the same
  // rounded operands gives 0.0046 (flash attention's backward takes Σ P dP as rowsum(g ⊙ O)
  // from the float16 output O).
  RefTensor q = MakeExact({1, 5}, {-16, -8, -1, 8, 4});
  RefTensor k = MakeExact(
      {4, 5}, {0, 1, 4, 4, 8, 1, -3, -2, 3, 1, -1, 0, -16, -0.0625, 0, -3, -2, 4, -0.125, -2});
  RefTensor v = MakeExact(
      {4, 5}, {-1, 0, 4, 16, -4, -4, 1, -2, 3, 2, 0.125, -0.25, 0.125, -2, -3, 0, 16, 2, -0.5, 8});
  RefTensor mask = MakeExact({1, 4}, {1, 0, 1, 0});
  RefTensor g = MakeExact({1, 5}, {0, 1, 3, 0.25, 4});
  AttentionArgs args;
  args.mask = &mask;
  args.mask_is_bool = true;
  constexpr Arith kF16{Format::kF16, Format::kF16};
  AttentionGrads d = ScaledDotProductAttentionBackward(q, k, v, g, args, kF16);
  EXPECT_NEAR(d.dq.val[4], 0.0046184945676043115, 1e-4);
  EXPECT_LE(std::fabs(9.21487808e-05 - d.dq.val[4]), d.dq.err[4]);
  // The same computation in float64 has no such slack.
  AttentionGrads exact = ScaledDotProductAttentionBackward(q, k, v, g, args, kF64);
  EXPECT_GT(std::fabs(9.21487808e-05 - exact.dq.val[4]), exact.dq.err[4]);
}

}  // namespace
}  // namespace mmref
