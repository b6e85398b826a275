// Per-element classes of the reference around special values: each IEEE rule, overflow to an
// infinity of a known sign, and the unknown case, on hand-made products.
#include "kernels/value_set.h"

#include <gtest/gtest.h>

#include <cmath>

#include "kernels/reference_ops.h"

namespace mmref {
namespace {

constexpr Arith kF32{Format::kF32, Format::kF32};
constexpr double kInf = INFINITY;

// The one element of a (1 x k) @ (k x 1) product.
struct Element {
  double val, err;
  uint8_t also;
};
Element Dot(std::vector<double> a, std::vector<double> b, Arith arith = kF32) {
  int64_t k = static_cast<int64_t>(a.size());
  RefTensor r = Matmul(MakeExact({1, k}, a), MakeExact({k, 1}, b), arith);
  return {r.val[0], r.err[0], r.Also(0)};
}

TEST(ValueSet, ANaNTermGivesNaN) {
  Element e = Dot({1, NAN, 2}, {1, 1, 1});
  EXPECT_TRUE(std::isnan(e.val));
  EXPECT_EQ(e.err, 0);
  EXPECT_EQ(e.also, 0);
}

TEST(ValueSet, InfinityTimesANonzeroFiniteGivesTheInfinityOfTheProductsSign) {
  Element e = Dot({kInf, 1}, {-2, 3});
  EXPECT_EQ(e.val, -kInf);
  EXPECT_EQ(e.err, 0);
  EXPECT_EQ(e.also, 0);
  EXPECT_EQ(Dot({-kInf, 1}, {-2, 3}).val, kInf);
}

TEST(ValueSet, InfinityTimesZeroGivesNaN) {
  Element e = Dot({kInf, 1}, {0, 3});
  EXPECT_TRUE(std::isnan(e.val));
  EXPECT_EQ(e.err, 0);
  EXPECT_TRUE(std::isfinite(Dot({1, 2}, {3, 0}).val));  // no special: finite
  EXPECT_TRUE(std::isnan(Dot({0.0, 2}, {-kInf, 1}).val));
}

TEST(ValueSet, OppositeInfinitiesGiveNaN) {
  Element e = Dot({kInf, kInf}, {1, -1});
  EXPECT_TRUE(std::isnan(e.val));
  EXPECT_EQ(e.err, 0);
  Element same = Dot({kInf, -kInf}, {1, -1});  // +inf and +inf
  EXPECT_EQ(same.val, kInf);
}

TEST(ValueSet, OneInfiniteTermAmongFiniteOnesGivesThatInfinity) {
  Element e = Dot({1, 2, -kInf, 4}, {1e30, -1e30, 5, 1});
  EXPECT_EQ(e.val, -kInf);
  EXPECT_EQ(e.err, 0);
  EXPECT_EQ(e.also, 0);
}

TEST(ValueSet, AnInfiniteTermWithPartialSumsThatMayOverflowTheOtherWayMayBeNaN) {
  // +inf + (3e38 + 3e38 in float32: -inf in some order) = NaN, or +inf in another.
  Element e = Dot({kInf, -3e38, -3e38}, {1, 1, 1});
  EXPECT_TRUE(std::isnan(e.val));
  EXPECT_EQ(e.err, 0);
  EXPECT_EQ(e.also, kAlsoPosInf);  // never -inf: the +inf term stays; never finite
  Element fine = Dot({kInf, -3e30, -3e30}, {1, 1, 1});
  EXPECT_EQ(fine.val, kInf);
  EXPECT_EQ(fine.also, 0);
}

TEST(ValueSet, FiniteTermsThatMayOverflowAllowOnlyTheInfinityOfTheirSign) {
  Element up = Dot({3e38, 3e38}, {1, 1});
  EXPECT_EQ(up.val, 6e38);
  EXPECT_EQ(up.also, kAlsoPosInf);
  Element down = Dot({3e38, 3e38}, {-1, -1});
  EXPECT_EQ(down.also, kAlsoNegInf);
  Element none = Dot({3e30, 3e30}, {-1, -1});
  EXPECT_EQ(none.also, 0);
  EXPECT_TRUE(std::isfinite(none.err));
}

TEST(ValueSet, AnUnboundedOperandLeavesTheElementUnknown) {
  RefTensor a = MakeExact({1, 2}, {1, 2}), b = MakeExact({2, 1}, {1, 1});
  a.err[1] = kInf;
  RefTensor r = Matmul(a, b, kF32);
  EXPECT_TRUE(std::isinf(r.err[0]));
}

TEST(ValueSet, AnOperandThatMayBeAnInfinityMakesItsProductsPossiblyInfinite) {
  // a[0] is 2 within 1e-3, or +inf (an upstream overflow): times 0 that is 0 or NaN.
  RefTensor a = MakeExact({1, 1}, {2}), b = MakeExact({1, 2}, {0, 3});
  a.err[0] = 1e-3;
  a.SetAlso(0, kAlsoPosInf);
  RefTensor r = Matmul(a, b, kF32);
  EXPECT_EQ(r.val[0], 0);
  EXPECT_EQ(r.Also(0), kAlsoNaN);
  EXPECT_NEAR(r.val[1], 6, 1e-2);
  EXPECT_EQ(r.Also(1), kAlsoPosInf);
}

TEST(ValueSet, AddmmWithAnInfinityInOneColumnJudgesTheOtherColumns) {
  // The example: float32 addmm whose b holds one infinity in its first column.
  RefTensor bias = MakeExact({2, 3}, {1, 1, 1, 1, 1, 1});
  RefTensor a = MakeExact({2, 2}, {1, 2, 3, 4}), b = MakeExact({2, 3}, {kInf, 1, 2, 3, 4, 5});
  RefTensor r = Addmm(bias, a, b, 1.0, 1.0, kF32);
  for (int i : {0, 3}) {
    EXPECT_EQ(r.val[i], kInf);
    EXPECT_EQ(r.err[i], 0);
  }
  for (int i : {1, 2, 4, 5}) {
    EXPECT_TRUE(std::isfinite(r.val[i]));
    EXPECT_LT(r.err[i], 1e-3);
    EXPECT_EQ(r.Also(i), 0);
  }
  EXPECT_EQ(r.val[1], 1 + 1 * 1 + 2 * 4);
}

TEST(ValueSet, ScalingAndCastsCarryTheClasses) {
  RefTensor x = MakeExact({3}, {kInf, NAN, 2});
  x.err[2] = 0.5;
  x.SetAlso(2, kAlsoPosInf);
  RefTensor neg = Scale(x, -1, Format::kF32);
  EXPECT_EQ(neg.val[0], -kInf);
  EXPECT_EQ(neg.Also(2), kAlsoNegInf);
  RefTensor zero = Scale(x, 0, Format::kF32);
  EXPECT_TRUE(std::isnan(zero.val[0]));  // 0 * inf
  EXPECT_EQ(zero.Also(2), kAlsoNaN);
  RefTensor h = Cast(x, Format::kF16, Format::kF32);
  EXPECT_EQ(h.Also(2), kAlsoPosInf);
  EXPECT_TRUE(
      std::isinf(Cast(x, Format::kI32, Format::kF32).err[2]));  // inf into an integer: undefined
  RefTensor big = MakeExact({1}, {70000});
  big.err[0] = 1;
  EXPECT_EQ(Cast(big, Format::kF16, Format::kF32).Also(0), kAlsoPosInf);
}

TEST(ValueSet, WithoutAlsoUnjudgesOnlyTheFlaggedElements) {
  RefTensor x = MakeExact({2}, {1, 2});
  x.SetAlso(1, kAlsoNaN);
  RefTensor y = WithoutAlso(x);
  EXPECT_EQ(y.err[0], 0);
  EXPECT_TRUE(std::isinf(y.err[1]));
  EXPECT_TRUE(y.also.empty());
}

}  // namespace
}  // namespace mmref

