// Tests for folded root causes as reports state them: value findings that emulate_precision_casts
// removes fold into one root cause per path, whatever the op or gradient, with one headline, also
// read back from their reports.
#include <gtest/gtest.h>

#include <cmath>

#include "oracles/case_run_test_cases.h"
#include "oracles/root_cause_fold.h"
#include "src/ir/recorded_paths.h"
#include "src/report/finding_class.h"
#include "src/report/report.h"

namespace mmdiff {
namespace {

using case_test::Knobs;

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
  return JudgeCase(p, {"grid16", 1}, results);
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

// One op of `dtype` operands whose eager result is NaN in its first element where the reference is
// 1 (inductor right): a value finding blamed on eager.
CaseRun EagerNan(OpKind op, const std::vector<Shape>& shapes, const Shape& out, DType dtype,
                 double alpha = 1) {
  Program p;
  std::vector<std::string> names;
  for (size_t i = 0; i < shapes.size(); ++i) {
    names.push_back("x" + std::to_string(i));
    p.inputs.push_back({names.back(), shapes[i], dtype});
  }
  p.nodes = {{"v0", op, names, std::nullopt, alpha, 1.0}};
  p.outputs = {"v0"};
  const int64_t n = Numel(out);
  TensorValue ref{
      dtype, out, Device::kCpu, std::vector<double>(n, 1.0), std::vector<double>(n, 0.0), {}};
  TensorValue right = ref, wrong = ref;
  right.bound.clear();
  wrong.bound.clear();
  wrong.data[0] = NAN;
  std::vector<PathResult> results = {
      {"reference", OutcomeKind::kOk}, {"eager", OutcomeKind::kOk}, {"inductor", OutcomeKind::kOk}};
  results[0].outputs = {ref};
  results[1].outputs = {wrong};
  results[2].outputs = {right};
  SetRecordedTraits(results);
  return JudgeCase(p, {"grid16", 1}, results);
}

// Eager's bfloat16 products returning NaN are one root cause whatever the product op; in another
// dtype, with alpha = 0 (another defect), or with a wrong number instead of NaN, each is its own.
TEST(RootCauseFold, EagersBfloat16ProductsReturningNanAreOneRootCauseWhateverTheOp) {
  const std::string amx = "value|path=eager|bfloat16_products_nan|devices=cpu,cpu";
  CaseRun mm = EagerNan(OpKind::kMm, {{2, 3}, {3, 2}}, {2, 2}, DType::kBFloat16);
  CaseRun bmm = EagerNan(OpKind::kBmm, {{1, 2, 3}, {1, 3, 2}}, {1, 2, 2}, DType::kBFloat16);
  ASSERT_TRUE(mm.verdict.diverges());
  EXPECT_EQ(CaseFinding(mm).signature, amx);
  EXPECT_EQ(CaseFinding(bmm).signature, amx);
  EXPECT_EQ(ClassOfRootCause(amx), FindingClass::kEager);
  CaseRun addmm = EagerNan(OpKind::kAddmm, {{2, 2}, {2, 3}, {3, 2}}, {2, 2}, DType::kBFloat16);
  EXPECT_EQ(CaseFinding(addmm).signature,
            "value|path=eager|bfloat16_products_nan|devices=cpu,cpu,cpu");
  // Not this root cause: float16, alpha = 0, a mv (another kernel).
  EXPECT_EQ(CaseFinding(EagerNan(OpKind::kMm, {{2, 3}, {3, 2}}, {2, 2}, DType::kFloat16)).signature,
            "value|path=eager|values|op=mm|devices=cpu,cpu");
  EXPECT_EQ(CaseFinding(EagerNan(OpKind::kAddmm, {{2, 2}, {2, 3}, {3, 2}}, {2, 2}, DType::kBFloat16,
                                 /*alpha=*/0))
                .signature,
            "value|path=eager|values|op=addmm|devices=cpu,cpu,cpu");
  EXPECT_EQ(CaseFinding(EagerNan(OpKind::kMv, {{2, 3}, {3}}, {2}, DType::kBFloat16)).signature,
            "value|path=eager|values|op=mv|devices=cpu,cpu");
  // A regression entry of it says "nan": true, and signs the same.
  RootCauseFacts f =
      ExpectedFacts(bmm.contract, DivergenceKind::kValue, "eager", RecordedPathTraits("eager"));
  f.nan = true;
  EXPECT_EQ(RootCauseSignature(bmm.program, bmm.contract, f), amx);
  f.nan = false;
  EXPECT_EQ(RootCauseSignature(bmm.program, bmm.contract, f),
            "value|path=eager|values|op=bmm|devices=cpu,cpu");
}

}  // namespace
}  // namespace mmdiff
