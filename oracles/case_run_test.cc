// Tests for judging a case end to end: the verdict on a case's results, and the rerun with the
// ignored inputs zeroed planned and judged.
#include "oracles/case_run.h"

#include <gtest/gtest.h>

#include <cmath>

#include "oracles/ignored_inputs.h"

namespace mmdiff {
namespace {

// out = addmm(c, a, b) with beta = 0: c (input 0) is ignored.
Program AddmmBetaZero() {
  Program p;
  p.inputs = {{"c", {2, 2}, DType::kFloat32},
              {"a", {2, 3}, DType::kFloat32},
              {"b", {3, 2}, DType::kFloat32}};
  Node n{"out", OpKind::kAddmm, {"c", "a", "b"}};
  n.beta = 0;
  p.nodes = {n};
  p.outputs = {"out"};
  return p;
}

PathResult Ok(const std::string& path, std::vector<double> values) {
  PathResult r{path, OutcomeKind::kOk};
  r.outputs.push_back({DType::kFloat32, {2, 2}, Device::kCpu, std::move(values)});
  return r;
}

PathResult Raises(const std::string& path) {
  PathResult r{path, OutcomeKind::kError};
  r.error_class = "RuntimeError";
  return r;
}

// A recipe whose values put a NaN or an infinity into input 0.
InputRecipe SpecialBias(const Program& p) {
  InputRecipe r{"normal", 0};
  r.special = 1.0;
  for (r.seed = 0; r.seed < 64; ++r.seed)
    if (!IgnoredSpecialInputs(p, r).empty()) return r;
  ADD_FAILURE() << "no seed gives input 0 a special value";
  return r;
}

TEST(CaseRun, JudgeCaseJudgesTheResultsAgainstTheContractAndEachOther) {
  // float16 @ float32: eager must raise; inductor returning is an error-behaviour divergence.
  Program p;
  p.inputs = {{"x0", {4, 8}, DType::kFloat16}, {"x1", {8, 3}, DType::kFloat32}};
  p.nodes = {{"v0", OpKind::kMm, {"x0", "x1"}}};
  p.outputs = {"v0"};
  PathResult inductor{"inductor", OutcomeKind::kOk};
  inductor.outputs.push_back({DType::kFloat32, {4, 3}, Device::kCpu, {}, {}});
  CaseRun c = JudgeCase(p, {"grid16", 1}, {Raises("reference"), Raises("eager"), inductor});
  EXPECT_TRUE(c.contract.rejects);
  EXPECT_EQ(c.contract.violation.rule, "same_dtype");
  ASSERT_EQ(c.verdict.divergences.size(), 1u);
  EXPECT_EQ(c.verdict.divergences[0].kind, DivergenceKind::kErrorBehaviour);
  EXPECT_EQ(c.verdict.divergences[0].blamed, "inductor");
  EXPECT_EQ(c.results.size(), 3u);
  EXPECT_EQ(c.finding, 0u);
  EXPECT_FALSE(c.ablation);
  EXPECT_FALSE(c.mitigations);
  EXPECT_FALSE(c.known.has_value());
  EXPECT_TRUE(c.rerun_zeroed.empty());
  // Agreeing paths: no divergence.
  EXPECT_FALSE(JudgeCase(p, {"grid16", 1}, {Raises("reference"), Raises("eager"), Raises("aoti")})
                   .verdict.diverges());
}

TEST(CaseRun, AZeroedRerunIsPlannedForTheReturningPathsWhereAnIgnoredInputIsSpecial) {
  Program p = AddmmBetaZero();
  std::vector<PathResult> results = {Ok("reference", {1, 2, 3, 4}), Ok("eager", {1, 2, 3, 4}),
                                     Raises("aot_eager"), Ok("inductor", {1, 2, 3, 4})};
  auto plan = PlanZeroedRerun(JudgeCase(p, SpecialBias(p), results));
  ASSERT_TRUE(plan);
  EXPECT_EQ(plan->zeroed, std::vector<int>{0});
  EXPECT_EQ(plan->paths, (std::vector<std::string>{"eager", "inductor"}));
  // No special value in the ignored input, or no path but the reference returned: no rerun.
  EXPECT_FALSE(PlanZeroedRerun(JudgeCase(p, {"normal", 1}, results)));
  EXPECT_FALSE(PlanZeroedRerun(
      JudgeCase(p, SpecialBias(p), {Ok("reference", {1, 2, 3, 4}), Raises("eager")})));
}

TEST(CaseRun, AResultThatChangesWithTheIgnoredInputZeroedIsADivergence) {
  Program p = AddmmBetaZero();
  InputRecipe r = SpecialBias(p);
  std::vector<PathResult> results = {Ok("reference", {1, 2, 3, 4}), Ok("eager", {1, 2, 3, 4}),
                                     Ok("inductor", {NAN, 2, 3, 4})};
  CaseRun c = JudgeCase(p, r, results);
  ASSERT_TRUE(AddZeroedRerun(c, {0}, {Ok("eager", {1, 2, 3, 4}), Ok("inductor", {1, 2, 3, 4})}));
  EXPECT_EQ(c.rerun_zeroed, std::vector<int>{0});
  ASSERT_FALSE(c.verdict.divergences.empty());
  EXPECT_EQ(c.verdict.divergences[0].kind, DivergenceKind::kIgnoredInput);
  EXPECT_EQ(c.verdict.divergences[0].blamed, "inductor");
  // A rerun that changes nothing adds nothing, but records what was zeroed.
  CaseRun same = JudgeCase(p, r, results);
  Verdict before = same.verdict;
  EXPECT_FALSE(
      AddZeroedRerun(same, {0}, {Ok("eager", {1, 2, 3, 4}), Ok("inductor", {NAN, 2, 3, 4})}));
  EXPECT_EQ(same.rerun_zeroed, std::vector<int>{0});
  EXPECT_EQ(VerdictToJson(same.verdict), VerdictToJson(before));
}

}  // namespace
}  // namespace mmdiff

namespace mmdiff {
namespace {

TEST(CaseRun, AStandaloneCheckIsReproducedOnlyWhenEveryRunShowsTheFinding) {
  auto status = [](int worker_runs, int worker_hits, int attempts, int hits, int exit) {
    return std::string(StandaloneStatusName(
        StandaloneStatusOf({worker_runs, worker_hits, attempts, hits, exit, ""})));
  };
  EXPECT_EQ(status(0, 0, 0, 0, -1), "not_checked");
  EXPECT_EQ(status(2, 2, 1, 1, 1), "reproduced");
  EXPECT_EQ(status(2, 2, 0, 0, -1), "reproduced");  // no Python to run repro.py with
  EXPECT_EQ(status(2, 1, 1, 1, 1), "flaky");
  EXPECT_EQ(status(2, 2, 2, 1, 1), "flaky");           // repro.py showed it at its second attempt
  EXPECT_EQ(status(2, 0, 1, 1, 1), "not_reproduced");  // the case alone no longer shows it
  EXPECT_EQ(status(2, 2, 3, 0, 0), "not_reproduced");  // repro.py says the paths agree
  EXPECT_EQ(status(2, 2, 0, 0, 3), "not_reproduced");  // repro.py could not run here
}

}  // namespace
}  // namespace mmdiff
