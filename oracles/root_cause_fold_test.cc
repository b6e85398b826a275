// Tests for folded root causes: a reduced case the knob fixes does not stand for a case as found
// that it does not fix, and a finding's ops are those it is located at.
#include "oracles/root_cause_fold.h"

#include <gtest/gtest.h>

#include <cmath>

#include "oracles/case_run_test_cases.h"
#include "src/ir/recorded_paths.h"

namespace mmdiff {
namespace {

using case_test::Knobs;

TEST(RootCauseFold, AReducedCaseTheKnobFixesDoesNotStandForACaseAsFoundItDoesNot) {
  const std::string linear = "value|path=inductor|values|op=mm|devices=cpu,cpu,cpu";
  const std::string mm = "value|path=inductor|values|op=mm|devices=cpu,cpu";
  EXPECT_TRUE(FoldsOnlyReduced(linear, Knobs(false), mm, Knobs(true)));
  // Both fold, neither does, the reduced one does not, or the case as found was not tried.
  EXPECT_FALSE(FoldsOnlyReduced(linear, Knobs(true), mm, Knobs(true)));
  EXPECT_FALSE(FoldsOnlyReduced(linear, Knobs(false), mm, Knobs(false)));
  EXPECT_FALSE(FoldsOnlyReduced(linear, Knobs(true), mm, Knobs(false)));
  EXPECT_FALSE(FoldsOnlyReduced(linear, std::nullopt, mm, Knobs(true)));
}

TEST(RootCauseFold, TheOpsOfAFindingAreThoseItIsLocatedAt) {
  CaseRun c = JudgeCase(case_test::Seed(), {"grid16", 1}, case_test::SeedResults());
  ASSERT_TRUE(c.verdict.diverges());
  EXPECT_EQ(FindingOps(c), (std::vector<std::string>{"bmm"}));  // a 4-D matmul reaches bmm
}

}  // namespace
}  // namespace mmdiff
