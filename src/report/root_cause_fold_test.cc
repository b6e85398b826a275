// Tests for folded root causes: value findings that emulate_precision_casts removes fold into one
// root cause per path, whatever the op or gradient; one it does not remove stays its own.
#include "src/report/root_cause_fold.h"

#include <gtest/gtest.h>

#include "src/report/finding_class.h"
#include "src/report/recorded_paths.h"
#include "src/report/report.h"
#include "src/report/report_test_cases.h"

namespace mmdiff {
namespace {

std::vector<Mitigation> Knobs(bool emulate_removes) {
  return {{"torch._inductor.config.emulate_precision_casts = True",
           "inductor_emulate_precision_casts", emulate_removes, ""},
          {"torch._inductor.config.fallback_random = True", "inductor_fallback_random", false, ""}};
}

TEST(RootCauseFold, ValueFindingsTheKnobRemovesAreOneRootCausePerPathWhateverTheOp) {
  const std::string mm = "value|path=inductor|values|op=mm|devices=cpu,cpu";
  const std::string grad = "value|path=inductor|grad_values|op=bmm|devices=cpu,cpu";
  const std::string folded = FoldedRootCause(mm, Knobs(true));
  EXPECT_EQ(folded, "value|path=inductor|by_design=emulate_precision_casts");
  EXPECT_EQ(FoldedRootCause(grad, Knobs(true)), folded);
  EXPECT_EQ(FoldedRootCause("value|path=aot_eager|values|op=dot|devices=cpu", Knobs(true)),
            "value|path=aot_eager|by_design=emulate_precision_casts");
  EXPECT_TRUE(IsFoldedRootCause(folded));
  EXPECT_FALSE(IsFoldedRootCause(mm));
  EXPECT_EQ(ClassOfRootCause(folded), FindingClass::kByDesign);
  EXPECT_NE(FoldedHeadline(folded).find("emulate_precision_casts = True removes"),
            std::string::npos);
  // Not removed by the knob, not tried, not a value finding, or eager's own: its own root cause.
  EXPECT_EQ(FoldedRootCause(mm, Knobs(false)), "");
  EXPECT_EQ(FoldedRootCause(mm, std::nullopt), "");
  EXPECT_EQ(FoldedRootCause("dtype|path=inductor|returns|op=mm|devices=cpu,cpu", Knobs(true)), "");
  EXPECT_EQ(FoldedRootCause("value|path=eager|values|op=mm|devices=cpu,cpu", Knobs(true)), "");
  EXPECT_EQ(FoldedRootCause("value|path=?(inductor)|values|op=mm|devices=cpu", Knobs(true)), "");
  EXPECT_EQ(FoldedHeadline(mm), "");
}

TEST(RootCauseFold, TheOpsOfAFindingAreThoseItIsLocatedAt) {
  CaseRun c = MakeCaseRun(report_test::Seed(), {"grid16", 1}, report_test::SeedResults());
  ASSERT_TRUE(c.verdict.diverges());
  EXPECT_EQ(FindingOps(c), (std::vector<std::string>{"bmm"}));  // a 4-D matmul reaches bmm
}

// A float16 op whose inductor result is off by 1 in its first element: a value finding.
CaseRun ValueFinding(OpKind op, const std::vector<Shape>& shapes, const Shape& out) {
  Program p;
  std::vector<std::string> names;
  for (size_t i = 0; i < shapes.size(); ++i) {
    names.push_back("x" + std::to_string(i));
    p.inputs.push_back({names.back(), shapes[i], DType::kFloat16});
  }
  p.nodes = {{"v0", op, names}};
  p.outputs = {"v0"};
  const int64_t n = Numel(out);
  TensorValue ref{DType::kFloat16,
                  out,
                  Device::kCpu,
                  std::vector<double>(n, 1.0),
                  std::vector<double>(n, 0.0),
                  {}};
  TensorValue right = ref, wrong = ref;
  right.bound.clear();
  wrong.bound.clear();
  wrong.data[0] = 2.0;
  std::vector<PathResult> results = {
      {"reference", OutcomeKind::kOk}, {"eager", OutcomeKind::kOk}, {"inductor", OutcomeKind::kOk}};
  results[0].outputs = {ref};
  results[1].outputs = {right};
  results[2].outputs = {wrong};
  SetRecordedTraits(results);
  return MakeCaseRun(p, {"grid16", 1}, results);
}

// Two value findings of different ops that the knob removes are one root cause, in a campaign's
// folder and in triage alike (reports read back); one the knob does not remove stays its own.
TEST(RootCauseFold, TwoOpsTheKnobRemovesShareOneRootCauseReadBackFromTheirReports) {
  CaseRun mm = ValueFinding(OpKind::kMm, {{2, 3}, {3, 2}}, {2, 2});
  CaseRun mv = ValueFinding(OpKind::kMv, {{2, 3}, {3}}, {2});
  ASSERT_TRUE(mm.verdict.diverges());
  ASSERT_TRUE(mv.verdict.diverges());
  const std::string mm_sig = CaseFinding(mm).signature, mv_sig = CaseFinding(mv).signature;
  ASSERT_NE(mm_sig, mv_sig);
  auto cause = [](CaseRun c, bool removes) {
    c.mitigations = Knobs(removes);
    auto judged = ReadJudgedCase(MakeReport(c, {}));
    EXPECT_TRUE(judged.ok()) << judged.error();
    auto causes = ReportRootCauses(judged.value());
    return causes.empty() ? std::string() : causes[0];
  };
  EXPECT_EQ(cause(mm, true), cause(mv, true));
  EXPECT_EQ(cause(mm, true), FoldedRootCause(mm_sig, Knobs(true)));
  EXPECT_EQ(cause(mm, false), mm_sig);  // the knob does not remove it: its own root cause
  EXPECT_NE(cause(mm, false), cause(mv, true));
}

}  // namespace
}  // namespace mmdiff
