// Tests for root causes of a compiled path raising in a backward that eager runs: a gradient left
// in the promoted dtype by a type-promoting op is one root cause per path, whatever the ops around
// it, and its headline says so; other backward errors stay per op.
#include <gtest/gtest.h>

#include "oracles/case_run_test_cases.h"
#include "oracles/root_cause.h"
#include "src/ir/recorded_paths.h"
#include "src/report/headline.h"
#include "src/report/regression_entry.h"
#include "src/report/report.h"

namespace mmdiff {
namespace {

using case_test::Ok;
using case_test::Raises;

// The program of corpus/regression/torchscript-add-promotion-backward-wrong-grad-dtype.json:
// matmul(bfloat16 cast of x0, x2 bfloat16) (a matrix-vector product) + x3 float32, gradients to
// x2 and x3.
Program CatalogueProgram(DType low = DType::kBFloat16, DType bias = DType::kFloat32) {
  Program p;
  p.inputs = {{"x0", {1, 1, 1}, DType::kFloat32},
              {"x2", {1}, low, Device::kCpu, Layout::kContiguous, true},
              {"x3", {1}, bias, Device::kCpu, Layout::kContiguous, true}};
  p.nodes = {{"v0", OpKind::kCast, {"x0"}, low},
             {"v5", OpKind::kMatmul, {"v0", "x2"}},
             {"v7", OpKind::kAdd, {"v5", "x3"}}};
  p.outputs = {"v7"};
  return p;
}

// A campaign's form on 2.15.0: a float16 bmm's scores divided by a scale, plus a float32 mask.
Program Float16BmmPlusMask() {
  Program p;
  p.inputs = {{"x0", {1, 1, 1, 1}, DType::kFloat16, Device::kCpu, Layout::kContiguous, true},
              {"x1", {1, 1, 1, 1}, DType::kFloat16},
              {"x2", {1, 1}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMatmul, {"x0", "x1"}},
             {"v1", OpKind::kDivScalar, {"v0"}},
             {"v2", OpKind::kAdd, {"v1", "x2"}}};
  p.nodes[1].alpha = 2.0;
  p.outputs = {"v2"};
  return p;
}

// Reference and eager return the output and the gradients; torchscript raises in its backward.
std::vector<PathResult> TorchscriptRaisesInBackward(const CaseRun& judged) {
  const Expectation& c = judged.contract;
  PathResult ok{"reference", OutcomeKind::kOk};
  ok.traits = RecordedPathTraits("reference");
  for (const ValueType& t : c.outputs) ok.outputs.push_back({t.dtype, t.shape, t.device, {}, {}});
  PathResult eager = ok;
  eager.path = "eager";
  eager.traits = RecordedPathTraits("eager");
  PathResult ts = Raises("torchscript", "RuntimeError");
  ts.backward = true;
  ts.message = "expected m1 and m2 to have the same dtype, but got: c10::BFloat16 != float";
  return {ok, eager, ts};
}

CaseRun Judged(const Program& p) {
  CaseRun shape = JudgeCase(p, {"grid16", 1}, {});
  return JudgeCase(p, {"grid16", 1}, TorchscriptRaisesInBackward(shape));
}

TEST(RootCauseBackward, AGradientLeftInThePromotedDtypeIsOneRootCauseWhateverTheOps) {
  const std::string sig = "backward_error|path=torchscript|backward_raises|promoted_gradient|";
  CaseRun entry = Judged(CatalogueProgram());
  CaseRun fp16 = Judged(CatalogueProgram(DType::kFloat16));
  CaseRun bmm = Judged(Float16BmmPlusMask());
  for (const CaseRun* c : {&entry, &fp16, &bmm}) {
    auto findings = CaseFindings(*c);
    ASSERT_EQ(findings.size(), 1u) << VerdictToJson(c->verdict).dump();
    EXPECT_EQ(findings[0].signature.rfind(sig, 0), 0u) << findings[0].signature;
  }
  EXPECT_EQ(CaseFindings(entry)[0].signature, CaseFindings(fp16)[0].signature);
  EXPECT_EQ(CaseFindings(bmm)[0].signature, sig + "devices=cpu");
  // The catalogue entry's expectation signs the same, so the float16 forms are known, not new.
  EXPECT_EQ(RootCauseSignature(entry.program, entry.contract,
                               ExpectedFacts(entry.contract, DivergenceKind::kBackwardError,
                                             "torchscript", RecordedPathTraits("torchscript"))),
            CaseFindings(fp16)[0].signature);
  // The headline names the promoting op with its dtypes.
  EXPECT_EQ(Headline(WithFinding(bmm, CaseFindings(bmm)[0])),
            "torchscript raises RuntimeError in backward on a program of matmul[bmm], div_scalar, "
            "add where eager returns gradients, after add(float16, float32) promotes a "
            "gradient-tracked operand [filable]");
}

TEST(RootCauseBackward, ABackwardErrorWithoutAPromotedGradientStaysPerOp) {
  // The same program with a bfloat16 bias: add promotes nothing, so the ops sign the finding.
  CaseRun same = Judged(CatalogueProgram(DType::kBFloat16, DType::kBFloat16));
  auto findings = CaseFindings(same);
  ASSERT_EQ(findings.size(), 1u) << VerdictToJson(same.verdict).dump();
  EXPECT_EQ(findings[0].signature,
            "backward_error|path=torchscript|backward_raises|ops=mv,add|devices=cpu");
  EXPECT_EQ(Headline(WithFinding(same, findings[0])).find("promotes"), std::string::npos);
  // A promoting op whose lower-precision operand tracks no gradient hands none back.
  Program untracked = CatalogueProgram();
  untracked.inputs[1].requires_grad = false;
  CaseRun u = Judged(untracked);
  ASSERT_EQ(CaseFindings(u).size(), 1u) << VerdictToJson(u.verdict).dump();
  EXPECT_EQ(CaseFindings(u)[0].signature.find("promoted_gradient"), std::string::npos);
}

}  // namespace
}  // namespace mmdiff
