// Tests for Inductor's addmm fusion as a root cause: the bias added to the unrounded product is
// by design where it is no less accurate than eager, and only there.
#include "oracles/addmm_fusion.h"

#include <gtest/gtest.h>

#include "oracles/case_run_test_cases.h"
#include "oracles/root_cause.h"

namespace mmdiff {
namespace {

using case_test::BiasAdd;
using case_test::Classify;

using case_test::kAddmmFused;

TEST(AddmmFusion, ABiasAddedToTheUnroundedProductNoLessAccuratelyIsByDesign) {
  CaseRun c = BiasAdd(0.144531, kAddmmFused);
  ASSERT_EQ(c.verdict.divergences.size(), 1u);
  // Measured against the rounded reference only: not classified, the op's own finding.
  EXPECT_EQ(CaseFinding(c).signature, "value|path=inductor|values|op=add|devices=cpu,cpu");
  Classify(c, 0.1444);
  ASSERT_EQ(c.verdict.divergences[0].classification, "precision-only");
  EXPECT_EQ(CaseFinding(c).signature, "value|path=inductor|by_design=addmm_fusion");
}

TEST(AddmmFusion, WithoutTheRewriteALessAccurateResultOrAnotherAddItIsTheOpsOwn) {
  const std::string own = "value|path=inductor|values|op=add|devices=cpu,cpu";
  CaseRun unfused = BiasAdd(0.144531, {"extern:mm"});
  Classify(unfused, 0.1444);
  ASSERT_EQ(unfused.verdict.divergences[0].classification, "precision-only");
  EXPECT_EQ(CaseFinding(unfused).signature, own);
  CaseRun worse = BiasAdd(0.15625, kAddmmFused);
  Classify(worse, 0.1444);
  ASSERT_EQ(worse.verdict.divergences[0].classification, "filable");
  EXPECT_EQ(CaseFinding(worse).signature, own);
  CaseRun other = BiasAdd(0.144531, kAddmmFused, /*product=*/false);
  Classify(other, 0.1444);
  ASSERT_EQ(other.verdict.divergences[0].classification, "precision-only");
  EXPECT_EQ(CaseFinding(other).signature, own);
}

}  // namespace
}  // namespace mmdiff
