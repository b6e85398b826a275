// Tests for an explicit cast round trip as a root cause: a filable finding, or one without a round
// trip, stays per op.
#include "oracles/cast_round_trip.h"

#include <gtest/gtest.h>

#include "oracles/accuracy.h"
#include "oracles/case_run_test_cases.h"
#include "oracles/root_cause.h"
#include "oracles/root_cause_fold.h"

namespace mmdiff {
namespace {

using case_test::Classify;
using case_test::RoundTrip;

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