namespace mmref {
namespace {

TEST(ValueSet, ABfloat16ProductMayTakeASubnormalOperandAsZero) {
  // bfloat16 kernels with VDPBF16PS read input denormals as zero: subnormal * 1e38 is 0.00918 or 0,
  // and subnormal * inf is inf or NaN.
  double sub = 9.183549615799121e-41;
  Arith bf16{Format::kBF16, Format::kF32};
  RefTensor r = Matmul(MakeExact({1, 1}, {sub}), MakeExact({1, 2}, {1e38, INFINITY}), bf16);
  EXPECT_LE(std::fabs(r.val[0] - 0), r.err[0]);
  EXPECT_LE(std::fabs(r.val[0] - sub * 1e38), r.err[0]);
  // inf or NaN, nothing else: NaN in val (err 0), +inf besides.
  EXPECT_TRUE(std::isnan(r.val[1]));
  EXPECT_EQ(r.err[1], 0);
  EXPECT_EQ(r.Also(1), kAlsoPosInf);
  RefTensor f32 = Matmul(MakeExact({1, 1}, {1e-40}), MakeExact({1, 2}, {1e38, INFINITY}),
                         {Format::kF32, Format::kF32});
  EXPECT_EQ(f32.val[1], INFINITY);  // float32 kernels keep subnormals: exactly inf
  EXPECT_EQ(f32.Also(1), 0);
}

}  // namespace
}  // namespace mmref

namespace mmref {
namespace {

TEST(ValueSet, AddmmWithASmallAlphaMayRoundATinyOperandToZeroBeforeAnInfinityMeetsIt) {
  // alpha folded into b: 0.5 * -1.4e-45 rounds to -0 in float32, and -inf * -0 is NaN.
  Arith f32{Format::kF32, Format::kF32};
  RefTensor a = MakeExact({1, 2}, {-INFINITY, -2}), b = MakeExact({2, 1}, {-0x1p-149, -0.5});
  RefTensor r = Addmm(MakeExact({1, 1}, {1}), a, b, 0.5, 1.0, f32);
  EXPECT_TRUE(std::isnan(r.val[0]) ? r.Also(0) == kAlsoPosInf
                                   : (r.val[0] == INFINITY && r.Also(0) == kAlsoNaN));
  RefTensor whole = Addmm(MakeExact({1, 1}, {1}), a, b, 1.0, 1.0, f32);  // alpha 1: nothing folds
  EXPECT_EQ(whole.val[0], INFINITY);
  EXPECT_EQ(whole.Also(0), 0);
}

}  // namespace
}  // namespace mmref
