// Tests for the pointwise epilogues: their values, a bound that holds for a float32 computation of
// the same function, exact integers, IEEE special values, and the derivatives autograd multiplies
// the gradient by.
#include "kernels/pointwise_ops.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace mmref {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const Pointwise kAll[] = {Pointwise::kRelu, Pointwise::kGelu,    Pointwise::kGeluTanh,
                          Pointwise::kSilu, Pointwise::kSigmoid, Pointwise::kTanh,
                          Pointwise::kClamp};

// f computed in float32 as a vectorised kernel would: float32 functions, float32 arithmetic.
float InFloat32(Pointwise f, float x) {
  switch (f) {
    case Pointwise::kRelu:
      return x > 0 ? x : 0.0f;
    case Pointwise::kGelu:
      return 0.5f * x * (1.0f + std::erf(x * 0.70710678f));
    case Pointwise::kGeluTanh:
      return 0.5f * x * (1.0f + std::tanh(0.7978846f * (x + 0.044715f * x * x * x)));
    case Pointwise::kSilu:
      return x / (1.0f + std::exp(-x));
    case Pointwise::kSigmoid:
      return 1.0f / (1.0f + std::exp(-x));
    case Pointwise::kTanh:
      return std::tanh(x);
    case Pointwise::kClamp:
      return std::fmin(std::fmax(x, -1.0f), 1.0f);
  }
  return x;
}

TEST(Pointwise, ValuesAreTheFunctions) {
  EXPECT_EQ(PointwiseValue(Pointwise::kRelu, -2), 0);
  EXPECT_EQ(PointwiseValue(Pointwise::kRelu, 3), 3);
  EXPECT_NEAR(PointwiseValue(Pointwise::kGelu, 1), 0.8413447460685429, 1e-15);
  EXPECT_NEAR(PointwiseValue(Pointwise::kGeluTanh, 1), 0.8411919906082768, 1e-15);
  EXPECT_NEAR(PointwiseValue(Pointwise::kSilu, 1), 0.7310585786300049, 1e-15);
  EXPECT_NEAR(PointwiseValue(Pointwise::kSigmoid, 0), 0.5, 0);
  EXPECT_NEAR(PointwiseValue(Pointwise::kTanh, 1), 0.7615941559557649, 1e-15);
  EXPECT_EQ(PointwiseValue(Pointwise::kClamp, 7, 0, 6), 6);
  EXPECT_EQ(PointwiseValue(Pointwise::kClamp, -7, 0, 6), 0);
  // The derivatives against a central difference.
  for (Pointwise f : kAll)
    for (double x : {-3.3, -0.7, 0.4, 2.5}) {
      const double h = 1e-6;
      const double slope =
          (PointwiseValue(f, x + h, -1, 1) - PointwiseValue(f, x - h, -1, 1)) / (2 * h);
      EXPECT_NEAR(PointwiseDerivative(f, x, -1, 1), slope, 1e-6)
          << static_cast<int>(f) << " at " << x;
    }
}

// A float32 kernel's result lies within the bound everywhere, the far negative tail of gelu
// included (1 + erf cancels there), and in bfloat16 too.
TEST(Pointwise, AFloat32ComputationIsWithinTheBound) {
  for (Pointwise f : kAll) {
    std::vector<double> xs;
    for (double x = -40; x <= 40; x += 0.0625) xs.push_back(static_cast<float>(x));
    RefTensor a = MakeExact({static_cast<int64_t>(xs.size())}, xs);
    RefTensor r = Unary(a, f, Format::kF32, -1, 1);
    RefTensor h = Unary(a, f, Format::kBF16, -1, 1);
    for (size_t i = 0; i < xs.size(); ++i) {
      const float got = InFloat32(f, static_cast<float>(xs[i]));
      EXPECT_LE(std::fabs(got - r.val[i]), r.err[i]) << static_cast<int>(f) << " at " << xs[i];
      const double rounded = RoundTo(Format::kBF16, got);
      EXPECT_LE(std::fabs(rounded - h.val[i]), h.err[i]) << static_cast<int>(f) << " at " << xs[i];
    }
    // The bound is tight enough to catch a wrong function: a dropped epilogue (the identity).
    if (f != Pointwise::kClamp) {
      EXPECT_GT(std::fabs(r.val[xs.size() / 4] - xs[xs.size() / 4]), r.err[xs.size() / 4])
          << static_cast<int>(f);
    }
  }
}

TEST(Pointwise, AnInexactInputWidensTheBoundByTheFunctionsSlope) {
  RefTensor a = MakeExact({1}, {0.5});
  a.err[0] = 0.01;
  for (Pointwise f : kAll) {
    RefTensor r = Unary(a, f, Format::kF64, -1, 1);
    for (double x : {0.49, 0.5, 0.51})
      EXPECT_LE(std::fabs(PointwiseValue(f, x, -1, 1) - r.val[0]), r.err[0])
          << static_cast<int>(f) << " at " << x;
  }
}

