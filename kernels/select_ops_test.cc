// Tests for the selection ops and the elementwise product and quotient: the chosen elements,
// unknown elements where a condition or denominator is uncertain, broadcasting, IEEE special
// values, and bounds that hold for correctly rounded results of every operand within its error.
#include "kernels/select_ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

#include "kernels/reference_ops.h"

namespace mmref {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Exact values with the given errors (and special outcomes, when given).
RefTensor With(std::vector<int64_t> shape, std::vector<double> values, std::vector<double> errors,
               std::vector<uint8_t> also = {}) {
  RefTensor t = MakeExact(std::move(shape), std::move(values));
  t.err = std::move(errors);
  t.also = std::move(also);
  return t;
}

// Whether x is an outcome element i allows (see RefTensor).
bool Allows(const RefTensor& r, size_t i, double x) {
  if (std::isinf(r.err[i])) return true;
  if (std::isnan(x)) return (std::isnan(r.val[i]) && r.err[i] == 0) || (r.Also(i) & kAlsoNaN);
  if (std::isinf(x)) {
    if (r.val[i] == x && r.err[i] == 0) return true;
    return (r.Also(i) & (x > 0 ? kAlsoPosInf : kAlsoNegInf)) != 0;
  }
  return std::isfinite(r.val[i]) && std::fabs(x - r.val[i]) <= r.err[i];
}

void ExpectExact(const RefTensor& r, size_t i, double x) {
  EXPECT_EQ(r.err[i], 0) << "element " << i;
  EXPECT_EQ(r.Also(i), 0) << "element " << i;
  if (std::isnan(x)) {
    EXPECT_TRUE(std::isnan(r.val[i])) << "element " << i << ": " << r.val[i];
  } else {
    EXPECT_EQ(r.val[i], x) << "element " << i;
  }
}

bool Unknown(const RefTensor& r, size_t i) { return std::isinf(r.err[i]); }

// ---- where, masked_fill ----

TEST(SelectOps, WhereCopiesTheChosenElementWithItsBoundAndSpecials) {
  RefTensor cond = MakeExact({4}, {1, 0, -2, NAN});  // any non-zero value, NaN too, is true
  RefTensor x = With({4}, {1.5, 2.5, 3.5, 4.5}, {0.25, 0, 0, 0}, {kAlsoPosInf, 0, 0, 0});
  RefTensor y = With({4}, {-1, -2, -3, -4}, {0, 0.5, 0, 0}, {0, kAlsoNaN, 0, 0});
  RefTensor r = Where(cond, x, y, {4});
  ASSERT_EQ(r.shape, std::vector<int64_t>{4});
  EXPECT_EQ(r.val, (std::vector<double>{1.5, -2, 3.5, 4.5}));
  EXPECT_EQ(r.err, (std::vector<double>{0.25, 0.5, 0, 0}));
  EXPECT_EQ(r.Also(0), kAlsoPosInf);
  EXPECT_EQ(r.Also(1), kAlsoNaN);
  EXPECT_EQ(r.Also(2), 0);
  EXPECT_EQ(r.Also(3), 0);
}

TEST(SelectOps, WhereBroadcastsAZeroDimOperandAndTheCondition) {
  RefTensor x = MakeExact({2, 3}, {1, 2, 3, 4, 5, 6});
  RefTensor y = MakeExact({}, {-7});
  RefTensor r = Where(MakeExact({3}, {1, 0, 1}), x, y, {2, 3});
  ASSERT_EQ(r.shape, (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(r.val, (std::vector<double>{1, -7, 3, 4, -7, 6}));
  RefTensor rows = Where(MakeExact({2, 1}, {0, 1}), x, y, {2, 3});
  EXPECT_EQ(rows.val, (std::vector<double>{-7, -7, -7, 4, 5, 6}));
  // y broadcast the other way round: a 0-d x against a 2x3 y.
  RefTensor swapped = Where(MakeExact({2, 1}, {0, 1}), y, x, {2, 3});
  EXPECT_EQ(swapped.val, (std::vector<double>{1, 2, 3, -7, -7, -7}));
  for (double e : swapped.err) EXPECT_EQ(e, 0);
}

TEST(SelectOps, WhereWithAnUnknownConditionIsUnknown) {
  // 0.25 +- 0.5 may be 0; +inf error is anything; an exact 0 that may also be NaN; 1 +- 0.5 is
  // surely non-zero; an exact 0 is false; a NaN with an error is not a known NaN.
  RefTensor cond =
      With({6}, {0.25, 0, 0, 1, 0, NAN}, {0.5, kInf, 0, 0.5, 0, 0.125}, {0, 0, kAlsoNaN, 0, 0, 0});
  RefTensor r = Where(cond, MakeExact({}, {10}), MakeExact({}, {20}), {6});
  EXPECT_TRUE(Unknown(r, 0));
  EXPECT_TRUE(Unknown(r, 1));
  EXPECT_TRUE(Unknown(r, 2));
  ExpectExact(r, 3, 10);
  ExpectExact(r, 4, 20);
  EXPECT_TRUE(Unknown(r, 5));
}

TEST(SelectOps, MaskedFillBroadcastsTheMaskAndFillsExactly) {
  std::vector<double> v(2 * 3 * 5 * 4);
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.5 * static_cast<double>(i);
  RefTensor x = MakeExact({2, 3, 5, 4}, v);
  x.err.assign(v.size(), 0.125);
  x.also.assign(v.size(), kAlsoNaN);  // a filled element loses its special outcomes too
  const std::vector<double> m = {1, 0, 0, 1, 0, 1, 0, 0};
  RefTensor mask = MakeExact({2, 1, 1, 4}, m);
  RefTensor r = MaskedFill(x, mask, -kInf, {2, 3, 5, 4});
  ASSERT_EQ(r.shape, (std::vector<int64_t>{2, 3, 5, 4}));
  for (size_t i = 0; i < v.size(); ++i) {
    size_t batch = i / 60, col = i % 4;
    if (m[batch * 4 + col] != 0) {
      ExpectExact(r, i, -kInf);
    } else {
      EXPECT_EQ(r.val[i], v[i]);
      EXPECT_EQ(r.err[i], 0.125);
      EXPECT_EQ(r.Also(i), kAlsoNaN);
    }
  }
  RefTensor nan = MaskedFill(MakeExact({3}, {1, 2, 3}), MakeExact({3}, {0, 1, 0}), NAN, {3});
  ExpectExact(nan, 0, 1);
  ExpectExact(nan, 1, NAN);
  ExpectExact(nan, 2, 3);
}

TEST(SelectOps, MaskedFillWithAnUnknownMaskElementIsUnknown) {
  RefTensor mask = With({3}, {1, 0, 1}, {0, kInf, 0.75});
  RefTensor r = MaskedFill(MakeExact({3}, {5, 6, 7}), mask, 0.0, {3});
  ExpectExact(r, 0, 0.0);
  EXPECT_TRUE(Unknown(r, 1));
  ExpectExact(r, 2, 0.0);  // 1 +- 0.75 is true either way
}

// ---- eq ----

TEST(SelectOps, EqScalarIsExactWhereEveryPossibleValueComparesAlike) {
  RefTensor x =
      With({10}, {3, 3, 3, 2.5, 2.5, NAN, kInf, 3, 0, -0.0},
           {0, 0.25, 0, 0.25, 0.5, 0, 0, kInf, 0, 0}, {0, 0, kAlsoNaN, 0, 0, 0, 0, 0, 0, 0});
  RefTensor r = EqScalar(x, 3);
  ASSERT_EQ(r.shape, std::vector<int64_t>{10});
  ExpectExact(r, 0, 1);        // exactly 3
  EXPECT_TRUE(Unknown(r, 1));  // 3 +- 0.25
  EXPECT_TRUE(Unknown(r, 2));  // 3, or NaN
  ExpectExact(r, 3, 0);        // 2.5 +- 0.25 never reaches 3
  EXPECT_TRUE(Unknown(r, 4));  // 2.5 +- 0.5 does
  ExpectExact(r, 5, 0);        // NaN != 3
  ExpectExact(r, 6, 0);        // inf != 3
  EXPECT_TRUE(Unknown(r, 7));
  EXPECT_EQ(r.val[7], 0);
  ExpectExact(r, 8, 0);
  RefTensor zero = EqScalar(x, 0.0);
  ExpectExact(zero, 8, 1);
  ExpectExact(zero, 9, 1);  // -0.0 == 0
}

TEST(SelectOps, EqScalarFollowsTheSpecialOutcomes) {
  // +inf exact; 5 or +inf; 5 or -inf; NaN or +inf; -inf exact.
  RefTensor x = With({5}, {kInf, 5, 5, NAN, -kInf}, {0, 0, 0, 0, 0},
                     {0, kAlsoPosInf, kAlsoNegInf, kAlsoPosInf, 0});
  RefTensor r = EqScalar(x, kInf);
  ExpectExact(r, 0, 1);
  EXPECT_TRUE(Unknown(r, 1));
  ExpectExact(r, 2, 0);
  EXPECT_TRUE(Unknown(r, 3));
  ExpectExact(r, 4, 0);
  RefTensor finite = EqScalar(x, 5);
  EXPECT_TRUE(Unknown(finite, 1));  // 5, or an infinity that is not 5
  EXPECT_TRUE(Unknown(finite, 2));
  ExpectExact(finite, 3, 0);
  // NaN equals nothing, not even an element that may be anything.
  RefTensor nan = EqScalar(With({2}, {1, NAN}, {kInf, 0}), NAN);
  ExpectExact(nan, 0, 0);
  ExpectExact(nan, 1, 0);
}

// ---- tril ----

TEST(SelectOps, TrilZeroesAboveTheDiagonalOfEveryMatrix) {
  std::vector<double> v(24);
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i + 1);
  RefTensor x = MakeExact({2, 3, 4}, v);
  x.err.assign(24, 0.5);
  x.also.assign(24, kAlsoPosInf);
  for (int64_t diagonal : {-5, -2, -1, 0, 1, 2, 10}) {
    RefTensor r = Tril(x, diagonal);
    ASSERT_EQ(r.shape, (std::vector<int64_t>{2, 3, 4}));
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t i = 0; i < 3; ++i)
        for (int64_t j = 0; j < 4; ++j) {
          size_t o = static_cast<size_t>((b * 3 + i) * 4 + j);
          if (j - i > diagonal) {
            ExpectExact(r, o, 0);
          } else {
            EXPECT_EQ(r.val[o], v[o]);
            EXPECT_EQ(r.err[o], 0.5);
            EXPECT_EQ(r.Also(o), kAlsoPosInf);
          }
        }
  }
  // The second matrix by hand, diagonal 0 and -1.
  RefTensor r = Tril(MakeExact({2, 3, 4}, v), 0);
  EXPECT_EQ(std::vector<double>(r.val.begin() + 12, r.val.end()),
            (std::vector<double>{13, 0, 0, 0, 17, 18, 0, 0, 21, 22, 23, 0}));
  RefTensor below = Tril(MakeExact({2, 3, 4}, v), -1);
  EXPECT_EQ(std::vector<double>(below.val.begin(), below.val.begin() + 12),
            (std::vector<double>{0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0}));
  for (double e : Tril(x, -3).err) EXPECT_EQ(e, 0);  // every element above the diagonal -3
  EXPECT_EQ(Tril(x, 3).val, v);                      // none
}

// ---- mul, div ----

// Values every format holds exactly: k / 16 for |k| <= 64.
double Small(std::mt19937_64& g) { return std::uniform_int_distribution<int>(-64, 64)(g) / 16.0; }
// k / 4096 for 0 <= k <= max: with Small's values, the sample points a + s * e below are exact.
double Dyadic(std::mt19937_64& g, int max) {
  return std::uniform_int_distribution<int>(0, max)(g) / 4096.0;
}

TEST(SelectOps, MulOfExactValuesIsTheProductWithinOneRounding) {
  std::mt19937_64 g(1);
  for (Format out : {Format::kF64, Format::kF32, Format::kF16, Format::kBF16}) {
    std::vector<double> av(12), bv(4);
    for (double& a : av) a = Small(g) * 1.3;  // not representable: exercises the rounding
    for (double& b : bv) b = Small(g);
    RefTensor r = Mul(MakeExact({3, 4}, av), MakeExact({4}, bv), {3, 4}, out);
    for (size_t i = 0; i < 12; ++i) {
      double p = av[i] * bv[i % 4];
      EXPECT_EQ(r.val[i], p);
      EXPECT_TRUE(Allows(r, i, RoundTo(out, p))) << i;
      EXPECT_LE(r.err[i], 3 * UnitRoundoff(out) * std::fabs(p) + 2 * MinSubnormal(out));
    }
  }
  // f32 operands multiply exactly in float64: the float product is the correctly rounded one.
  float fa = 1.1f, fb = 3.3f;
  RefTensor r32 = Mul(MakeExact({}, {fa}), MakeExact({}, {fb}), {}, Format::kF32);
  EXPECT_TRUE(Allows(r32, 0, static_cast<double>(fa * fb)));
}

TEST(SelectOps, MulBoundHoldsForEveryOperandWithinItsError) {
  std::mt19937_64 g(2);
  for (Format out : {Format::kF64, Format::kF32, Format::kF16}) {
    for (int trial = 0; trial < 200; ++trial) {
      double a = Small(g) + Dyadic(g, 40) - Dyadic(g, 40), b = Small(g), ea = Dyadic(g, 200),
             eb = Dyadic(g, 80);
      RefTensor r = Mul(With({}, {a}, {ea}), With({}, {b}, {eb}), {}, out);
      ASSERT_FALSE(Unknown(r, 0));
      for (double sa : {-1.0, -0.25, 0.0, 0.75, 1.0})
        for (double sb : {-1.0, 0.0, 0.5, 1.0}) {
          double x = a + sa * ea, y = b + sb * eb;
          EXPECT_TRUE(Allows(r, 0, RoundTo(out, x * y)))
              << a << "+-" << ea << " * " << b << "+-" << eb << " at " << x << " * " << y;
        }
    }
  }
}

TEST(SelectOps, MulOfExactSpecialsIsTheIeeeProduct) {
  RefTensor a = MakeExact({6}, {kInf, -kInf, kInf, NAN, 0, 1e300});
  RefTensor b = MakeExact({6}, {0, 2, -0.0, 1, -3, 1e300});
  RefTensor r = Mul(a, b, {6}, Format::kF32);
  ExpectExact(r, 0, NAN);  // inf * 0
  ExpectExact(r, 1, -kInf);
  ExpectExact(r, 2, NAN);
  ExpectExact(r, 3, NAN);
  EXPECT_EQ(r.val[4], 0);
  EXPECT_TRUE(std::signbit(r.val[4]));
  ExpectExact(r, 5, kInf);  // beyond float64's range, so beyond float32's
}

TEST(SelectOps, MulOfASpecialAndAnUncertainFactorAllowsEachIeeeOutcome) {
  // inf * (1 +- 2): the factor may be positive, negative or 0.
  RefTensor r = Mul(MakeExact({}, {kInf}), With({}, {1}, {2}), {}, Format::kF32);
  EXPECT_FALSE(Unknown(r, 0));
  EXPECT_TRUE(Allows(r, 0, kInf));
  EXPECT_TRUE(Allows(r, 0, -kInf));
  EXPECT_TRUE(Allows(r, 0, NAN));
  EXPECT_FALSE(Allows(r, 0, 1.0));
  // inf * (2 +- 1) is +inf whatever the factor.
  ExpectExact(Mul(MakeExact({}, {kInf}), With({}, {2}, {1}), {}, Format::kF16), 0, kInf);
  // (3 +- 0.5, or NaN) * -2: the finite range and NaN.
  RefTensor n = Mul(With({}, {3}, {0.5}, {kAlsoNaN}), MakeExact({}, {-2}), {}, Format::kF32);
  EXPECT_TRUE(Allows(n, 0, -7.0));
  EXPECT_TRUE(Allows(n, 0, NAN));
  EXPECT_FALSE(Allows(n, 0, -kInf));
  EXPECT_TRUE(Unknown(Mul(MakeExact({}, {1}), With({}, {1}, {kInf}), {}, Format::kF32), 0));
}

TEST(SelectOps, MulThatMayOverflowTheFormatAllowsThatInfinity) {
  RefTensor r =
      Mul(MakeExact({3}, {300, -300, 200}), MakeExact({3}, {300, 300, 300}), {3}, Format::kF16);
  EXPECT_TRUE(Allows(r, 0, RoundTo(Format::kF16, 90000)));  // +inf
  EXPECT_TRUE(Allows(r, 1, -kInf));
  EXPECT_FALSE(Allows(r, 1, kInf));
  EXPECT_FALSE(Allows(r, 2, kInf));  // 60000 is within range
}

TEST(SelectOps, MulBroadcastsBothOperands) {
  RefTensor a = MakeExact({2, 1, 3}, {1, 2, 3, 4, 5, 6}), b = MakeExact({4, 1}, {1, -1, 2, 0.5});
  RefTensor r = Mul(a, b, {2, 4, 3}, Format::kF32);
  ASSERT_EQ(r.shape, (std::vector<int64_t>{2, 4, 3}));
  for (int x = 0; x < 2; ++x)
    for (int y = 0; y < 4; ++y)
      for (int z = 0; z < 3; ++z)
        EXPECT_EQ(r.val[(x * 4 + y) * 3 + z], a.val[x * 3 + z] * b.val[y]);
}

TEST(SelectOps, IntegerMulWrapsLikeTwosComplement) {
  RefTensor r =
      Mul(MakeExact({4}, {100, -128, 16, 7}), MakeExact({4}, {3, -1, 16, -5}), {4}, Format::kI8);
  EXPECT_EQ(r.val, (std::vector<double>{44, -128, 0, -35}));
  for (double e : r.err) EXPECT_EQ(e, 0);
  ExpectExact(Mul(MakeExact({}, {200}), MakeExact({}, {2}), {}, Format::kU8), 0, 144);
  // (2^31 - 1)^2 = 2^62 - 2^32 + 1: its float64 product loses the final 1, int32 keeps it.
  const double m = 2147483647;
  ExpectExact(Mul(MakeExact({}, {m}), MakeExact({}, {m}), {}, Format::kI32), 0, 1);
  // An int64 result beyond 2^53 does not fit a double; an inexact operand is unknown.
  EXPECT_TRUE(Unknown(Mul(MakeExact({}, {m + 2}), MakeExact({}, {m + 2}), {}, Format::kI64), 0));
  EXPECT_TRUE(Unknown(Mul(With({}, {3}, {1}), MakeExact({}, {2}), {}, Format::kI32), 0));
  ExpectExact(Mul(MakeExact({}, {1}), MakeExact({}, {1}), {}, Format::kBool), 0, 1);
}

TEST(SelectOps, DivOfExactValuesIsTheQuotientWithinOneRounding) {
  std::mt19937_64 g(3);
  for (Format out : {Format::kF64, Format::kF32, Format::kF16, Format::kBF16}) {
    for (int trial = 0; trial < 200; ++trial) {
      double a = Small(g), b = Small(g);
      if (b == 0) continue;
      RefTensor r = Div(MakeExact({}, {a}), MakeExact({}, {b}), {}, out);
      EXPECT_EQ(r.val[0], a / b);
      EXPECT_TRUE(Allows(r, 0, RoundTo(out, a / b))) << a << " / " << b;
      // Eager's CPU half and bfloat16 divide in float32 and round again.
      float q = static_cast<float>(a) / static_cast<float>(b);
      if (out != Format::kF64) {
        EXPECT_TRUE(Allows(r, 0, RoundTo(out, q))) << a << " / " << b;
      }
    }
  }
}

TEST(SelectOps, DivByZeroFollowsIeee) {
  RefTensor a = MakeExact({7}, {1, -1, 1, 0, -0.0, NAN, kInf});
  RefTensor b = MakeExact({7}, {0, 0, -0.0, 0, 0, 1, kInf});
  RefTensor r = Div(a, b, {7}, Format::kF16);
  ExpectExact(r, 0, kInf);
  ExpectExact(r, 1, -kInf);
  ExpectExact(r, 2, -kInf);
  ExpectExact(r, 3, NAN);  // 0 / 0
  ExpectExact(r, 4, NAN);
  ExpectExact(r, 5, NAN);
  ExpectExact(r, 6, NAN);  // inf / inf
  RefTensor zero = Div(MakeExact({}, {-3}), MakeExact({}, {kInf}), {}, Format::kF32);
  EXPECT_EQ(zero.val[0], 0);
  EXPECT_TRUE(std::signbit(zero.val[0]));
}

TEST(SelectOps, DivBoundHoldsForEveryOperandWithinItsError) {
  std::mt19937_64 g(4);
  for (Format out : {Format::kF64, Format::kF32, Format::kF16}) {
    for (int trial = 0; trial < 200; ++trial) {
      double a = Small(g) + Dyadic(g, 40) - Dyadic(g, 40), b = Small(g), ea = Dyadic(g, 200),
             eb = Dyadic(g, 400);
      if (std::fabs(b) <= eb) continue;
      RefTensor r = Div(With({}, {a}, {ea}), With({}, {b}, {eb}), {}, out);
      ASSERT_FALSE(Unknown(r, 0));
      for (double sa : {-1.0, -0.25, 0.0, 0.75, 1.0})
        for (double sb : {-1.0, 0.0, 0.5, 1.0}) {
          double x = a + sa * ea, y = b + sb * eb;
          EXPECT_TRUE(Allows(r, 0, RoundTo(out, x / y)))
              << a << "+-" << ea << " / " << b << "+-" << eb << " at " << x << " / " << y;
        }
    }
  }
}

TEST(SelectOps, DivByAnUncertainDenominatorOrSpecialIsUnknownWhereItMayBeAnything) {
  RefTensor a = MakeExact({}, {1});
  EXPECT_TRUE(Unknown(Div(a, With({}, {0.5}, {0.5}), {}, Format::kF32), 0));   // may be 0
  EXPECT_TRUE(Unknown(Div(a, With({}, {0.25}, {0.5}), {}, Format::kF32), 0));  // straddles 0
  EXPECT_TRUE(Unknown(Div(a, With({}, {0}, {0}, {kAlsoNaN}), {}, Format::kF32), 0));
  EXPECT_TRUE(Unknown(Div(MakeExact({}, {kInf}), With({}, {2}, {0.125}), {}, Format::kF32), 0));
  EXPECT_TRUE(
      Unknown(Div(With({}, {1}, {0}, {kAlsoPosInf}), MakeExact({}, {2}), {}, Format::kF32), 0));
  // 1 / (2 +- 0.5) is within [0.4, 0.667]: bounded, and the bound is not loose.
  RefTensor r = Div(a, With({}, {2}, {0.5}), {}, Format::kF32);
  EXPECT_FALSE(Unknown(r, 0));
  EXPECT_TRUE(Allows(r, 0, 0.4));
  EXPECT_TRUE(Allows(r, 0, 1 / 1.5));
  EXPECT_LT(r.err[0], 0.17);
}

TEST(SelectOps, DivThatMayOverflowTheFormatAllowsThatInfinity) {
  RefTensor r = Div(MakeExact({2}, {60000, 60000}), MakeExact({2}, {0.5, -2}), {2}, Format::kF16);
  EXPECT_TRUE(Allows(r, 0, kInf));
  EXPECT_TRUE(Allows(r, 0, RoundTo(Format::kF16, 120000)));
  EXPECT_FALSE(Allows(r, 1, -kInf));
  EXPECT_TRUE(Allows(r, 1, -30000));
}

}  // namespace
}  // namespace mmref
