// Tests for root causes where eager breaks a rule that a sibling op or the documentation keeps
// (docs/judging.md, "Where eager breaks the rule"): the contract follows the rule, eager is blamed,
// and the paths that follow the rule are not, in the signature and in the headline.
#include <gtest/gtest.h>

#include "oracles/case_run_test_cases.h"
#include "oracles/root_cause.h"
#include "src/ir/test_programs.h"
#include "src/report/headline.h"
#include "src/report/regression_entry.h"
#include "src/report/report.h"

namespace mmdiff {
namespace {

using case_test::Ok;
using case_test::Raises;
using case_test::Signatures;

// Where eager breaks a rule that a sibling op and the maintainers keep, the contract follows the
// rule (docs/judging.md, "Where eager breaks the rule"). Results as torch 2.15.0 gives them: eager
// on cpu returns the empty product in the second matrix's dtype, eager on meta and every
// torch.compile path raise RuntimeError as mm does ("expected scalar type ..."), TorchScript runs
// eager's kernels.
std::vector<PathResult> EmptyMixedBmmResults(DType second, Shape out, bool training = false,
                                             std::vector<TensorValue> grads = {}) {
  std::vector<PathResult> rs = {Raises("reference", "RuntimeError"), Ok("eager", second, out)};
  for (const char* path : {"eager_meta", "inductor", "aot_eager", "compile_eager"})
    rs.push_back(Raises(path, "RuntimeError"));
  rs.push_back(Ok("torchscript", second, out));
  if (training)
    for (auto* r : {&rs[1], &rs.back()})
      r->outputs.insert(r->outputs.end(), grads.begin(), grads.end());
  return rs;
}

TEST(RootCause, EmptyMixedDtypeBmmBaddbmmAndBatchedMatmulAreOneRootCauseBlamedOnEager) {
  const DType f64 = DType::kFloat64, f32 = DType::kFloat32, i64 = DType::kInt64;
  const auto one = test_programs::OneOp;
  Program bmm = one(OpKind::kBmm, {{"a", {0, 2, 3}, f64}, {"b", {0, 3, 4}, i64}});
  Program baddbmm =
      one(OpKind::kBaddbmm, {{"c", {2, 0, 4}, f64}, {"a", {2, 0, 3}, f64}, {"b", {2, 3, 4}, i64}});
  // The programs of the two catalogue entries this replaces: a 4-D matmul of a transposed
  // float32 [1, 1, 1, 0] and its float64 cast (compile_eager's), and a 2-D @ 3-D matmul
  // (eager_meta's), both reaching bmm.
  Program matmul4d;
  matmul4d.inputs = {{"x2", {1, 1, 1, 0}, f32}};
  matmul4d.nodes = {{"v1", OpKind::kCast, {"x2"}, f64},
                    {"v2", OpKind::kTranspose, {"x2"}},
                    {"v7", OpKind::kMatmul, {"v2", "v1"}}};
  matmul4d.nodes[1].ints = {2, 3};
  matmul4d.outputs = {"v7"};
  Program matmul23 = one(OpKind::kMatmul, {{"x0", {0, 1}, f64}, {"x1", {1, 1, 1}, f32}});
  Program training = matmul23;
  for (auto& in : training.inputs) in.requires_grad = true;
  struct Case {
    const Program& p;
    std::vector<PathResult> results;
    std::string headline;
  };
  std::vector<Case> cases = {
      {bmm, EmptyMixedBmmResults(i64, {0, 2, 4}),
       "eager accepts bmm(float64, int64) with an empty operand that the rule rejects "
       "(same_dtype)"},
      {baddbmm, EmptyMixedBmmResults(i64, {2, 0, 4}),
       "eager accepts baddbmm(float64, float64, int64) with an empty operand that the rule "
       "rejects (same_dtype)"},
      {matmul4d, EmptyMixedBmmResults(f64, {1, 1, 0, 0}),
       "eager accepts matmul[bmm](float32, float64) with an empty operand that the rule rejects "
       "(same_dtype)"},
      {matmul23, EmptyMixedBmmResults(f32, {1, 0, 1}),
       "eager accepts matmul[bmm](float64, float32) with an empty operand that the rule rejects "
       "(same_dtype)"},
      // Training: eager also returns the (empty and zero) gradients; the others raise in the
      // forward as before.
      {training,
       EmptyMixedBmmResults(
           f32, {1, 0, 1}, true,
           {{f64, {0, 1}, Device::kCpu, {}, {}}, {f32, {1, 1, 1}, Device::kCpu, {}, {}}}),
       "eager accepts matmul[bmm](float64, float32) with an empty operand that the rule rejects "
       "(same_dtype)"},
  };
  for (const Case& k : cases) {
    CaseRun c = JudgeCase(k.p, {"grid16", 1}, k.results);
    SCOPED_TRACE(k.p.Summary() + ": " + VerdictToJson(c.verdict).dump());
    // eager_meta, inductor, aot_eager and compile_eager raise as the rule says: not blamed.
    ASSERT_EQ(c.verdict.divergences.size(), 5u);
    for (const Divergence& d : c.verdict.divergences) EXPECT_EQ(d.blamed, "eager");
    auto findings = CaseFindings(c);
    ASSERT_EQ(findings.size(), 1u);
    EXPECT_EQ(c.verdict.divergences[findings[0].divergence].kind, DivergenceKind::kContract);
    EXPECT_TRUE(findings[0].also.empty());
    EXPECT_EQ(findings[0].signature,
              "contract|path=eager|accepts|rule=same_dtype|deviation=empty_bmm_dtype|devices=cpu");
    EXPECT_EQ(Headline(WithFinding(c, findings[0])), k.headline + " [filable]");
    // The catalogue signs an entry of it (a contract divergence) the same way.
    EXPECT_EQ(RootCauseSignature(c.program, c.contract,
                                 ExpectedFacts(c.contract, DivergenceKind::kContract, "eager",
                                               RecordedPathTraits("eager"))),
              findings[0].signature);
  }
}

TEST(RootCause, ALinearBiasOfAnotherDtypeOffTheTwoDPathIsEagersRootCause) {
  // float32 input and weight, float64 bias: eager's 2-D path (addmm) raises; a 1-D input's adds
  // the 0-d bias in place and returns float32, and every path follows eager (torch 2.15.0).
  Program p;
  p.inputs = {
      {"x", {4}, DType::kFloat32}, {"w", {5, 4}, DType::kFloat32}, {"b", {}, DType::kFloat64}};
  p.nodes = {{"v0", OpKind::kLinear, {"x", "w", "b"}}};
  p.outputs = {"v0"};
  std::vector<PathResult> rs = {Raises("reference", "RuntimeError")};
  for (const char* path : {"eager", "inductor", "aot_eager", "compile_eager", "torchscript"})
    rs.push_back(Ok(path, DType::kFloat32, {5}));
  rs.push_back(Ok("eager_meta", DType::kFloat32, {5}, Device::kMeta));
  CaseRun c = JudgeCase(p, {"grid16", 1}, rs);
  auto findings = CaseFindings(c);
  ASSERT_EQ(findings.size(), 1u) << VerdictToJson(c.verdict).dump();
  EXPECT_EQ(c.verdict.divergences[findings[0].divergence].blamed, "eager");
  EXPECT_EQ(findings[0].signature,
            "contract|path=eager|accepts|rule=same_dtype|deviation=linear_bias_dtype|devices=cpu");
  EXPECT_EQ(Headline(WithFinding(c, findings[0])),
            "eager accepts linear(float32, float32, float64) of a non-2-D input that the rule "
            "rejects (same_dtype) [filable]");
  // A transposed 3-D input with a 1-D bias: eager adds in place (float32); eager on meta, aot_eager
  // and inductor decompose linear and promote (float64). They break the rule too, only otherwise:
  // named in eager's finding, which stays one.
  p.inputs[0] = {"x", {2, 3, 4}, DType::kFloat32, Device::kCpu, Layout::kTransposed};
  p.inputs[2].shape = {5};
  rs = {Raises("reference", "RuntimeError"),
        Ok("eager", DType::kFloat32, {2, 3, 5}),
        Ok("eager_meta", DType::kFloat64, {2, 3, 5}, Device::kMeta),
        Ok("aot_eager", DType::kFloat64, {2, 3, 5}),
        Ok("inductor", DType::kFloat64, {2, 3, 5}),
        Ok("compile_eager", DType::kFloat32, {2, 3, 5})};
  CaseRun t = JudgeCase(p, {"grid16", 1}, rs);
  findings = CaseFindings(t);
  ASSERT_EQ(findings.size(), 1u) << VerdictToJson(t.verdict).dump();
  EXPECT_EQ(t.verdict.divergences[findings[0].divergence].kind, DivergenceKind::kContract);
  EXPECT_EQ(findings[0].also, (std::vector<std::string>{"eager_meta", "aot_eager", "inductor"}));
  EXPECT_EQ(Headline(WithFinding(t, findings[0])),
            "eager accepts linear(float32, float32, float64) of a non-2-D input that the rule "
            "rejects (same_dtype) (also: eager_meta, aot_eager, inductor) [filable]");
  // A 2-D input: eager raises, and a path that accepts is at fault as ever.
  p.inputs[0] = {"x", {3, 4}, DType::kFloat32};
  rs = {Raises("reference", "RuntimeError"), Raises("eager", "RuntimeError"),
        Ok("inductor", DType::kFloat64, {3, 5})};
  EXPECT_EQ(Signatures(JudgeCase(p, {"grid16", 1}, rs)),
            std::vector<std::string>{
                "error_behaviour|path=inductor|accepts|rule=same_dtype|op=addmm|devices=cpu,cpu,"
                "cpu"});
}

// addmv of a float32 bias and bfloat16 operands, as torch 2.11.0 runs it: eager on cpu returns
// bfloat16 (it never compares the bias), eager on meta and Inductor float32 (they promote). No side
// follows a rule; 2.12 made every path raise, as addmm does: eager's deviation, one root cause.
TEST(RootCause, OnTorch2_11AnAddmvBiasOfAnotherDtypeIsEagersRootCauseNamingMetaAndInductor) {
  Program p;
  p.inputs = {
      {"b", {3}, DType::kFloat32}, {"m", {3, 4}, DType::kBFloat16}, {"v", {4}, DType::kBFloat16}};
  p.nodes = {{"v0", OpKind::kAddmv, {"b", "m", "v"}}};
  p.outputs = {"v0"};
  std::vector<PathResult> rs = {
      Raises("reference", "RuntimeError"), Ok("eager", DType::kBFloat16, {3}),
      Ok("eager_meta", DType::kFloat32, {3}, Device::kMeta), Ok("inductor", DType::kFloat32, {3}),
      Ok("torchscript", DType::kBFloat16, {3})};
  CaseRun c = JudgeCase(p, {"grid16", 1}, rs, TorchRelease{2, 11});
  auto findings = CaseFindings(c);
  ASSERT_EQ(findings.size(), 1u) << VerdictToJson(c.verdict).dump();
  EXPECT_EQ(findings[0].signature,
            "contract|path=eager|accepts|rule=same_dtype|deviation=addmv_bias_dtype|devices=cpu");
  EXPECT_EQ(findings[0].also, (std::vector<std::string>{"eager_meta", "inductor"}));
  EXPECT_EQ(Headline(WithFinding(c, findings[0])),
            "eager accepts addmv(float32, bfloat16, bfloat16) with a bias of another dtype that "
            "the rule rejects (same_dtype) (also: eager_meta, inductor) [filable]");
  // repro.py says why the rule, not eager, is taken as right.
  const std::string repro = MakeRepro(WithFinding(c, findings[0]), {});
  EXPECT_NE(repro.find("Eager breaks the rule here (addmv_bias_dtype)"), std::string::npos)
      << repro;
  EXPECT_NE(repro.find("The sibling addmm raises"), std::string::npos) << repro;
  // From 2.12 the rule is eager's own: no deviation, and a path that accepts is at fault.
  rs = {Raises("reference", "RuntimeError"), Raises("eager", "RuntimeError"),
        Ok("inductor", DType::kFloat32, {3})};
  EXPECT_EQ(Signatures(JudgeCase(p, {"grid16", 1}, rs, TorchRelease{2, 15})),
            std::vector<std::string>{
                "error_behaviour|path=inductor|accepts|rule=same_dtype|op=addmv|devices=cpu,cpu,"
                "cpu"});
}

// addmv with an empty matrix and a [1] bias, training, as torch 2.15.0 runs it: eager's forward
// returns, its backward raises RuntimeError "size mismatch"; AOTAutograd traces the backward at the
// first call, so aot_eager and inductor raise it in their forward call; eager on meta, Dynamo alone
// and TorchScript raise in backward as eager does. The reference differentiates it.
TEST(RootCause, EagerRaisingInABackwardItsForwardAcceptsIsOneRootCauseBlamedOnEager) {
  Program p = test_programs::EmptyAddmvTraining();
  auto in_backward = [](const std::string& path) {
    PathResult r = Raises(path, "RuntimeError");
    r.backward = true;
    return r;
  };
  PathResult ref = Ok("reference", DType::kFloat32, {0});
  for (Shape s : {Shape{1}, Shape{0, 3}, Shape{3}})
    ref.outputs.push_back({DType::kFloat32, s, Device::kCpu, {}, {}});
  std::vector<PathResult> rs = {ref,
                                in_backward("eager"),
                                in_backward("eager_meta"),
                                Raises("aot_eager", "RuntimeError"),
                                Raises("inductor", "RuntimeError"),
                                in_backward("compile_eager"),
                                in_backward("torchscript")};
  CaseRun c = JudgeCase(p, {"grid16", 1}, rs);
  auto findings = CaseFindings(c);
  ASSERT_EQ(findings.size(), 1u) << VerdictToJson(c.verdict).dump();
  const Divergence& d = c.verdict.divergences[findings[0].divergence];
  EXPECT_EQ(d.kind, DivergenceKind::kBackwardError);
  EXPECT_EQ(d.blamed, "eager");
  EXPECT_EQ(findings[0].signature,
            "backward_error|path=eager|backward_raises|op=addmv|devices=cpu,"
            "cpu,cpu");
  // The compiled paths that raised it in their forward call share eager's fault: named.
  EXPECT_EQ(findings[0].also, (std::vector<std::string>{"aot_eager", "inductor"}));
  EXPECT_EQ(Headline(WithFinding(c, findings[0])),
            "eager raises RuntimeError in backward on addmv(float32, float32, float32) whose "
            "forward it accepts (also: aot_eager, inductor) [filable]");
  // Its repro.py checks eager against the contract (it must return the outputs and gradients),
  // not eager against a compiled path that raises too.
  const std::string repro = MakeRepro(WithFinding(c, findings[0]), {});
  EXPECT_NE(repro.find("exits non-zero while eager does not return the documented result"),
            std::string::npos)
      << repro;
  EXPECT_EQ(repro.find("compiled = outcome("), std::string::npos) << repro;
  // A regression entry of it (a backward error blamed on eager) signs the same.
  EXPECT_EQ(RootCauseSignature(p, c.contract,
                               ExpectedFacts(c.contract, DivergenceKind::kBackwardError, "eager",
                                             RecordedPathTraits("eager"))),
            findings[0].signature);
  // A compiled path that raises in its own backward after fusing attention names the fusion.
  {
    std::vector<PathResult> fused = {ref, ref, in_backward("inductor")};
    fused[1].path = "eager";
    fused[1].traits = RecordedPathTraits("eager");
    fused[2].traits = RecordedPathTraits("inductor");
    fused[2].compile.internals = {"rewrite:_sfdp_pattern_10_training", "extern:bmm"};
    CaseRun f = JudgeCase(p, {"grid16", 1}, fused);
    auto found = CaseFindings(f);
    ASSERT_EQ(found.size(), 1u) << VerdictToJson(f.verdict).dump();
    EXPECT_EQ(
        Headline(WithFinding(f, found[0]))
            .rfind("inductor, fusing attention (_sfdp_pattern_10), raises RuntimeError in backward "
                   "on addmv(float32, float32, float32) where eager returns gradients",
                   0),
        0u)
        << Headline(WithFinding(f, found[0]));
  }
  // A compiled path that returns the gradients follows the rule: folded in, not named.
  rs[4] = ref;
  rs[4].path = "inductor";
  rs[4].traits = RecordedPathTraits("inductor");
  auto follows = CaseFindings(JudgeCase(p, {"grid16", 1}, rs));
  ASSERT_EQ(follows.size(), 1u);
  EXPECT_EQ(follows[0].also, std::vector<std::string>{"aot_eager"});
  // One that raises another class in its forward is a finding of its own, and its headline says
  // what eager did: raise in backward, not accept.
  rs[4] = Raises("inductor", "IndexError");
  CaseRun other = JudgeCase(p, {"grid16", 1}, rs);
  auto two = CaseFindings(other);
  ASSERT_EQ(two.size(), 2u) << VerdictToJson(other.verdict).dump();
  EXPECT_EQ(Headline(WithFinding(other, two[1])),
            "inductor raises IndexError on addmv(float32, float32, float32) where eager raises "
            "RuntimeError in backward (nobody blamed: neither follows the contract) [error class "
            "or meta]");
}

// On torch 2.11.0 the meta function and Dynamo still accepted the empty mixed-dtype product as
// eager did, and inductor returned float64 where eager returned float32 (measured by `mmdiff
// releases`): the same root cause, eager's, with inductor named in it as breaking the rule too.
// This is what corpus/regression/eager-empty-bmm-mixed-dtypes.json expects for that release.
TEST(RootCause, OnTorch2_11TheEmptyMixedDtypeBmmIsEagersRootCauseNamingInductor) {
  Program p;
  p.inputs = {{"x0", {0, 1}, DType::kFloat64}, {"x1", {1, 1, 1}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMatmul, {"x0", "x1"}}};
  p.outputs = {"v0"};
  std::vector<PathResult> rs = {Raises("reference", "RuntimeError"),
                                Ok("eager", DType::kFloat32, {1, 0, 1}),
                                Ok("eager_meta", DType::kFloat32, {1, 0, 1}, Device::kMeta),
                                Ok("inductor", DType::kFloat64, {1, 0, 1})};
  for (const char* path : {"aot_eager", "compile_eager", "torchscript"})
    rs.push_back(Ok(path, DType::kFloat32, {1, 0, 1}));
  CaseRun c = JudgeCase(p, {"exact", 0}, rs, TorchRelease{2, 11});
  auto findings = CaseFindings(c);
  ASSERT_EQ(findings.size(), 1u) << VerdictToJson(c.verdict).dump();
  EXPECT_EQ(findings[0].signature,
            "contract|path=eager|accepts|rule=same_dtype|deviation=empty_bmm_dtype|devices=cpu");
  EXPECT_EQ(findings[0].also, std::vector<std::string>{"inductor"});
  VersionExpectation entry{">=2.11.0,<2.12.0", true, {{"contract", "eager"}, {"dtype", ""}}};
  EXPECT_EQ(CompareWithExpectation(c.verdict, entry), "");
}

}  // namespace
}  // namespace mmdiff
