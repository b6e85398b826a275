// Tests for the attention fusions as root causes, as reports state them: a fused result signs with
// its patterns and its headline names them, and sdpa's safe softmax and float32 chain are by
// design.
#include <gtest/gtest.h>

#include <cmath>

#include "oracles/accuracy.h"
#include "oracles/attention_fusion.h"
#include "oracles/case_run_test_cases.h"
#include "oracles/root_cause.h"
#include "src/report/finding_class.h"
#include "src/report/headline.h"
#include "src/report/report.h"

namespace mmdiff {
namespace {

using case_test::Ok;

// A bmm whose inductor result is -11 where the reference and eager give -1, as when the attention
// fusion of pytorch#174049 drops the scale; `internals` are what inductor's compile reported.
// `nan_row`: the reference's and eager's element 1 is NaN (a row with no finite score) and
// inductor's is 0, as sdpa's kernels give; `scale_bug`: inductor's element 0 is wrong too.
CaseRun WrongBmm(const std::vector<std::string>& internals, DType out = DType::kFloat32,
                 bool nan_row = false, bool scale_bug = true) {
  Program p;
  p.inputs = {{"q", {1, 2, 3}, DType::kFloat32}, {"k", {1, 3, 2}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kBmm, {"q", "k"}}};
  p.outputs = {"v0"};
  TensorValue ref{DType::kFloat32,
                  {1, 2, 2},
                  Device::kCpu,
                  std::vector<double>(4, -1.0),
                  std::vector<double>(4, 0.01),
                  {}};
  TensorValue right = ref, wrong = ref;
  right.bound.clear();
  wrong.bound.clear();
  if (scale_bug) wrong.data[0] = -11;
  wrong.dtype = out;
  if (nan_row) {
    ref.data[1] = right.data[1] = NAN;
    wrong.data[1] = 0;
  }
  std::vector<PathResult> rs = {Ok("reference", DType::kFloat32, {1, 2, 2}),
                                Ok("eager", DType::kFloat32, {1, 2, 2}),
                                Ok("inductor", DType::kFloat32, {1, 2, 2})};
  rs[0].outputs = {ref};
  rs[1].outputs = {right};
  rs[2].outputs = {wrong};
  rs[2].compile.internals = internals;
  return JudgeCase(p, {"grid16", 1}, rs);
}

// A wrong result from a fused attention is not the rounding of the ops it replaced: the fusions
// the path at fault ran are in the signature (by pattern, whatever its dtype and training form)
// and in the headline.
TEST(AttentionFusion, AFusedAttentionsWrongResultIsARootCauseOfItsOwn) {
  CaseRun plain = WrongBmm({"extern:bmm", "rewrite:joint_graph.pointless_convert"});
  ASSERT_EQ(CaseFindings(plain).size(), 1u);
  EXPECT_EQ(CaseFinding(plain).signature, "value|path=inductor|values|op=bmm|devices=cpu,cpu");
  EXPECT_EQ(Headline(plain).rfind("inductor computes bmm(float32, float32) beyond", 0), 0u)
      << Headline(plain);
  CaseRun fused = WrongBmm({"rewrite:_sfdp_pattern_5_half_inference", "rewrite:decompose.mm"});
  EXPECT_EQ(CaseFinding(fused).signature,
            "value|path=inductor|values|fused=_sfdp_pattern_5|op=bmm|devices=cpu,cpu");
  EXPECT_EQ(Headline(fused).rfind(
                "inductor, fusing attention (_sfdp_pattern_5), computes bmm(float32, float32) "
                "beyond the rounding bound (got -11,",
                0),
            0u)
      << Headline(fused);
  EXPECT_EQ(CaseFinding(
                WrongBmm({"rewrite:_sfdp_pattern_6_training", "rewrite:_sfdp_pattern_5_inference"}))
                .signature,
            "value|path=inductor|values|fused=_sfdp_pattern_5,_sfdp_pattern_6|op=bmm|devices=cpu,"
            "cpu");
  // A result type too: one root cause whatever the pattern (the replacements do not restore the
  // pattern's casts), whose headline names the pattern.
  CaseRun dtype = WrongBmm({"rewrite:_sfdp_pattern_1_inference"}, DType::kFloat16);
  EXPECT_EQ(CaseFinding(dtype).signature,
            "dtype|path=inductor|returns|fused|op=bmm|devices=cpu,cpu");
  EXPECT_NE(Headline(dtype).find("inductor, fusing attention (_sfdp_pattern_1), returns float16"),
            std::string::npos)
      << Headline(dtype);
  EXPECT_EQ(CaseFinding(WrongBmm({"rewrite:_sfdp_pattern_8_training"}, DType::kFloat16)).signature,
            CaseFinding(dtype).signature);
  EXPECT_EQ(CaseFinding(WrongBmm({}, DType::kFloat16)).signature,
            "dtype|path=inductor|returns|op=bmm|devices=cpu,cpu");
}

// A compiled path raising on a program eager runs, after fusing attention, is one root cause per
// path and kind whatever the pattern and the ops around the attention (pytorch#195589 on 2.11.0:
// patterns 2, 3 and 25, before a linear with or without bias, 4 buckets by ops list).
TEST(AttentionFusion, ARaiseAfterAFusionIsOneRootCauseWhateverThePatternAndOps) {
  auto raising = [](const std::vector<std::string>& internals, OpKind last, bool backward) {
    Program p;
    p.inputs = {{"q", {1, 2, 3}, DType::kFloat32}, {"k", {1, 3, 2}, DType::kFloat32}};
    p.nodes = {{"v0", OpKind::kBmm, {"q", "k"}}, {"v1", last, {"v0", "v0"}}};
    p.outputs = {"v1"};
    std::vector<PathResult> rs = {Ok("reference", DType::kFloat32, {1, 2, 2}),
                                  Ok("eager", DType::kFloat32, {1, 2, 2}),
                                  case_test::Raises("inductor", "RuntimeError")};
    rs[0].outputs[0].data = rs[1].outputs[0].data = std::vector<double>(4, 1.0);
    rs[0].outputs[0].bound = std::vector<double>(4, 0.0);
    rs[2].backward = backward;
    rs[2].compile.internals = internals;
    return JudgeCase(p, {"grid16", 1}, rs);
  };
  CaseRun two = raising({"rewrite:_sfdp_pattern_2_half_inference"}, OpKind::kBmm, false);
  ASSERT_EQ(CaseFindings(two).size(), 1u);
  EXPECT_EQ(CaseFinding(two).signature,
            "error_behaviour|path=inductor|raises:RuntimeError|fused|devices=cpu");
  EXPECT_EQ(CaseFinding(raising({"rewrite:_sfdp_pattern_25_bs1_inference"}, OpKind::kMatmul, false))
                .signature,
            CaseFinding(two).signature);
  EXPECT_NE(Headline(two).find("fusing attention (_sfdp_pattern_2)"), std::string::npos)
      << Headline(two);
  // Without a fusion: the program's ops.
  EXPECT_EQ(CaseFinding(raising({}, OpKind::kBmm, false)).signature,
            "error_behaviour|path=inductor|raises:RuntimeError|ops=bmm|devices=cpu");
  // In backward alike.
  EXPECT_EQ(
      CaseFinding(raising({"rewrite:_sfdp_pattern_10_training"}, OpKind::kBmm, true)).signature,
      "backward_error|path=inductor|backward_raises|fused|devices=cpu");
}

// Sdpa zeroes a row whose scores are all masked or NaN, where the unfused softmax gives NaN: a
// fusion's numbers where the exact result is undefined are one by-design root cause per path,
// however many ops and patterns show it; a wrong number beside them is the fusion's own finding.
TEST(AttentionFusion, AFusedAttentionsNumbersWhereTheReferenceIsNanAreSdpasSafeSoftmax) {
  const std::vector<std::string> fusion = {"rewrite:_sfdp_pattern_2_inference"};
  CaseRun zeroed = WrongBmm(fusion, DType::kFloat32, /*nan_row=*/true, /*scale_bug=*/false);
  ASSERT_EQ(zeroed.verdict.divergences.size(), 1u);
  EXPECT_EQ(zeroed.verdict.divergences[0].diverging_elements, 1);
  EXPECT_EQ(zeroed.verdict.divergences[0].nan_reference_elements, 1);
  EXPECT_EQ(CaseFinding(zeroed).signature, "value|path=inductor|by_design=sdpa_safe_softmax");
  EXPECT_EQ(ClassOfRootCause(CaseFinding(zeroed).signature), FindingClass::kByDesign);
  EXPECT_NE(Headline(zeroed).find("inductor, fusing attention (_sfdp_pattern_2), returns numbers "
                                  "for bmm(float32, float32) where the unfused softmax gives NaN"),
            std::string::npos)
      << Headline(zeroed);
  EXPECT_NE(Headline(zeroed).find("[by design: sdpa zeroes a row with no finite score, "
                                  "pytorch#141128]"),
            std::string::npos)
      << Headline(zeroed);
  // Read back from its report, it signs the same.
  nlohmann::json report = MakeReport(zeroed, RunContext{});
  EXPECT_EQ(report["bucket"]["signature"], "value|path=inductor|by_design=sdpa_safe_softmax");
  EXPECT_EQ(report["verdict"]["divergences"][0]["elements"],
            nlohmann::json({{"diverging", 1}, {"nan_reference", 1}}));
  // Not without a fusion, nor with a wrong number beside the zeroed row.
  EXPECT_EQ(CaseFinding(WrongBmm({}, DType::kFloat32, true, false)).signature,
            "value|path=inductor|values|op=bmm|devices=cpu,cpu");
  CaseRun both = WrongBmm(fusion, DType::kFloat32, true, true);
  EXPECT_EQ(both.verdict.divergences[0].diverging_elements, 2);
  EXPECT_EQ(CaseFinding(both).signature,
            "value|path=inductor|values|fused=_sfdp_pattern_2|op=bmm|devices=cpu,cpu");
}

// A fusion's value finding that PyTorch's accuracy rule, measured against the float64 run, calls
// precision-only is sdpa keeping the chain in float32: one by-design root cause per path, whatever
// the op and pattern. Filable, or measured against the rounded reference only, it is the fusion's
// own finding.
TEST(AttentionFusion, AFusedAttentionNoLessAccurateThanEagerIsSdpaInFloat32) {
  const std::vector<std::string> fusion = {"rewrite:_sfdp_pattern_1_training"};
  CaseRun c = WrongBmm(fusion);
  ASSERT_EQ(c.verdict.divergences.size(), 1u);
  const std::string own = "value|path=inductor|values|fused=_sfdp_pattern_1|op=bmm|devices=cpu,cpu";
  EXPECT_EQ(CaseFinding(c).signature, own);
  PathResult fp64 = c.results[0];
  fp64.path = kReferenceFloat64Path;
  fp64.outputs[0].dtype = DType::kFloat64;
  CaseRun wrong = c;
  ASSERT_TRUE(ClassifyAgainstFloat64(wrong.verdict, wrong.results, fp64));
  EXPECT_EQ(wrong.verdict.divergences[0].classification, "filable");
  EXPECT_EQ(CaseFinding(wrong).signature, own);
  fp64.outputs[0].data = c.results[2].outputs[0].data;  // the fused result is the exact one
  ASSERT_TRUE(ClassifyAgainstFloat64(c.verdict, c.results, fp64));
  c.finding = LeadFinding(c);
  EXPECT_EQ(c.verdict.divergences[0].classification, "precision-only");
  EXPECT_EQ(CaseFinding(c).signature, "value|path=inductor|by_design=sdpa_float32");
  EXPECT_EQ(ClassOfRootCause(CaseFinding(c).signature), FindingClass::kByDesign);
  EXPECT_NE(Headline(c).find("but no less accurately than eager (RMSE 0 against float64, eager's "),
            std::string::npos)
      << Headline(c);
  EXPECT_NE(Headline(c).find("[by design: sdpa keeps the scores in float32, no less accurate]"),
            std::string::npos)
      << Headline(c);
  // Not without a fusion: a precision-only finding of the unfused ops stays theirs.
  CaseRun unfused = WrongBmm({});
  ASSERT_TRUE(ClassifyAgainstFloat64(unfused.verdict, unfused.results, fp64));
  unfused.finding = LeadFinding(unfused);
  EXPECT_EQ(unfused.verdict.divergences[0].classification, "precision-only");
  EXPECT_EQ(CaseFinding(unfused).signature, "value|path=inductor|values|op=bmm|devices=cpu,cpu");
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

// A fused attention whose softmax is over another dim than the last (pytorch#196468: on 2.11.0 the
// fusion returned the last dim's softmax) is a root cause of its own beside the fusion's others,
// and its headline says over which dim.
TEST(AttentionFusion, AFusionOfASoftmaxOverAnotherDimIsARootCauseOfItsOwn) {
  Program p;
  p.inputs = {{"x", {1, 2, 2}, DType::kFloat32}, {"v", {1, 2, 2}, DType::kFloat32}};
  Node softmax{"s", OpKind::kSoftmax, {"x"}};
  softmax.ints = {1};
  p.nodes = {softmax, {"o", OpKind::kBmm, {"s", "v"}}};
  p.outputs = {"o"};
  auto run = [&](const Program& prog) {
    std::vector<PathResult> rs = {case_test::Ok("reference", DType::kFloat32, {1, 2, 2}),
                                  case_test::Ok("eager", DType::kFloat32, {1, 2, 2}),
                                  case_test::Ok("inductor", DType::kFloat32, {1, 2, 2})};
    rs[0].outputs[0].data = rs[1].outputs[0].data = {0.5, 0.5, 0.5, 0.5};
    rs[0].outputs[0].bound = {0.01, 0.01, 0.01, 0.01};
    rs[2].outputs[0].data = {0.9, 0.1, 0.9, 0.1};
    rs[2].compile.internals = {"rewrite:_sfdp_pattern_1_inference"};
    return JudgeCase(prog, {"grid16", 1}, rs);
  };
  CaseRun other = run(p);
  EXPECT_EQ(SoftmaxOverOtherDim(p, other.contract), 1);
  // One root cause whatever the pattern and the op: the fusions share the missing check.
  EXPECT_EQ(CaseFinding(other).signature, "value|path=inductor|values|fused|softmax_dim=other");
  std::vector<PathResult> thirteen = other.results;
  thirteen[2].compile.internals = {"rewrite:_sfdp_pattern_13_inference"};
  Program matmul = p;
  matmul.nodes[1].op = OpKind::kMatmul;
  EXPECT_EQ(CaseFinding(JudgeCase(matmul, {"grid16", 1}, thirteen)).signature,
            CaseFinding(other).signature);
  EXPECT_EQ(Headline(other).rfind("inductor, fusing attention (_sfdp_pattern_1) of a softmax over "
                                  "dim 1, computes bmm(float32, float32)",
                                  0),
            0u)
      << Headline(other);
  // Over the last dim, spelled -1 or 2: the fusion's ordinary root cause.
  for (int64_t last : {-1, 2}) {
    p.nodes[0].ints = {last};
    CaseRun c = run(p);
    EXPECT_FALSE(SoftmaxOverOtherDim(p, c.contract).has_value()) << last;
    EXPECT_EQ(CaseFinding(c).signature,
              "value|path=inductor|values|fused=_sfdp_pattern_1|op=bmm|devices=cpu,cpu");
  }
}

}  // namespace
}  // namespace mmdiff
