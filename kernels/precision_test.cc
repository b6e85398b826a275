// Tests for exact rounding to narrow formats.
#include "kernels/precision.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace mmref {
namespace {

TEST(Precision, Float16RoundsToNearestEvenWithSubnormalsAndOverflow) {
  EXPECT_EQ(RoundTo(Format::kF16, 1.0 + std::ldexp(1, -11)), 1.0);  // tie -> even
  EXPECT_EQ(RoundTo(Format::kF16, 1.0 + 3 * std::ldexp(1, -11)),
            1.0 + std::ldexp(1, -9));  // tie -> even (up)
  EXPECT_EQ(RoundTo(Format::kF16, 65504.0), 65504.0);
  EXPECT_TRUE(std::isinf(RoundTo(Format::kF16, 65520.0)));  // rounds past max
  EXPECT_EQ(RoundTo(Format::kF16, 65519.0), 65504.0);
  EXPECT_EQ(RoundTo(Format::kF16, std::ldexp(1, -24)), std::ldexp(1, -24));  // smallest subnormal
  EXPECT_EQ(RoundTo(Format::kF16, std::ldexp(1, -25)), 0.0);                 // tie -> even (0)
  EXPECT_EQ(RoundTo(Format::kF16, 3 * std::ldexp(1, -26)), std::ldexp(1, -24));
  EXPECT_TRUE(std::isnan(RoundTo(Format::kF16, NAN)));
  EXPECT_EQ(std::signbit(RoundTo(Format::kF16, -0.0)), true);
}

TEST(Precision, MinNormalIsTheSmallestNormalOfEachFloatFormat) {
  EXPECT_EQ(MinNormal(Format::kF16), std::ldexp(1, -14));
  EXPECT_EQ(MinNormal(Format::kF32), std::ldexp(1, -126));
  EXPECT_EQ(MinNormal(Format::kBF16), std::ldexp(1, -126));
  EXPECT_EQ(MinNormal(Format::kF64), std::numeric_limits<double>::min());
  EXPECT_EQ(MinNormal(Format::kI32), 0.0);
}

TEST(Precision, BFloat16Rounding) {
  EXPECT_EQ(RoundTo(Format::kBF16, 1.0 + std::ldexp(1, -8)), 1.0);
  EXPECT_EQ(RoundTo(Format::kBF16, 1.0 + 3 * std::ldexp(1, -8)), 1.0 + std::ldexp(1, -6));
  EXPECT_EQ(RoundTo(Format::kBF16, 3.0), 3.0);
}

TEST(Precision, Float32MatchesTheHardwareConversion) {
  std::mt19937_64 g(1);
  std::uniform_real_distribution<double> u(-1e6, 1e6);
  for (int i = 0; i < 100000; ++i) {
    double x = u(g) * std::ldexp(1.0, static_cast<int>(g() % 200) - 100);
    ASSERT_EQ(RoundTo(Format::kF32, x), static_cast<double>(static_cast<float>(x))) << x;
  }
}

TEST(Precision, GammaGrowsWithKAndSaturates) {
  EXPECT_LT(Gamma(10, 1e-8), Gamma(100, 1e-8));
  EXPECT_TRUE(std::isinf(Gamma(1 << 12, UnitRoundoff(Format::kBF16))));
}

}  // namespace
}  // namespace mmref
