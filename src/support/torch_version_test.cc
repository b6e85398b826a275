#include "src/support/torch_version.h"

#include <gtest/gtest.h>

namespace mmdiff {
namespace {

TorchVersion V(std::string_view text) {
  auto v = ParseTorchVersion(text);
  EXPECT_TRUE(v.ok()) << text << ": " << v.error();
  return v.ok() ? v.value() : TorchVersion{-1, -1, -1};
}

TEST(TorchVersion, ReadsTheNumbersOfEveryFormPyTorchWrites) {
  EXPECT_EQ(V("2.11.0"), (TorchVersion{2, 11, 0}));
  EXPECT_EQ(V("2.15.0+cu132"), (TorchVersion{2, 15, 0}));
  EXPECT_EQ(V("2.16.0a0+git5e8f"), (TorchVersion{2, 16, 0}));
  EXPECT_EQ(V("2.16.0.dev20261120+cpu"), (TorchVersion{2, 16, 0}));
  EXPECT_EQ(V("2.12.0rc3"), (TorchVersion{2, 12, 0}));
  EXPECT_EQ(V("2.12"), (TorchVersion{2, 12, 0}));
  EXPECT_EQ(V("9999.9999.9999"), (TorchVersion{9999, 9999, 9999}));
  EXPECT_LT(V("2.9.1"), V("2.11.0"));
  EXPECT_EQ(TorchVersionString(V("2.11")), "2.11.0");
}

TEST(TorchVersion, RejectsWhatIsNotOneWithTheTextQuoted) {
  for (std::string_view bad : {"", "x", "2.", ".2", "2..1", "2.11.0.1", "12345678901.0", "2.10000",
                               "2.11x", "-1.0", " 2.11", "2.11.0 ", "2.11\x1b[2J"}) {
    auto v = ParseTorchVersion(bad);
    EXPECT_FALSE(v.ok()) << bad;
    if (!v.ok()) {
      EXPECT_NE(v.error().find("bad torch version"), std::string::npos) << v.error();
      EXPECT_EQ(v.error().find('\x1b'), std::string::npos) << v.error();
    }
  }
  auto long_text = ParseTorchVersion(std::string(1000, '9'));
  ASSERT_FALSE(long_text.ok());
  EXPECT_LT(long_text.error().size(), 200u);
}

TEST(TorchVersion, ReleaseNamesHaveTwoOrThreePartsAndNoSuffix) {
  EXPECT_TRUE(IsReleaseName("2.11.0"));
  EXPECT_TRUE(IsReleaseName("2.11"));
  EXPECT_FALSE(IsReleaseName("2"));
  EXPECT_FALSE(IsReleaseName("2.11.0+cu130"));
  EXPECT_FALSE(IsReleaseName("../2.11"));
  EXPECT_FALSE(IsReleaseName("2.11.0;rm -rf /"));
  EXPECT_FALSE(IsReleaseName(""));
  EXPECT_FALSE(IsReleaseName("2.11.00000"));
}

TEST(TorchVersion, RangesHoldWhenEveryClauseDoes) {
  auto in = [](std::string_view v, std::string_view r) {
    auto x = TorchVersionInRange(v, r);
    EXPECT_TRUE(x.ok()) << v << " in " << r << ": " << x.error();
    return x.ok() && x.value();
  };
  EXPECT_TRUE(in("2.11.0+cu130", ">=2.11.0,<2.12"));
  EXPECT_FALSE(in("2.12.0", ">=2.11.0,<2.12"));
  EXPECT_TRUE(in("2.15.0", "==2.15.0"));
  EXPECT_TRUE(in("2.15.0", "> 2.14, <= 2.15"));
  EXPECT_FALSE(in("2.15.1", "==2.15"));
  // Every clause is checked, also after one that fails.
  for (std::string_view bad :
       {"", ">=2.11,", "~=2.11", "2.11", ">=2.11,<12345678901", ">=2.11,=>2.12", ">=2.11.0.1"}) {
    auto x = TorchVersionInRange("2.10.0", bad);
    EXPECT_FALSE(x.ok()) << bad;
  }
  EXPECT_FALSE(TorchVersionInRange("12345678901.0", ">=2.11").ok());
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

TEST(TorchVersion, ARangesLowerBoundIsItsGreatestAtLeastOrEqualClause) {
  auto low = [](std::string_view r) { return TorchRangeLowerBound(r); };
  ASSERT_TRUE(low(">=2.11.0,<2.12.0").ok());
  EXPECT_EQ(low(">=2.11.0,<2.12.0").value(), (TorchVersion{2, 11, 0}));
  EXPECT_EQ(low("==2.15.0").value(), (TorchVersion{2, 15, 0}));
  EXPECT_EQ(low(">=2.11, >=2.13").value(), (TorchVersion{2, 13, 0}));
  EXPECT_FALSE(low("<2.12").value().has_value());
  EXPECT_FALSE(low("<2.12,>=x").ok());
  EXPECT_FALSE(low("").ok());
}

}  // namespace
}  // namespace mmdiff
