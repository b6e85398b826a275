// Inductor's attention fusions hand a hand-written float16 attention to sdpa, whose CPU kernel
// keeps the scores and the probabilities in float32 where the program rounds them to float16: the
// reference allows either (src/ir/attention_chain.h), so a fused result is judged as correct as
// the program's own roundings, and a fusion's result is signed with its pattern.
#include <gtest/gtest.h>

#include "oracles/judge.h"
#include "src/exec/supervisor.h"
#include "src/report/report.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

// softmax(bmm(q, k)) then bmm with v in float16, from a torch 2.11.0 campaign (case reduced),
// which Inductor 2.11.0 and 2.15.0 fuse (_sfdp_pattern_13_half_inference): the fused result is
// 0.0031 from the program's float16 one at an element where that rounding's bound is 0.00085.
Program HalfAttention() {
  Program p;
  p.inputs = {{"x0", {1, 15, 2}, DType::kFloat16},
              {"x1", {1, 15, 15}, DType::kFloat16},
              {"x2", {1, 15, 15}, DType::kFloat16}};
  p.nodes = {{"v0", OpKind::kTranspose, {"x0"}},
             {"v1", OpKind::kTranspose, {"x1"}},
             {"v2", OpKind::kBmm, {"v0", "v1"}},
             {"v4", OpKind::kSoftmax, {"v2"}},
             {"v6", OpKind::kBmm, {"v4", "x2"}}};
  p.nodes[0].ints = {1, 2};
  p.nodes[1].ints = {1, 2};
  p.nodes[3].ints = {-1};
  p.outputs = {"v6"};
  return p;
}

TEST(AttentionFusionE2E, AFusedHalfAttentionKeepingItsScoresInFloat32IsNoFinding) {
  Supervisor sup(e2e::WorkerOptions(e2e::ScratchDir("attention-fusion") + "/worker.log"));
  ASSERT_TRUE(sup.Hello().ok());
  InputRecipe recipe{"grid16", 17023932198243042137ull};
  std::vector<PathResult> rs = sup.Run(HalfAttention(), recipe, {"reference", "eager", "inductor"});
  ASSERT_EQ(rs.size(), 3u);
  ASSERT_EQ(rs[2].kind, OutcomeKind::kOk) << rs[2].message;
  bool fused = false;
  for (const std::string& name : rs[2].compile.internals)
    fused |= name.rfind("rewrite:_sfdp_pattern_", 0) == 0;
  ASSERT_TRUE(fused) << "inductor no longer fuses this attention: the test needs another form; "
                        "its internals: "
                     << testing::PrintToString(rs[2].compile.internals);
  CaseRun c = JudgeCase(HalfAttention(), recipe, rs);
  EXPECT_FALSE(c.verdict.diverges()) << Headline(c);
}

}  // namespace
}  // namespace mmdiff
