// Tests for what a finding's cells across releases say.
#include "src/releases/release_history.h"

#include <gtest/gtest.h>

namespace mmdiff {
namespace {

using S = ReleaseState;

std::vector<ReleaseCell> Cells(std::vector<std::pair<std::string, S>> states) {
  std::vector<ReleaseCell> out;
  for (auto& [release, state] : states) {
    ReleaseCell c;
    c.release = release;
    c.state = state;
    out.push_back(c);
  }
  return out;
}

TEST(ReleaseHistory, NextReleaseIsTheNextMinorOrAPatch) {
  EXPECT_TRUE(NextRelease("2.11.0", "2.12.0"));
  EXPECT_TRUE(NextRelease("2.13.0", "2.14.1"));
  EXPECT_TRUE(NextRelease("2.14.0", "2.14.1"));
  EXPECT_FALSE(NextRelease("2.11.0", "2.15.0"));
  EXPECT_FALSE(NextRelease("2.12.0", "2.11.0"));
  EXPECT_FALSE(NextRelease("2.12.0", "2.12.0"));
  EXPECT_FALSE(NextRelease("x", "2.12.0"));
}

TEST(ReleaseHistory, PresentEverywhereIsLongStanding) {
  auto h = SummarizeReleases(
      Cells({{"2.15.0", S::kPresent}, {"2.11.0", S::kPresent}, {"2.13.0", S::kCannotRun}}));
  EXPECT_EQ(h.label, ReleaseLabel::kLongStanding);
  EXPECT_EQ(h.summary, "present in 2.11.0\u20132.15.0");
  EXPECT_EQ(h.first_present, "2.11.0");
  EXPECT_EQ(h.last_present, "2.15.0");
}

TEST(ReleaseHistory, FixedInTheNextReleaseOrAbsentInALaterOne) {
  auto known = SummarizeReleases(
      Cells({{"2.11.0", S::kPresent}, {"2.12.0", S::kAgree}, {"2.15.0", S::kAgree}}));
  EXPECT_EQ(known.label, ReleaseLabel::kFixed);
  EXPECT_EQ(known.summary, "present in 2.11.0, fixed in 2.12.0");
  EXPECT_EQ(known.fixed_in, "2.12.0");
  auto unknown = SummarizeReleases(Cells({{"2.11.0", S::kPresent}, {"2.15.0", S::kOther}}));
  EXPECT_EQ(unknown.label, ReleaseLabel::kFixed);
  EXPECT_EQ(unknown.summary, "present in 2.11.0, absent in 2.15.0");
  EXPECT_EQ(unknown.fixed_in, "");
}

TEST(ReleaseHistory, ARegressionIsNewInTheReleaseAfterOneWithoutIt) {
  auto h = SummarizeReleases(
      Cells({{"2.13.0", S::kAgree}, {"2.14.1", S::kPresent}, {"2.15.0", S::kPresent}}));
  EXPECT_EQ(h.label, ReleaseLabel::kRegression);
  EXPECT_EQ(h.new_in, "2.14.1");
  EXPECT_EQ(h.summary, "new in 2.14.1, present in 2.14.1\u20132.15.0");
  auto one = SummarizeReleases(Cells({{"2.14.1", S::kAgree}, {"2.15.0", S::kPresent}}));
  EXPECT_EQ(one.summary, "new in 2.15.0");
  auto gap = SummarizeReleases(Cells({{"2.11.0", S::kOther}, {"2.15.0", S::kPresent}}));
  EXPECT_EQ(gap.label, ReleaseLabel::kRegression);
  EXPECT_EQ(gap.new_in, "");
  EXPECT_EQ(gap.summary, "present in 2.15.0, absent in 2.11.0");
}

TEST(ReleaseHistory, AbsentIntermittentAndUnknown) {
  auto absent = SummarizeReleases(Cells({{"2.11.0", S::kAgree}, {"2.15.0", S::kOther}}));
  EXPECT_EQ(absent.label, ReleaseLabel::kAbsent);
  EXPECT_EQ(absent.summary, "absent in 2.11.0\u20132.15.0");
  auto flaky = SummarizeReleases(
      Cells({{"2.11.0", S::kPresent}, {"2.12.0", S::kAgree}, {"2.15.0", S::kPresent}}));
  EXPECT_EQ(flaky.label, ReleaseLabel::kIntermittent);
  EXPECT_EQ(flaky.summary, "present in 2.11.0, 2.15.0; absent in 2.12.0");
  auto none = SummarizeReleases(Cells({{"2.11.0", S::kCannotRun}}));
  EXPECT_EQ(none.label, ReleaseLabel::kUnknown);
  EXPECT_EQ(none.summary, "could not run in 2.11.0");
}

TEST(ReleaseHistory, JsonRoundTripAndBadFields) {
  auto h = SummarizeReleases(Cells({{"2.11.0", S::kPresent}, {"2.12.0", S::kAgree}}));
  auto back = ReleaseHistoryFromJson(ReleaseHistoryToJson(h));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(back.value().label, h.label);
  EXPECT_EQ(back.value().summary, h.summary);
  EXPECT_EQ(back.value().fixed_in, "2.12.0");
  EXPECT_FALSE(ReleaseHistoryFromJson({{"label", "gone"}, {"summary", "x"}}).ok());
  EXPECT_FALSE(ReleaseHistoryFromJson({{"label", "fixed"}}).ok());
  EXPECT_FALSE(ReleaseHistoryFromJson(nlohmann::json::array()).ok());
  for (auto s : {S::kPresent, S::kOther, S::kAgree, S::kCannotRun})
    EXPECT_EQ(ParseReleaseState(ReleaseStateName(s)).value(), s);
}

}  // namespace
}  // namespace mmdiff
