// Tests for ignored inputs (addmm-family beta = 0) and the rerun check.
#include "oracles/ignored_inputs.h"

#include <gtest/gtest.h>

#include <cmath>

namespace mmdiff {
namespace {

Node Make(std::string name, OpKind op, std::vector<std::string> args, double beta = 1) {
  Node n{std::move(name), op, std::move(args)};
  n.beta = beta;
  return n;
}

// out = addmm(c, a, b) with `beta`; c is input 0.
Program Addmm(double beta) {
  Program p;
  p.inputs = {{"c", {2, 2}, DType::kFloat32},
              {"a", {2, 3}, DType::kFloat32},
              {"b", {3, 2}, DType::kFloat32}};
  p.nodes = {Make("out", OpKind::kAddmm, {"c", "a", "b"}, beta)};
  p.outputs = {"out"};
  return p;
}

PathResult Ok(std::string path, std::vector<double> values) {
  PathResult r{std::move(path), OutcomeKind::kOk};
  r.outputs.push_back(
      {DType::kFloat32, {static_cast<int64_t>(values.size())}, Device::kCpu, std::move(values)});
  return r;
}

TEST(IgnoredInputs, OnlyABiasOfBetaZeroAndWhatFeedsNothingElse) {
  EXPECT_EQ(IgnoredInputs(Addmm(0.0)), std::vector<int>{0});
  EXPECT_TRUE(IgnoredInputs(Addmm(1.0)).empty());
  EXPECT_TRUE(IgnoredInputs(Addmm(0.5)).empty());
  ASSERT_NE(IgnoringNode(Addmm(0.0)), nullptr);
  EXPECT_EQ(IgnoringNode(Addmm(0.0))->name, "out");
  EXPECT_EQ(IgnoringNode(Addmm(1.0)), nullptr);

  // Through a cast and a transpose, still ignored; the product's operands never are.
  Program p = Addmm(0.0);
  p.inputs[0].name = "x";
  p.nodes.insert(p.nodes.begin(),
                 {Make("t", OpKind::kTranspose, {"x"}), Make("c", OpKind::kCast, {"t"})});
  p.nodes[0].ints = {0, 1};
  p.nodes[1].dtype = DType::kFloat32;
  EXPECT_EQ(IgnoredInputs(p), std::vector<int>{0});

  // Used elsewhere too (here as a second output, or in a later add): it matters.
  Program also_output = p;
  also_output.outputs.push_back("t");
  EXPECT_TRUE(IgnoredInputs(also_output).empty());
  Program also_added = p;
  also_added.nodes.push_back(Make("s", OpKind::kAdd, {"out", "c"}));
  also_added.outputs = {"s"};
  EXPECT_TRUE(IgnoredInputs(also_added).empty());

  // The same value as bias of a beta = 0 node and operand of another: it matters.
  Program twice = Addmm(0.0);
  twice.inputs[2] = {"b", {2, 2}, DType::kFloat32};
  twice.nodes.push_back(Make("m", OpKind::kMm, {"out", "c"}));
  twice.outputs = {"m"};
  EXPECT_TRUE(IgnoredInputs(twice).empty());
}

TEST(IgnoredInputs, SpecialOnesAreThoseHoldingNanOrInf) {
  InputRecipe r{"normal", 5};
  EXPECT_TRUE(IgnoredSpecialInputs(Addmm(0.0), r).empty());  // no special values at all
  r.special = 1.0;  // every element special: NaN, ±inf among them for 4 elements, some seed
  bool found = false;
  for (uint64_t seed = 0; seed < 64 && !found; ++seed) {
    r.seed = seed;
    std::vector<double> v = RecipeValues(r, 0, 4, DType::kFloat32);
    bool special = std::any_of(v.begin(), v.end(), [](double x) { return !std::isfinite(x); });
    EXPECT_EQ(IgnoredSpecialInputs(Addmm(0.0), r),
              special ? std::vector<int>{0} : std::vector<int>{})
        << seed;
    EXPECT_TRUE(IgnoredSpecialInputs(Addmm(1.0), r).empty());
    found = special;
  }
  ASSERT_TRUE(found);
  // Already zeroed: nothing left to replace, and the zeroed input holds zeros.
  InputRecipe z = WithZeroed(r, {0});
  EXPECT_EQ(z.zeroed, std::vector<int>{0});
  EXPECT_TRUE(IgnoredSpecialInputs(Addmm(0.0), z).empty());
  for (double x : RecipeValues(z, 0, 4, DType::kFloat32)) EXPECT_EQ(x, 0.0);
  EXPECT_EQ(WithZeroed(WithZeroed(r, {2, 0}), {0, 1}).zeroed, (std::vector<int>{0, 1, 2}));
}

TEST(IgnoredInputs, AChangedPathIsBlamedAndNanMeetsNan) {
  Program p = Addmm(0.0);
  std::vector<PathResult> given = {Ok("reference", {1, 2}), Ok("eager", {NAN, -0.0}),
                                   Ok("inductor", {NAN, 0.0}), Ok("aot_eager", {NAN, 2})};
  std::vector<PathResult> zeros = {Ok("eager", {NAN, 0.0}), Ok("inductor", {1, 0.0}),
                                   Ok("aot_eager", {NAN, 2})};
  auto ds = CheckIgnoredInputs(p, {0}, given, zeros);
  ASSERT_EQ(ds.size(), 1u);  // eager: NaN meets NaN, -0 meets +0; aot_eager: the same
  EXPECT_EQ(ds[0].kind, DivergenceKind::kIgnoredInput);
  EXPECT_EQ(ds[0].blamed, "inductor");
  EXPECT_EQ(ds[0].classification, "filable");
  EXPECT_EQ(ds[0].element, 0);
  EXPECT_TRUE(std::isnan(ds[0].got));
  EXPECT_EQ(ds[0].expected, 1.0);
  EXPECT_NE(ds[0].detail.find("c"), std::string::npos);
  EXPECT_NE(ds[0].detail.find("addmm has beta = 0"), std::string::npos) << ds[0].detail;

  // A rerun that raises, or another type, is a change too; one that could not run is not checked.
  PathResult raises{"inductor", OutcomeKind::kError};
  raises.error_class = "RuntimeError";
  ds = CheckIgnoredInputs(p, {0}, given, {Ok("eager", {NAN, 0.0}), raises});
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_NE(ds[0].detail.find("raises RuntimeError"), std::string::npos);
  PathResult unsupported{"inductor", OutcomeKind::kUnsupported};
  EXPECT_TRUE(CheckIgnoredInputs(p, {0}, given, {Ok("eager", {NAN, 0.0}), unsupported}).empty());
  PathResult wider = Ok("inductor", {NAN, 0.0});
  wider.outputs[0].dtype = DType::kFloat64;
  EXPECT_EQ(CheckIgnoredInputs(p, {0}, given, {Ok("eager", {NAN, 0.0}), wider}).size(), 1u);
}

TEST(IgnoredInputs, RoundingWithinTheReferenceBoundIsNoChangeButAClassChangeIs) {
  Program p = Addmm(0.0);
  PathResult ref = Ok("reference", {1.0, 2.0});
  ref.outputs[0].bound = {1e-6, 0.0};  // element 1 is exact: every correct path gives 2 bit for bit
  std::vector<PathResult> given = {ref, Ok("inductor", {1.0 + 1e-6, 2.0})};
  // Two runs rounding element 0 differently, within twice its allowed error: no change.
  EXPECT_TRUE(CheckIgnoredInputs(p, {0}, given, {Ok("inductor", {1.0 - 1e-6, 2.0})}).empty());
  // Beyond it, or at the exact element, or NaN against a number: a change.
  EXPECT_EQ(CheckIgnoredInputs(p, {0}, given, {Ok("inductor", {1.1, 2.0})}).size(), 1u);
  EXPECT_EQ(CheckIgnoredInputs(p, {0}, given, {Ok("inductor", {1.0, 2.0 + 1e-12})}).size(), 1u);
  given[1] = Ok("inductor", {NAN, 2.0});
  EXPECT_EQ(CheckIgnoredInputs(p, {0}, given, {Ok("inductor", {1.0, 2.0})}).size(), 1u);
  // Without the reference's bounds, only equal values are the same.
  given = {Ok("inductor", {1.0 + 1e-6, 2.0})};
  EXPECT_EQ(CheckIgnoredInputs(p, {0}, given, {Ok("inductor", {1.0 - 1e-6, 2.0})}).size(), 1u);
}

TEST(IgnoredInputs, EagerChangingIsEagersFindingNamingTheOthers) {
  Program p = Addmm(0.0);
  std::vector<PathResult> given = {Ok("eager", {NAN, 1}), Ok("inductor", {NAN, 1}),
                                   Ok("aot_eager", {3, 1})};
  std::vector<PathResult> zeros = {Ok("eager", {3, 1}), Ok("inductor", {3, 1}),
                                   Ok("aot_eager", {3, 1})};
  auto ds = CheckIgnoredInputs(p, {0}, given, zeros);
  ASSERT_EQ(ds.size(), 1u);
  EXPECT_EQ(ds[0].blamed, "eager");
  EXPECT_EQ(ds[0].classification, "");
  EXPECT_EQ(ds[0].paths, (std::vector<std::string>{"eager", "inductor"}));
}

TEST(IgnoredInputs, ReplacesWhatZerosRemoveAndNothingThatStays) {
  Divergence value;
  value.kind = DivergenceKind::kValue;
  value.paths = {"eager", "inductor"};
  value.blamed = "inductor";
  Divergence contract;
  contract.kind = DivergenceKind::kContract;
  contract.paths = {"reference", "eager"};
  contract.blamed = "eager";
  Divergence changed;
  changed.kind = DivergenceKind::kIgnoredInput;
  changed.paths = {"inductor"};
  changed.blamed = "inductor";

  // inductor's value finding is gone with zeros: it was the bias's NaN, one fault.
  Verdict v, clean;
  v.divergences = {value, contract};
  AddIgnoredInputDivergences(v, {changed}, clean);
  ASSERT_EQ(v.divergences.size(), 2u);
  EXPECT_EQ(v.divergences[0].kind,
            DivergenceKind::kIgnoredInput);                     // severity 1 before contract's 0
  EXPECT_EQ(v.divergences[1].kind, DivergenceKind::kContract);  // eager, named as baseline: kept

  // inductor is still out of bound with zeros: its own fault, kept alone.
  Verdict still;
  still.divergences = {value};
  v.divergences = {value};
  AddIgnoredInputDivergences(v, {changed}, still);
  ASSERT_EQ(v.divergences.size(), 1u);
  EXPECT_EQ(v.divergences[0].kind, DivergenceKind::kValue);

  // An unblamed value divergence of inductor (eager out of bound too) is inductor's as well.
  Divergence unblamed = value;
  unblamed.blamed = "";
  v.divergences = {unblamed};
  AddIgnoredInputDivergences(v, {changed}, clean);
  ASSERT_EQ(v.divergences.size(), 1u);
  EXPECT_EQ(v.divergences[0].kind, DivergenceKind::kIgnoredInput);

  EXPECT_EQ(ParseDivergenceKind("ignored_input"), DivergenceKind::kIgnoredInput);
  EXPECT_EQ(DivergenceKindName(DivergenceKind::kIgnoredInput), "ignored_input");
}

}  // namespace
}  // namespace mmdiff
