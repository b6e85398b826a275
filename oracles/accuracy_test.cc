// Tests for PyTorch's accuracy rule against the float64 run: a path closer to the exact result
// than eager is precision-only there although the rounded reference calls it filable; a path that
// is wrong stays filable; nothing changes without a usable float64 result.
#include "oracles/accuracy.h"

#include <gtest/gtest.h>

#include <cmath>

#include "oracles/judge.h"

namespace mmdiff {
namespace {

// mm of two float16 [2, 2] matrices: only the result's dtype and shape matter to the judge here.
Program HalfMm() {
  Program p;
  p.inputs = {{"a", {2, 2}, DType::kFloat16}, {"b", {2, 2}, DType::kFloat16}};
  p.nodes = {{"y", OpKind::kMm, {"a", "b"}}};
  p.outputs = {"y"};
  return p;
}

PathResult Ok(const std::string& path, DType d, std::vector<double> data,
              std::vector<double> bound = {}) {
  PathResult r{path, OutcomeKind::kOk};
  r.outputs.push_back({d, {2, 2}, Device::kCpu, std::move(data), std::move(bound)});
  return r;
}

// The rounded reference says 1.0 at every element with a bound of 0.001; eager rounds as it does
// (1.0005), the path skips a rounding (1.004: outside the bound); the exact result is 1.003.
struct Case {
  std::vector<PathResult> results = {
      Ok(kReferencePath, DType::kFloat16, {1, 1, 1, 1}, {1e-3, 1e-3, 1e-3, 1e-3}),
      Ok(kEagerPath, DType::kFloat16, {1.0005, 1.0005, 1.0005, 1.0005}),
      Ok("inductor", DType::kFloat16, {1.004, 1.004, 1.004, 1.004})};
  PathResult fp64 =
      Ok(kReferenceFloat64Path, DType::kFloat64, {1.003, 1.003, 1.003, 1.003}, {0, 0, 0, 0});
};

TEST(Accuracy, ClassIsPyTorchsRule) {
  EXPECT_EQ(AccuracyClass(0.1, 0.01, /*low_precision=*/false, 5000), "filable");
  EXPECT_EQ(AccuracyClass(0.015, 0.01, false, 5000), "precision-only");  // under 2x
  EXPECT_EQ(AccuracyClass(0.025, 0.01, false, 5000), "filable");         // over 2x
  EXPECT_EQ(AccuracyClass(0.025, 0.01, true, 5000), "precision-only");   // 16-bit: 3x
  EXPECT_EQ(AccuracyClass(0.025, 0.01, false, 999), "precision-only");   // few elements: 3x
  EXPECT_EQ(AccuracyClass(5e-6, 0, false, 5000), "precision-only");      // under tol / 10
  EXPECT_EQ(AccuracyClass(2e-5, 0, false, 5000), "filable");
}

TEST(Accuracy, APathCloserToTheExactResultIsPrecisionOnlyAgainstFloat64) {
  Case c;
  Verdict v = Judge(Expect(HalfMm()), c.results);
  ASSERT_EQ(v.divergences.size(), 1u);
  EXPECT_EQ(v.divergences[0].classification, "filable");  // against the rounded reference
  EXPECT_TRUE(WantsFloat64Run(v));
  ASSERT_TRUE(ClassifyAgainstFloat64(v, c.results, c.fp64));
  const Divergence& d = v.divergences[0];
  EXPECT_EQ(d.classification, "precision-only");
  EXPECT_TRUE(d.rmse_float64);
  EXPECT_NEAR(d.eager_rmse, 0.0025, 1e-12);
  EXPECT_NEAR(d.path_rmse, 0.001, 1e-12);
  EXPECT_FALSE(WantsFloat64Run(v));  // measured once
}

TEST(Accuracy, AWrongPathStaysFilable) {
  Case c;
  c.results[2].outputs[0].data = {1.5, 1.5, 1.5, 1.5};
  Verdict v = Judge(Expect(HalfMm()), c.results);
  ASSERT_TRUE(ClassifyAgainstFloat64(v, c.results, c.fp64));
  EXPECT_EQ(v.divergences[0].classification, "filable");
  EXPECT_NEAR(v.divergences[0].path_rmse, 0.497, 1e-12);
}

TEST(Accuracy, ElementsWhereAnythingGoesOrNotFiniteAreLeftOut) {
  Case c;
  c.fp64.outputs[0].bound[0] = INFINITY;  // a dropout that zeroes at random: any value is right
  c.fp64.outputs[0].data[1] = NAN;
  c.results[2].outputs[0].data[0] = 100;  // not counted: fp64 says anything goes there
  Verdict v = Judge(Expect(HalfMm()), c.results);
  ASSERT_TRUE(ClassifyAgainstFloat64(v, c.results, c.fp64));
  EXPECT_NEAR(v.divergences[0].path_rmse, 0.001, 1e-12);
  EXPECT_EQ(v.divergences[0].classification, "precision-only");
}

TEST(Accuracy, ANanOrInfinityBlamedOnThePathStaysFilable) {
  Case c;
  c.results[2].outputs[0].data[3] = NAN;
  Verdict v = Judge(Expect(HalfMm()), c.results);
  ASSERT_EQ(v.divergences.size(), 1u);
  ASSERT_TRUE(ClassifyAgainstFloat64(v, c.results, c.fp64));
  EXPECT_EQ(v.divergences[0].classification, "filable");
}

TEST(Accuracy, NothingChangesWithoutAUsableFloat64Result) {
  Case c;
  Verdict v = Judge(Expect(HalfMm()), c.results);
  PathResult unsupported{kReferenceFloat64Path};
  EXPECT_FALSE(ClassifyAgainstFloat64(v, c.results, unsupported));
  PathResult other_shape = c.fp64;
  other_shape.outputs[0].shape = {4};
  EXPECT_FALSE(ClassifyAgainstFloat64(v, c.results, other_shape));
  EXPECT_EQ(v.divergences[0].classification, "filable");
  EXPECT_FALSE(v.divergences[0].rmse_float64);
}

}  // namespace
}  // namespace mmdiff
