// Tests for the judge on hand-built path results: each kind of divergence is found and blamed on
// the path that breaks the contract or the reference bound, and agreement yields no divergence.
#include "oracles/judge.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "oracles/verdict.h"
#include "src/ir/test_programs.h"

namespace mmdiff {
namespace {

Program SeedProgram() {
  Program p;
  p.inputs = {{"x0", {2, 4, 8, 8}, DType::kFloat16}, {"x1", {2, 4, 8, 64}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMatmul, {"x0", "x1"}}};
  p.outputs = {"v0"};
  return p;
}

PathResult Error(const std::string& path, const std::string& cls) {
  PathResult r{path, OutcomeKind::kError};
  r.error_class = cls;
  r.message = "expected scalar type Half but found Float";
  return r;
}

PathResult Ok(const std::string& path, DType d, Shape s, std::vector<double> data,
              std::vector<double> bound = {}) {
  PathResult r{path, OutcomeKind::kOk};
  r.outputs.push_back({d, s, Device::kCpu, std::move(data), std::move(bound)});
  return r;
}

TEST(Judge, SeedBugIsAnErrorBehaviourDivergenceBlamedOnTheCompiledPath) {
  Expectation c = Expect(SeedProgram());
  std::vector<PathResult> rs = {Error("reference", "RuntimeError"), Error("eager", "RuntimeError"),
                                Ok("inductor", DType::kFloat32, {2, 4, 8, 64}, {}),
                                Error("aot_eager", "RuntimeError")};
  Verdict v = Judge(c, rs);
  ASSERT_EQ(v.divergences.size(), 1u);
  EXPECT_EQ(v.divergences[0].kind, DivergenceKind::kErrorBehaviour);
  EXPECT_EQ(v.divergences[0].blamed, "inductor");
  EXPECT_EQ(v.divergences[0].paths, (std::vector<std::string>{"eager", "inductor"}));
  EXPECT_NE(v.divergences[0].detail.find("same_dtype"), std::string::npos);
  EXPECT_EQ(v.divergences[0].classification,
            "filable");  // inductor breaks the contract eager keeps
}

Program Legal() {
  Program p;
  p.inputs = {{"x0", {1, 2}, DType::kFloat32}, {"x1", {2, 1}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMm, {"x0", "x1"}}};
  p.outputs = {"v0"};
  return p;
}

TEST(Judge, AgreementWithinTheBoundIsNoDivergence) {
  Expectation c = Expect(Legal());
  Verdict v = Judge(c, {Ok("reference", DType::kFloat32, {1, 1}, {1.0}, {1e-6}),
                        Ok("eager", DType::kFloat32, {1, 1}, {1.0 + 1e-7}),
                        Ok("inductor", DType::kFloat32, {1, 1}, {1.0 - 1e-7})});
  EXPECT_FALSE(v.diverges()) << VerdictToJson(v).dump();
}

TEST(Judge, ValueBeyondTheBoundIsBlamedOnTheOutlier) {
  Expectation c = Expect(Legal());
  Verdict v = Judge(c, {Ok("reference", DType::kFloat32, {1, 1}, {1.0}, {1e-6}),
                        Ok("eager", DType::kFloat32, {1, 1}, {1.0}),
                        Ok("inductor", DType::kFloat32, {1, 1}, {1.001})});
  ASSERT_EQ(v.divergences.size(), 1u);
  EXPECT_EQ(v.divergences[0].kind, DivergenceKind::kValue);
  EXPECT_EQ(v.divergences[0].blamed, "inductor");
  EXPECT_DOUBLE_EQ(v.divergences[0].got, 1.001);
  // And when eager is the outlier, eager is blamed.
  v = Judge(c, {Ok("reference", DType::kFloat32, {1, 1}, {1.0}, {1e-6}),
                Ok("eager", DType::kFloat32, {1, 1}, {2.0}),
                Ok("inductor", DType::kFloat32, {1, 1}, {1.0})});
  ASSERT_GE(v.divergences.size(), 1u);
  EXPECT_EQ(v.divergences[0].blamed, "eager");
}

TEST(Judge, CompiledWorseThanEagerIsFilableOtherwisePrecisionOnly) {
  // PyTorch's rule (torch._dynamo.utils.same with an fp64 reference): file a compiler accuracy bug
  // only when the compiled result is worse than eager against the high-precision reference.
  Program p;
  p.inputs = {{"x0", {2000, 1}, DType::kFloat32}, {"x1", {1}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMv, {"x0", "x1"}}};
  p.outputs = {"v0"};
  Expectation c = Expect(p);
  std::vector<double> ref(2000, 1.0), bound(2000, 1e-6), eager(2000, 1.0), inductor(2000, 1.0);
  auto judge = [&] {
    return Judge(c, {Ok("reference", DType::kFloat32, {2000}, ref, bound),
                     Ok("eager", DType::kFloat32, {2000}, eager),
                     Ok("inductor", DType::kFloat32, {2000}, inductor)});
  };
  inductor[7] = 1.5;  // eager exact, inductor off: filable
  Verdict v = judge();
  ASSERT_EQ(v.divergences.size(), 1u);
  EXPECT_EQ(v.divergences[0].classification, "filable");
  EXPECT_GT(v.divergences[0].path_rmse, 0);
  EXPECT_EQ(v.divergences[0].eager_rmse, 0);
  for (double& x : eager) x = 1.01;  // eager is further off everywhere: inductor's one outlier is
  v = judge();                       // outside the bound but not worse than eager by PyTorch's rule
  const Divergence* d = nullptr;
  for (const auto& x : v.divergences)
    if (x.blamed != "eager" && x.paths[1] == "inductor") d = &x;
  ASSERT_NE(d, nullptr) << VerdictToJson(v).dump();
  EXPECT_EQ(d->classification, "precision-only");
  EXPECT_EQ(VerdictToJson(v)["divergences"][1]["classification"], "precision-only");
}

TEST(Judge, MetaMustPredictCpuOutcomeDtypeAndShape) {
  Expectation c = Expect(Legal());
  PathResult meta{"eager_meta", OutcomeKind::kOk};
  meta.outputs.push_back({DType::kFloat32, {1, 1}, Device::kMeta, {}, {}});
  std::vector<PathResult> agree = {Ok("reference", DType::kFloat32, {1, 1}, {1.0}, {1e-6}),
                                   Ok("eager", DType::kFloat32, {1, 1}, {1.0}), meta};
  EXPECT_FALSE(Judge(c, agree).diverges())
      << VerdictToJson(Judge(c, agree)).dump();  // device and data may differ
  agree[2].outputs[0].dtype = DType::kFloat16;
  Verdict v = Judge(c, agree);
  ASSERT_EQ(v.divergences.size(), 1u);
  EXPECT_EQ(v.divergences[0].kind, DivergenceKind::kMeta);
  EXPECT_EQ(v.divergences[0].blamed, "eager_meta");
  EXPECT_NE(v.divergences[0].detail.find("result dtype"), std::string::npos);
  // Meta accepting what cpu rejects (meta skips most dtype checks).
  Expectation seed = Expect(SeedProgram());
  PathResult meta_ok{"eager_meta", OutcomeKind::kOk};
  meta_ok.outputs.push_back({DType::kFloat16, {2, 4, 8, 64}, Device::kMeta, {}, {}});
  v = Judge(seed, {Error("reference", "RuntimeError"), Error("eager", "RuntimeError"), meta_ok});
  ASSERT_EQ(v.divergences.size(), 1u);
  EXPECT_EQ(v.divergences[0].kind, DivergenceKind::kMeta);
  EXPECT_NE(v.divergences[0].detail.find("outcome"), std::string::npos);
}

TEST(Judge, TheMostSevereDivergenceLeadsWhateverOrderThePathsRan) {
  // eager_meta runs before inductor and mispredicts first, but inductor silently returning what
  // eager rejects (the seed bug) is what the headline must describe.
  Expectation seed = Expect(SeedProgram());
  PathResult meta_ok{"eager_meta", OutcomeKind::kOk};
  meta_ok.outputs.push_back({DType::kFloat16, {2, 4, 8, 64}, Device::kMeta, {}, {}});
  Verdict v = Judge(seed, {Error("reference", "RuntimeError"), Error("eager", "RuntimeError"),
                           meta_ok, Ok("inductor", DType::kFloat32, {2, 4, 8, 64}, {})});
  ASSERT_EQ(v.divergences.size(), 2u);
  EXPECT_EQ(v.divergences[0].kind, DivergenceKind::kErrorBehaviour);
  EXPECT_EQ(v.divergences[0].blamed, "inductor");
  EXPECT_EQ(v.divergences[1].kind, DivergenceKind::kMeta);
  EXPECT_EQ(DivergenceSeverity(DivergenceKind::kCrash), 5);
  EXPECT_GT(DivergenceSeverity(DivergenceKind::kErrorBehaviour),
            DivergenceSeverity(DivergenceKind::kMeta));
  EXPECT_GT(DivergenceSeverity(DivergenceKind::kValue),
            DivergenceSeverity(DivergenceKind::kContract));
  EXPECT_EQ(ParseDivergenceKind("error_behaviour"), DivergenceKind::kErrorBehaviour);
  EXPECT_EQ(ParseDivergenceKind("timeout"), DivergenceKind::kTimeout);
  EXPECT_EQ(ParseDivergenceKind("valeu"), std::nullopt);
}

TEST(Judge, NaNWhereTheReferenceIsFiniteIsADivergence) {
  Expectation c = Expect(Legal());
  Verdict v = Judge(c, {Ok("reference", DType::kFloat32, {1, 1}, {1.0}, {1e-6}),
                        Ok("eager", DType::kFloat32, {1, 1}, {1.0}),
                        Ok("inductor", DType::kFloat32, {1, 1}, {NAN})});
  ASSERT_EQ(v.divergences.size(), 1u);
  EXPECT_EQ(v.divergences[0].kind, DivergenceKind::kValue);
  // An infinite bound (possible overflow) accepts anything.
  v = Judge(c, {Ok("reference", DType::kFloat32, {1, 1}, {1.0}, {INFINITY}),
                Ok("eager", DType::kFloat32, {1, 1}, {1.0}),
                Ok("inductor", DType::kFloat32, {1, 1}, {NAN})});
  EXPECT_FALSE(v.diverges());
}

TEST(Judge, DtypeDivergenceAndCrashes) {
  Expectation c = Expect(Legal());
  PathResult crash{"inductor", OutcomeKind::kCrash};
  crash.stage = "compile";
  Verdict v = Judge(c, {Ok("reference", DType::kFloat32, {1, 1}, {1.0}, {0}),
                        Ok("eager", DType::kFloat32, {1, 1}, {1.0}),
                        Ok("aot_eager", DType::kFloat64, {1, 1}, {1.0}), crash});
  ASSERT_EQ(v.divergences.size(), 2u);
  EXPECT_EQ(v.divergences[0].kind, DivergenceKind::kCrash);
  EXPECT_NE(v.divergences[0].detail.find("compile"), std::string::npos);
  EXPECT_EQ(v.divergences[1].kind, DivergenceKind::kDType);
  EXPECT_EQ(v.divergences[1].blamed, "aot_eager");
}

TEST(Judge, EagerAgainstTheContractIsAContractDivergence) {
  Expectation c = Expect(SeedProgram());
  Verdict v = Judge(
      c, {Error("reference", "RuntimeError"), Ok("eager", DType::kFloat32, {2, 4, 8, 64}, {})});
  ASSERT_EQ(v.divergences.size(), 1u);
  EXPECT_EQ(v.divergences[0].kind, DivergenceKind::kContract);
}

TEST(Judge, WithoutAReferenceValuesAreNotJudgedAndANoteSaysSo) {
  Expectation c = Expect(Legal());
  PathResult ref{"reference", OutcomeKind::kUnsupported};
  ref.message = "no reference for this op";
  Verdict v = Judge(c, {ref, Ok("eager", DType::kFloat32, {1, 1}, {1.0}),
                        Ok("inductor", DType::kFloat32, {1, 1}, {5.0})});
  EXPECT_FALSE(v.diverges());
  EXPECT_EQ(v.notes.size(), 2u);
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

// A verdict read back from a report file: an output index beyond int's range is not narrowed into
// another (valid-looking) index.
// A training program: mm(x0, x1) with x0 requiring grad; results v0, then grad(x0).
Program Training() {
  Program p = Legal();
  p.inputs[0].requires_grad = true;
  return p;
}

PathResult TrainingOk(const std::string& path, std::vector<double> grad,
                      std::vector<double> bound = {}) {
  PathResult r =
      Ok(path, DType::kFloat32, {1, 1}, {2.0}, bound.empty() ? bound : std::vector<double>{0});
  r.outputs.push_back({DType::kFloat32, {1, 2}, Device::kCpu, std::move(grad), std::move(bound)});
  return r;
}

TEST(Judge, ABackwardThatRaisesInOnePathOnlyIsABackwardErrorBlamedOnIt) {
  Expectation c = Expect(Training());
  ASSERT_EQ(c.outputs.size(), 2u);  // the output, then the gradient with its input's type
  EXPECT_EQ(c.outputs[1].shape, (Shape{1, 2}));
  PathResult broken = Error("inductor", "RuntimeError");
  broken.backward = true;
  std::vector<PathResult> rs = {TrainingOk("reference", {1, 2}, {0, 0}),
                                TrainingOk("eager", {1, 2}), broken};
  Verdict v = Judge(c, rs);
  ASSERT_EQ(v.divergences.size(), 1u);
  EXPECT_EQ(v.divergences[0].kind, DivergenceKind::kBackwardError);
  EXPECT_EQ(v.divergences[0].blamed, "inductor");
  EXPECT_NE(v.divergences[0].detail.find("in backward"), std::string::npos);
  // The same error in the forward is an error-behaviour finding.
  rs[2].backward = false;
  EXPECT_EQ(Judge(c, rs).divergences.at(0).kind, DivergenceKind::kErrorBehaviour);
}

TEST(Judge, RaisingInBackwardWhereTheContractRejectsTheForwardIsAcceptingIt) {
  // Eager runs the forward the contract rejects and fails only in backward; inductor rejects the
  // forward as the contract says: eager is blamed, for the forward (not a backward finding).
  Expectation c = Expect(SeedProgram());
  PathResult eager = Error("eager", "RuntimeError");
  eager.backward = true;
  std::vector<PathResult> rs = {Error("reference", "RuntimeError"), eager,
                                Error("inductor", "RuntimeError")};
  Verdict v = Judge(c, rs);
  ASSERT_EQ(v.divergences.size(), 2u) << VerdictToJson(v).dump();
  for (const Divergence& d : v.divergences) {
    EXPECT_NE(d.kind, DivergenceKind::kBackwardError);
    if (d.kind == DivergenceKind::kErrorBehaviour) {
      EXPECT_EQ(d.blamed, "eager");
    }
  }
}

// Where eager breaks a rule the contract documents it breaking, eager is blamed (docs/judging.md,
// "Where eager breaks the rule"): bmm of an empty float64 and an int64 operand, which eager on cpu
// returns as int64 and eager on meta and the compiled paths reject as mm does (torch 2.15.0).
TEST(Judge, EagerAcceptingAnEmptyMixedDtypeBmmIsBlamedAndThePathsThatRaiseAreNot) {
  Program p;
  p.inputs = {{"a", {0, 2, 3}, DType::kFloat64}, {"b", {0, 3, 4}, DType::kInt64}};
  p.nodes = {{"v0", OpKind::kBmm, {"a", "b"}}};
  p.outputs = {"v0"};
  Expectation c = Expect(p);
  ASSERT_EQ(c.violation.eager_deviation, "empty_bmm_dtype");
  std::vector<PathResult> rs = {
      Error("reference", "RuntimeError"), Ok("eager", DType::kInt64, {0, 2, 4}, {}),
      Error("eager_meta", "RuntimeError"), Error("inductor", "RuntimeError"),
      Error("compile_eager", "RuntimeError")};
  Verdict v = Judge(c, rs);
  ASSERT_EQ(v.divergences.size(), 4u) << VerdictToJson(v).dump();
  for (const Divergence& d : v.divergences) EXPECT_EQ(d.blamed, "eager") << d.detail;
  EXPECT_EQ(std::count_if(v.divergences.begin(), v.divergences.end(),
                          [](const Divergence& d) { return d.kind == DivergenceKind::kContract; }),
            1);
  for (const Divergence& d : v.divergences) EXPECT_NE(d.classification, "filable") << d.detail;
  // Without the deviation (a contract that may be the one wrong), eager's contract divergence is
  // nobody's, and eager_meta mispredicting cpu is eager_meta's.
  Expectation gap = c;
  gap.violation.eager_deviation.clear();
  Verdict u = Judge(gap, rs);
  for (const Divergence& d : u.divergences) {
    if (d.kind == DivergenceKind::kContract) {
      EXPECT_EQ(d.blamed, "") << d.detail;
    }
  }
  // Without a reference, meta's mismatch stays eager_meta's (no contract finding restates it).
  rs[0].kind = OutcomeKind::kUnsupported;
  for (const Divergence& d : Judge(c, rs).divergences) {
    if (d.kind == DivergenceKind::kMeta) {
      EXPECT_EQ(d.blamed, "eager_meta");
    }
  }
}

// addmv with an empty matrix and a [1] bias, training: eager runs the forward and raises in its
// backward, which the reference differentiates (as it does addmm's, baddbmm's and mv + add's):
// eager is blamed for a backward error (seen on torch 2.15.0, RuntimeError "size mismatch").
TEST(Judge, EagerRaisingInABackwardTheReferenceDifferentiatesIsABackwardErrorBlamedOnEager) {
  Program p = test_programs::EmptyAddmvTraining();
  Expectation c = Expect(p);
  ASSERT_FALSE(c.rejects) << c.violation.message;
  PathResult ref{"reference", OutcomeKind::kOk};
  for (const auto& t : c.outputs) ref.outputs.push_back({t.dtype, t.shape, t.device, {}, {}});
  PathResult eager = Error("eager", "RuntimeError");
  eager.backward = true;
  PathResult inductor = Error("inductor", "RuntimeError");  // AOTAutograd traces the backward
  Verdict v = Judge(c, {ref, eager, inductor});
  ASSERT_EQ(v.divergences.size(), 2u) << VerdictToJson(v).dump();
  EXPECT_EQ(v.divergences[0].kind, DivergenceKind::kBackwardError);
  EXPECT_EQ(v.divergences[0].paths, (std::vector<std::string>{"reference", "eager"}));
  EXPECT_EQ(v.divergences[0].blamed, "eager");
  EXPECT_NE(v.divergences[0].detail.find("in backward"), std::string::npos);
  // Inductor raising in its forward call where eager raised in backward: neither follows the
  // contract, so that divergence is nobody's (the findings fold it into eager's).
  EXPECT_EQ(v.divergences[1].kind, DivergenceKind::kErrorBehaviour);
  EXPECT_EQ(v.divergences[1].blamed, "");
  // Eager raising in its forward is not this: a contract divergence, as before.
  eager.backward = false;
  EXPECT_EQ(Judge(c, {ref, eager}).divergences.at(0).kind, DivergenceKind::kContract);
}

TEST(Judge, AGradientBeyondItsBoundIsAValueDivergenceThatNamesTheGradient) {
  Expectation c = Expect(Training());
  std::vector<PathResult> rs = {TrainingOk("reference", {1, 2}, {0, 0}),
                                TrainingOk("eager", {1, 2}), TrainingOk("aot_eager", {1, 2.5})};
  Verdict v = Judge(c, rs);
  ASSERT_EQ(v.divergences.size(), 1u);
  EXPECT_EQ(v.divergences[0].kind, DivergenceKind::kValue);
  EXPECT_EQ(v.divergences[0].blamed, "aot_eager");
  EXPECT_EQ(v.divergences[0].output, 1);
  EXPECT_NE(v.divergences[0].detail.find("grad(x0) element 1"), std::string::npos)
      << v.divergences[0].detail;
  rs[2] = TrainingOk("aot_eager", {1, 2});
  EXPECT_FALSE(Judge(c, rs).diverges());
}

// Gradients computed from a forward beyond its bound follow from it: the forward's element is the
// finding even where a gradient is further off (a fusion that drops attention's scale shows in
// both; its root cause is signed on the values either way).
TEST(Judge, AForwardBeyondItsBoundLeadsTheGradientsComputedFromIt) {
  Expectation c = Expect(Training());
  PathResult wrong = TrainingOk("aot_eager", {1, 50});
  wrong.outputs[0].data = {2.1};
  std::vector<PathResult> rs = {TrainingOk("reference", {1, 2}, {0, 0}),
                                TrainingOk("eager", {1, 2}), wrong};
  Verdict v = Judge(c, rs);
  ASSERT_EQ(v.divergences.size(), 1u);
  EXPECT_EQ(v.divergences[0].output, 0) << v.divergences[0].detail;
  EXPECT_EQ(v.divergences[0].diverging_elements, 2) << "the gradient's element still counts";
  wrong.outputs[0].data = {2.0};  // the forward within: the gradient is the finding
  rs[2] = wrong;
  v = Judge(c, rs);
  ASSERT_EQ(v.divergences.size(), 1u);
  EXPECT_EQ(v.divergences[0].output, 1);
}

TEST(VerdictJson, OutputIndicesOutOfRangeAreNotTaken) {
  nlohmann::json j = {
      {"result", "diverge"},
      {"divergences", {{{"kind", "value"}, {"paths", {"eager", "inductor"}}, {"output", 1}}}}};
  auto v = VerdictFromJson(j);
  ASSERT_TRUE(v.ok()) << v.error();
  ASSERT_EQ(v.value().divergences.size(), 1u);
  EXPECT_EQ(v.value().divergences[0].output, 1);
  for (const nlohmann::json& bad :
       {nlohmann::json((uint64_t{1} << 32) + 1), nlohmann::json(-5), nlohmann::json(UINT64_MAX)}) {
    j["divergences"][0]["output"] = bad;
    auto r = VerdictFromJson(j);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_NE(r.value().divergences[0].output, 1) << bad.dump();
    EXPECT_TRUE(r.value().divergences[0].output >= -1 &&
                r.value().divergences[0].output <= 1 << 20);
  }
}

// The RMSEs and what they were measured against survive a report (a precision-only finding signs
// by them: sdpa's float32 chain, addmm's fusion); RMSEs from a file that cannot be are not taken.
TEST(VerdictJson, RmsesRoundTripAndBadOnesAreNotTaken) {
  Verdict v;
  Divergence d{DivergenceKind::kValue, {"eager", "inductor"}, "inductor", "x"};
  d.path_rmse = 0.25;
  d.eager_rmse = 0.5;
  d.rmse_float64 = true;
  v.divergences = {d};
  auto back = VerdictFromJson(VerdictToJson(v));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value().divergences[0].path_rmse, 0.25);
  EXPECT_EQ(back.value().divergences[0].eager_rmse, 0.5);
  EXPECT_TRUE(back.value().divergences[0].rmse_float64);
  v.divergences[0].rmse_float64 = false;
  back = VerdictFromJson(VerdictToJson(v));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_FALSE(back.value().divergences[0].rmse_float64);
  EXPECT_EQ(back.value().divergences[0].path_rmse, 0.25);
  nlohmann::json j = VerdictToJson(v);
  for (const nlohmann::json& bad :
       {nlohmann::json({{"eager", 0.5}, {"path", -1}, {"against", "float64"}}),
        nlohmann::json({{"eager", 0.5}, {"path", 0.25}, {"against", "float32"}}),
        nlohmann::json({{"path", 0.25}, {"against", "float64"}})}) {
    j["divergences"][0]["rmse"] = bad;
    auto r = VerdictFromJson(j);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_FALSE(r.value().divergences[0].rmse_float64) << bad.dump();
    EXPECT_LT(r.value().divergences[0].path_rmse, 0) << bad.dump();
  }
}

// The counts of elements out of bound survive a report; counts from a file that cannot be (one
// missing, negative, past 2^62, more NaN-reference elements than diverging ones) are not taken.
TEST(VerdictJson, DivergingElementCountsRoundTripAndBadOnesAreNotTaken) {
  Verdict v;
  Divergence d{DivergenceKind::kValue, {"eager", "inductor"}, "inductor", "x"};
  d.diverging_elements = 7;
  d.nan_reference_elements = 3;
  v.divergences = {d};
  auto back = VerdictFromJson(VerdictToJson(v));
  ASSERT_TRUE(back.ok()) << back.error();
  EXPECT_EQ(back.value().divergences[0].diverging_elements, 7);
  EXPECT_EQ(back.value().divergences[0].nan_reference_elements, 3);
  nlohmann::json j = VerdictToJson(v);
  for (const nlohmann::json& bad :
       {nlohmann::json({{"diverging", 7}}),
        nlohmann::json({{"diverging", 2}, {"nan_reference", 3}}),
        nlohmann::json({{"diverging", -1}, {"nan_reference", 0}}),
        nlohmann::json({{"diverging", UINT64_MAX}, {"nan_reference", 0}}),
        nlohmann::json({{"diverging", "7"}, {"nan_reference", 3}})}) {
    j["divergences"][0]["elements"] = bad;
    auto r = VerdictFromJson(j);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r.value().divergences[0].diverging_elements, -1) << bad.dump();
    EXPECT_EQ(r.value().divergences[0].nan_reference_elements, -1) << bad.dump();
  }
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

// A reference result whose element 0 may also be +inf (a possible overflow), element 1 is exactly
// NaN (inf * 0 in its own row and column) and element 2 is plain finite.
PathResult SpecialReference() {
  PathResult r = Ok("reference", DType::kFloat32, {1, 3}, {3e38, NAN, 2.0}, {1e32, 0, 1e-6});
  r.outputs[0].also = {kAlsoPosInf, 0, 0};
  return r;
}

Expectation LegalRow() {
  Program p;
  p.inputs = {{"x0", {1, 2}, DType::kFloat32}, {"x1", {2, 3}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMm, {"x0", "x1"}}};
  p.outputs = {"v0"};
  return Expect(p);
}

TEST(JudgeSpecial, TheSpecialsTheReferenceAllowsAreNoDivergence) {
  std::vector<PathResult> rs = {SpecialReference(),
                                Ok("eager", DType::kFloat32, {1, 3}, {3e38, NAN, 2.0}),
                                Ok("inductor", DType::kFloat32, {1, 3}, {INFINITY, NAN, 2.0})};
  EXPECT_TRUE(Judge(LegalRow(), rs).divergences.empty());
}

TEST(JudgeSpecial, AnInfinityOfTheOtherSignOrANaNWhereOnlyOverflowIsAllowedIsBlamed) {
  for (double got : std::vector<double>{-INFINITY, NAN}) {
    std::vector<PathResult> rs = {SpecialReference(),
                                  Ok("eager", DType::kFloat32, {1, 3}, {3e38, NAN, 2.0}),
                                  Ok("inductor", DType::kFloat32, {1, 3}, {got, NAN, 2.0})};
    Verdict v = Judge(LegalRow(), rs);
    ASSERT_EQ(v.divergences.size(), 1u) << got;
    EXPECT_EQ(v.divergences[0].kind, DivergenceKind::kValue);
    EXPECT_EQ(v.divergences[0].blamed, "inductor");
    EXPECT_EQ(v.divergences[0].element, 0);
    EXPECT_EQ(v.divergences[0].classification, "filable");  // not a matter of precision
  }
}

TEST(JudgeSpecial, ANumberWhereIEEESaysNaNAndANaNInAFiniteElementAreBlamed) {
  std::vector<PathResult> zero = {SpecialReference(),
                                  Ok("eager", DType::kFloat32, {1, 3}, {3e38, NAN, 2.0}),
                                  Ok("inductor", DType::kFloat32, {1, 3}, {3e38, 0.0, 2.0})};
  Verdict v = Judge(LegalRow(), zero);
  ASSERT_EQ(v.divergences.size(), 1u);
  EXPECT_EQ(v.divergences[0].element, 1);
  EXPECT_EQ(v.divergences[0].blamed, "inductor");
  std::vector<PathResult> spread = {SpecialReference(),
                                    Ok("eager", DType::kFloat32, {1, 3}, {3e38, NAN, 2.0}),
                                    Ok("inductor", DType::kFloat32, {1, 3}, {3e38, NAN, NAN})};
  v = Judge(LegalRow(), spread);
  ASSERT_EQ(v.divergences.size(), 1u);
  EXPECT_EQ(v.divergences[0].element, 2);
  EXPECT_EQ(v.divergences[0].blamed, "inductor");
}

}  // namespace
}  // namespace mmdiff
