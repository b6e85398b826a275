// Tests for an explicit cast round trip as a report states it: a compiled path's precision-only
// value finding, forward or gradient, in a program that casts a value to a less precise dtype and
// back, is one root cause per path, and its headline says so.
#include <gtest/gtest.h>

#include "oracles/accuracy.h"
#include "oracles/case_run_test_cases.h"
#include "oracles/cast_round_trip.h"
#include "oracles/root_cause.h"
#include "oracles/root_cause_fold.h"
#include "src/report/finding_class.h"
#include "src/report/headline.h"
#include "src/report/report.h"

namespace mmdiff {
namespace {

using case_test::Classify;
using case_test::Ok;
using case_test::RoundTrip;

TEST(CastRoundTrip, APrecisionOnlyValueFindingAfterARoundTripIsOneRootCausePerPath) {
  CaseRun c = RoundTrip();
  ASSERT_EQ(c.verdict.divergences.size(), 1u);
  // Before the float64 run, or measured against the rounded reference only: the program's own.
  EXPECT_EQ(CaseFinding(c).signature, "value|path=inductor|values|ops=none|devices=cpu");
  Classify(c, 0.1);
  EXPECT_EQ(c.verdict.divergences[0].classification, "precision-only");
  EXPECT_EQ(CaseFinding(c).signature, "value|path=inductor|cast_round_trip|devices=cpu");
  EXPECT_NE(Headline(c).find(", after the explicit round trip float32 -> float16 -> float32 (v2, "
                             "v3)"),
            std::string::npos)
      << Headline(c);
  // bfloat16 in the middle: the same root cause.
  CaseRun bf16 = RoundTrip(DType::kBFloat16);
  Classify(bf16, 0.1);
  EXPECT_EQ(CaseFinding(bf16).signature, CaseFinding(c).signature);
  // Where emulate_precision_casts removes it (torch 2.15.0), it folds as that knob's by-design
  // behaviour like any other value finding.
  std::vector<Mitigation> knob = {{"torch._inductor.config.emulate_precision_casts = True",
                                   "inductor_emulate_precision_casts", true, ""}};
  EXPECT_EQ(FoldedRootCause(CaseFinding(c).signature, knob),
            "value|path=inductor|by_design=emulate_precision_casts");
  knob[0].removes_divergence = false;
  EXPECT_EQ(FoldedRootCause(CaseFinding(c).signature, knob), "");
}

}  // namespace
}  // namespace mmdiff
