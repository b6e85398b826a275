// PyTorch's accuracy rule measured as PyTorch measures it, against the program's math in float64
// (oracles/accuracy.h): a path that skips the program's float16 roundings
// (planted_wide_intermediates, what Inductor's pointless_convert or a fused attention kept in
// float32 does) goes beyond the rounded reference's bound and looks filable against it, but is
// closer to the exact result than eager: precision-only. A wrong path stays filable.
#include <gtest/gtest.h>

#include "oracles/accuracy.h"
#include "src/exec/supervisor.h"
#include "src/report/report.h"
#include "src/report/run_case.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

// a.half().float() @ b.half().float() of float32 inputs: eager rounds a and b to float16, a
// rounding the reference takes as certain; the planted path does not (Inductor's pointless_convert
// removes such a cast pair).
Program HalfChain() {
  Program p;
  p.inputs = {{"a", {24, 48}, DType::kFloat32}, {"b", {48, 48}, DType::kFloat32}};
  p.nodes = {{"a16", OpKind::kCast, {"a"}},
             {"a32", OpKind::kCast, {"a16"}},
             {"b16", OpKind::kCast, {"b"}},
             {"b32", OpKind::kCast, {"b16"}},
             {"u", OpKind::kMm, {"a32", "b32"}}};
  for (int i : {0, 2}) p.nodes[i].dtype = DType::kFloat16;
  for (int i : {1, 3}) p.nodes[i].dtype = DType::kFloat32;
  p.outputs = {"u"};
  return p;
}

const Divergence* ValueDivergence(const CaseRun& c, const std::string& path) {
  for (const auto& d : c.verdict.divergences)
    if (d.kind == DivergenceKind::kValue && d.blamed == path) return &d;
  return nullptr;
}

SupervisorOptions TestPathOptions(const std::string& name) {
  SupervisorOptions o = e2e::WorkerOptions(e2e::ScratchDir(name) + "/worker.log");
  o.worker_args = {"--test-paths"};
  return o;
}

TEST(Float64AccuracyE2E, SkippedRoundingsArePrecisionOnlyAgainstTheFloat64Run) {
  Supervisor sup(TestPathOptions("float64-accuracy"));
  ASSERT_TRUE(sup.Hello().ok());
  const std::vector<std::string> paths = {"reference", "eager", "planted_wide_intermediates"};
  // The first seed whose case goes beyond the rounded reference's bound (most do).
  for (uint64_t seed = 1; seed <= 20; ++seed) {
    InputRecipe recipe{"uniform", seed};
    std::vector<PathResult> rs = sup.Run(HalfChain(), recipe, paths);
    CaseRun rounded = JudgeCase(HalfChain(), recipe, rs);
    const Divergence* d = ValueDivergence(rounded, "planted_wide_intermediates");
    if (!d) continue;
    EXPECT_EQ(d->classification, "filable") << "against the rounded reference";
    EXPECT_FALSE(d->rmse_float64);
    CaseRun judged = RunAndJudge(sup, HalfChain(), recipe, paths);
    const Divergence* f = ValueDivergence(judged, "planted_wide_intermediates");
    ASSERT_NE(f, nullptr) << Headline(judged);
    EXPECT_EQ(f->classification, "precision-only") << Headline(judged);
    EXPECT_TRUE(f->rmse_float64);
    EXPECT_LT(f->path_rmse, f->eager_rmse);
    return;
  }
  FAIL() << "no seed in 1..20 took the planted path beyond the rounded reference's bound";
}

TEST(Float64AccuracyE2E, AWrongPathStaysFilableAgainstTheFloat64Run) {
  Supervisor sup(TestPathOptions("float64-accuracy-wrong"));
  ASSERT_TRUE(sup.Hello().ok());
  Program p = HalfChain();
  for (int i : {0, 2}) p.nodes[i].dtype = DType::kFloat32;
  CaseRun judged = RunAndJudge(sup, p, {"uniform", 1}, {"reference", "eager", "planted_drop_k"});
  const Divergence* f = ValueDivergence(judged, "planted_drop_k");
  ASSERT_NE(f, nullptr) << Headline(judged);
  EXPECT_EQ(f->classification, "filable");
  EXPECT_TRUE(f->rmse_float64);
  EXPECT_GT(f->path_rmse, 10 * f->eager_rmse);
}

}  // namespace
}  // namespace mmdiff