TEST(Pointwise, IntegersAreExactAndSpecialsFollowTorch) {
  RefTensor ints = MakeExact({3}, {-5, 0, 9});
  RefTensor relu = Unary(ints, Pointwise::kRelu, Format::kI32);
  EXPECT_EQ(relu.val, (std::vector<double>{0, 0, 9}));
  EXPECT_EQ(relu.err, (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(Unary(ints, Pointwise::kClamp, Format::kI64, -1, 6).val,
            (std::vector<double>{-1, 0, 6}));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  RefTensor specials = MakeExact({3}, {nan, kInf, -kInf});
  RefTensor r = Unary(specials, Pointwise::kRelu, Format::kF32);
  EXPECT_TRUE(std::isnan(r.val[0]));
  EXPECT_EQ(r.val[1], kInf);
  EXPECT_EQ(r.val[2], 0);
  EXPECT_EQ(r.err, (std::vector<double>{0, 0, 0}));
  RefTensor s = Unary(specials, Pointwise::kSigmoid, Format::kF32);
  EXPECT_EQ(s.val[1], 1);
  EXPECT_EQ(s.val[2], 0);
  RefTensor t = Unary(specials, Pointwise::kTanh, Format::kF32);
  EXPECT_EQ(t.val[2], -1);
  // gelu and silu of an infinity: eager's erf gelu gives NaN at +inf; torch promises nothing.
  for (Pointwise f : {Pointwise::kGelu, Pointwise::kSilu}) {
    RefTensor g = Unary(specials, f, Format::kF32);
    EXPECT_TRUE(std::isnan(g.val[0])) << static_cast<int>(f);
    EXPECT_EQ(g.err[1], kInf);
    EXPECT_EQ(g.err[2], kInf);
  }
  // NaN that may also be an infinity: NaN or that infinity's image (relu's +inf), or unjudged
  // where the image is finite (sigmoid's 1), which NaN and a range cannot say together.
  RefTensor nan_or_inf = MakeExact({1}, {nan});
  nan_or_inf.SetAlso(0, kAlsoPosInf);
  RefTensor ri = Unary(nan_or_inf, Pointwise::kRelu, Format::kF32);
  EXPECT_TRUE(std::isnan(ri.val[0]));
  EXPECT_EQ(ri.err[0], 0);
  EXPECT_EQ(ri.Also(0), kAlsoPosInf);
  EXPECT_EQ(Unary(nan_or_inf, Pointwise::kSigmoid, Format::kF32).err[0], kInf);
  EXPECT_EQ(Unary(nan_or_inf, Pointwise::kGelu, Format::kF32).err[0], kInf);
  // A finite value that may also be +inf or NaN: its image may be too.
  RefTensor maybe = MakeExact({1}, {2.0});
  maybe.SetAlso(0, kAlsoPosInf | kAlsoNaN);
  RefTensor m = Unary(maybe, Pointwise::kRelu, Format::kF32);
  EXPECT_EQ(m.Also(0), kAlsoPosInf | kAlsoNaN);
  RefTensor c = Unary(maybe, Pointwise::kClamp, Format::kF32, -1, 1);
  EXPECT_EQ(c.Also(0), kAlsoNaN);  // clamp's image of +inf is 1, within the range
  EXPECT_LE(std::fabs(1 - c.val[0]), c.err[0]);
}

TEST(Pointwise, DerivativesAreAutogradsStepsAndSlopes) {
  RefTensor a = MakeExact({4}, {-1, 0, 1, 2});
  EXPECT_EQ(UnaryDerivative(a, Pointwise::kRelu, Format::kF32).val,
            (std::vector<double>{0, 0, 1, 1}));  // 0 at 0, as threshold_backward
  RefTensor c = UnaryDerivative(a, Pointwise::kClamp, Format::kF32, -1, 1);
  EXPECT_EQ(c.val, (std::vector<double>{0, 1, 0, 0}));  // at the bounds: 0, as eager
  EXPECT_EQ(c.err, (std::vector<double>{0, 0, 0, 0}));
  RefTensor s = UnaryDerivative(a, Pointwise::kSigmoid, Format::kF32);
  EXPECT_LE(std::fabs(s.val[1] - 0.25), s.err[1]);
  // Special inputs as autograd compares them: relu's gradient is 0 where the result is <= 0, so
  // NaN and +inf pass it; clamp's passes strictly inside its bounds, so neither does.
  const double nan = std::numeric_limits<double>::quiet_NaN();
  RefTensor specials = MakeExact({3}, {nan, kInf, -kInf});
  RefTensor rs = UnaryDerivative(specials, Pointwise::kRelu, Format::kF32);
  EXPECT_EQ(rs.val, (std::vector<double>{1, 1, 0}));
  EXPECT_EQ(rs.err, (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(UnaryDerivative(specials, Pointwise::kClamp, Format::kF32, 0, 6).val,
            (std::vector<double>{0, 0, 0}));
  EXPECT_EQ(UnaryDerivative(specials, Pointwise::kSilu, Format::kF32).err[1], kInf);
  // gelu's tanh form at a huge x: torch's x^3 overflows float32 (1 - t^2 is 0: NaN); unjudged.
  RefTensor huge = MakeExact({2}, {3e13, 2.0});
  RefTensor gt = UnaryDerivative(huge, Pointwise::kGeluTanh, Format::kF32);
  EXPECT_EQ(gt.err[0], kInf);
  EXPECT_LT(gt.err[1], 1e-4);
  // An input that may lie on either side of relu's kink: either step.
  RefTensor near = MakeExact({1}, {0.0});
  near.err[0] = 0.5;
  RefTensor n = UnaryDerivative(near, Pointwise::kRelu, Format::kF32);
  EXPECT_LE(std::fabs(0 - n.val[0]), n.err[0]);
  EXPECT_LE(std::fabs(1 - n.val[0]), n.err[0]);
}

}  // namespace
}  // namespace mmref
