// Tests for an explicit cast round trip as a root cause: a compiled path's precision-only value
// finding, forward or gradient, in a program that casts a value to a less precise dtype and back,
// is one root cause per path; a filable one, or one without a round trip, stays per op.
#include "src/report/cast_round_trip.h"

#include <gtest/gtest.h>

#include "oracles/accuracy.h"
#include "src/report/finding_class.h"
#include "src/report/headline.h"
#include "src/report/report.h"
#include "src/report/report_test_cases.h"
#include "src/report/root_cause.h"
#include "src/report/root_cause_fold.h"

namespace mmdiff {
namespace {

using report_test::Ok;

// x.to(via).to(float32), as pytorch#185337's reduced case on torch 2.11.0: eager and the
// reference round 0.1 to float16 (0.0999755859375), inductor returns 0.1 (the exact result).
CaseRun RoundTrip(DType via = DType::kFloat16, double inductor = 0.1) {
  Program p;
  p.inputs = {{"x1", {1}, DType::kFloat32}};
  p.nodes = {{"v2", OpKind::kCast, {"x1"}, via}, {"v3", OpKind::kCast, {"v2"}, DType::kFloat32}};
  p.outputs = {"v3"};
  const double rounded = 0.0999755859375;
  std::vector<PathResult> rs = {Ok("reference", DType::kFloat32, {1}),
                                Ok("eager", DType::kFloat32, {1}),
                                Ok("inductor", DType::kFloat32, {1})};
  rs[0].outputs[0].data = {rounded};
  rs[0].outputs[0].bound = {0};
  rs[1].outputs[0].data = {rounded};
  rs[2].outputs[0].data = {inductor};
  return MakeCaseRun(p, {"grid16", 1}, rs);
}

// Classified against a float64 run whose result is `exact`.
void Classify(CaseRun& c, double exact) {
  PathResult fp64 = c.results[0];
  fp64.path = kReferenceFloat64Path;
  fp64.outputs[0].dtype = DType::kFloat64;
  fp64.outputs[0].data = {exact};
  ASSERT_TRUE(ClassifyAgainstFloat64(c.verdict, c.results, fp64));
  c.finding = LeadFinding(c);
}

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

TEST(CastRoundTrip, AFilableFindingOrOneWithoutARoundTripStaysPerOp) {
  // Worse than eager against float64: not a skipped rounding.
  CaseRun worse = RoundTrip(DType::kFloat16, 0.2);
  Classify(worse, 0.1);
  EXPECT_EQ(worse.verdict.divergences[0].classification, "filable");
  EXPECT_EQ(CaseFinding(worse).signature, "value|path=inductor|values|ops=none|devices=cpu");
  // Widening then narrowing is no round trip.
  Program p;
  p.inputs = {{"x", {2}, DType::kFloat16}};
  p.nodes = {{"v0", OpKind::kCast, {"x"}, DType::kFloat32},
             {"v1", OpKind::kCast, {"v0"}, DType::kFloat16}};
  p.outputs = {"v1"};
  EXPECT_EQ(FirstCastRoundTrip(p, Expect(p)).back, nullptr);
  // One cast alone neither.
  p.nodes.pop_back();
  p.outputs = {"v0"};
  EXPECT_EQ(FirstCastRoundTrip(p, Expect(p)).back, nullptr);
}

// The gradient through the same pair (2.11.0's second bucket: narrow, the round trip, then a
// matrix-vector product) signs as the forward finding does.
TEST(CastRoundTrip, AGradientThroughTheRoundTripIsTheSameRootCause) {
  Program p;
  p.inputs = {{"x0", {7}, DType::kFloat32, Device::kCpu, Layout::kContiguous, true},
              {"x1", {1, 1, 7}, DType::kFloat32}};
  Node narrow{"v0", OpKind::kNarrow, {"x0"}};
  narrow.ints = {-1, 1, 1};
  p.nodes = {narrow,
             {"v1", OpKind::kCast, {"v0"}, DType::kFloat16},
             {"v2", OpKind::kCast, {"v1"}, DType::kFloat32},
             {"v3", OpKind::kMatmul, {"v2", "x1"}}};
  p.outputs = {"v3"};
  const Expectation contract = Expect(p);
  ASSERT_FALSE(contract.rejects) << contract.violation.message;
  const CastRoundTrip t = FirstCastRoundTrip(p, contract);
  ASSERT_NE(t.back, nullptr);
  EXPECT_EQ(RoundTripText(t), "float32 -> float16 -> float32");
  RootCauseFacts f;
  f.kind = DivergenceKind::kValue;
  f.path = "inductor";
  f.compiled = true;
  f.precision_only = true;
  f.behaviour = "grad_values";
  EXPECT_EQ(RootCauseSignature(p, contract, f), "value|path=inductor|cast_round_trip|devices=cpu");
  f.behaviour = "values";
  EXPECT_EQ(RootCauseSignature(p, contract, f), "value|path=inductor|cast_round_trip|devices=cpu");
  f.precision_only = false;
  EXPECT_EQ(RootCauseSignature(p, contract, f).find("cast_round_trip"), std::string::npos);
}

}  // namespace
}  // namespace mmdiff
