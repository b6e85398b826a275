// Tests for when torch.compile's lower stages run, and that the verdict they join is the one every
// path run at once would give.
#include "src/campaign/stage_controls.h"

#include <gtest/gtest.h>

#include "oracles/case_run_test_cases.h"

namespace mmdiff {
namespace {

using Paths = std::vector<std::string>;

const Paths kDefault = {"reference", "eager",       "eager_meta",   "inductor",
                        "aot_eager", "torchscript", "compile_eager"};

TEST(StageControls, TheLowerStagesWaitOnlyBesideInductorAndOnlyWhenAsked) {
  StagePlan plan = PlanStages(kDefault, ControlsMode::kOnDivergence);
  EXPECT_EQ(plan.first, (Paths{"reference", "eager", "eager_meta", "inductor", "torchscript"}));
  EXPECT_EQ(plan.controls, (Paths{"aot_eager", "compile_eager"}));
  plan = PlanStages(kDefault, ControlsMode::kAlways);
  EXPECT_EQ(plan.first, kDefault);
  EXPECT_TRUE(plan.controls.empty());
  // Without inductor nothing is above them: they are the paths under test.
  Paths no_inductor = {"reference", "eager", "aot_eager", "compile_eager"};
  plan = PlanStages(no_inductor, ControlsMode::kOnDivergence);
  EXPECT_EQ(plan.first, no_inductor);
  EXPECT_TRUE(plan.controls.empty());

  EXPECT_EQ(ParseControlsMode(ControlsModeName(ControlsMode::kAlways)), ControlsMode::kAlways);
  EXPECT_EQ(ParseControlsMode(ControlsModeName(ControlsMode::kOnDivergence)),
            ControlsMode::kOnDivergence);
  EXPECT_FALSE(ParseControlsMode("sometimes").has_value());
}

// A runner that records what it was asked and answers as the seed bug does: reference and eager
// raise, inductor returns, and compile_eager and aot_eager either raise like eager or return like
// inductor (`lower_stages_accept`).
struct ScriptedRunner {
  bool lower_stages_accept = false;
  std::vector<Paths> calls;
  std::vector<bool> fresh;
  PathRunner Runner() {
    return [this](const Program&, const InputRecipe&, const Paths& paths, bool is_fresh) {
      calls.push_back(paths);
      fresh.push_back(is_fresh);
      std::vector<PathResult> out;
      for (const auto& p : paths) {
        PathResult r{p, OutcomeKind::kError};
        r.error_class = "RuntimeError";
        bool accepts = p == "inductor" || (lower_stages_accept && p != "reference" && p != "eager");
        if (accepts) {
          r.kind = OutcomeKind::kOk;
          r.outputs.push_back({DType::kFloat32, {2, 4, 8, 64}, Device::kCpu, {}, {}});
        }
        out.push_back(r);
      }
      SetRecordedTraits(out);
      return out;
    };
  }
};

TEST(StageControls, TheyRunWhereInductorDivergesAfterItsHistoryAndLowerTheFinding) {
  const Program p = case_test::Seed();
  const InputRecipe r{"grid16", 1};
  const Paths all = {"reference", "eager", "inductor", "aot_eager", "compile_eager"};
  const StagePlan plan = PlanStages(all, ControlsMode::kOnDivergence);
  for (bool accept : {false, true}) {
    SCOPED_TRACE(accept ? "the lower stages accept too" : "the lower stages raise like eager");
    ScriptedRunner s{accept, {}};
    PathRunner run = s.Runner();
    CaseRun first = RunAndJudge(run, p, r, plan.first);
    ASSERT_TRUE(first.verdict.diverges());
    first.before = {PriorCallOf(p, {"grid16", 7})};
    CaseRun c = AddControls(run, first, plan, all);
    // The calls before, then the input itself, on the controls alone, neither of them fresh (the
    // case's own run was).
    ASSERT_EQ(s.calls.size(), 3u);
    EXPECT_EQ(s.calls[1], plan.controls);
    EXPECT_EQ(s.calls[2], plan.controls);
    EXPECT_EQ(s.fresh, (std::vector<bool>{true, false, false}));
    EXPECT_EQ(c.before, first.before);
    Paths order;
    for (const auto& res : c.results) order.push_back(res.path);
    EXPECT_EQ(order, all);
    // The same verdict as all paths run at once.
    CaseRun together = RunAndJudge(run, p, r, all);
    EXPECT_EQ(CaseFinding(c).signature, CaseFinding(together).signature);
    EXPECT_EQ(c.verdict.divergences.size(), together.verdict.divergences.size());
    // Where Dynamo alone accepts too, the finding starts there.
    EXPECT_EQ(CaseFinding(c).signature.find("path=compile_eager") != std::string::npos, accept)
        << CaseFinding(c).signature;
  }
  // A case where only eager is involved, or nothing diverges, runs no control.
  ScriptedRunner s;
  PathRunner run = s.Runner();
  CaseRun eager_only = RunAndJudge(run, p, r, {"reference", "eager"});
  CaseRun same = AddControls(run, eager_only, plan, all);
  EXPECT_EQ(s.calls.size(), 1u);
  EXPECT_EQ(same.results.size(), 2u);
  // Without deferred stages, nothing is added.
  CaseRun first = RunAndJudge(run, p, r, plan.first);
  AddControls(run, first, PlanStages(all, ControlsMode::kAlways), all);
  EXPECT_EQ(s.calls.size(), 2u);
}

TEST(StageControls, AFindingIsJudgedAgainOnItsOwnPathsWithTheStagesBelowItAsControls) {
  Divergence d{DivergenceKind::kErrorBehaviour, {"eager", "inductor"}, "inductor", ""};
  StagePlan plan = FindingPaths(d, kDefault);
  EXPECT_EQ(plan.first, (Paths{"reference", "eager", "inductor"}));
  EXPECT_EQ(plan.controls, (Paths{"aot_eager", "compile_eager"}));
  // Lowered to aot_eager: only Dynamo alone can lower it further.
  d.paths = {"eager", "aot_eager"};
  d.blamed = "aot_eager";
  plan = FindingPaths(d, kDefault);
  EXPECT_EQ(plan.first, (Paths{"reference", "eager", "aot_eager"}));
  EXPECT_EQ(plan.controls, (Paths{"compile_eager"}));
  // Off the ladder, and eager's own findings: no controls.
  d = {DivergenceKind::kMeta, {"eager", "eager_meta"}, "eager_meta", ""};
  plan = FindingPaths(d, kDefault);
  EXPECT_EQ(plan.first, (Paths{"reference", "eager", "eager_meta"}));
  EXPECT_TRUE(plan.controls.empty());
  d = {DivergenceKind::kCrash, {"torchscript"}, "torchscript", ""};
  plan = FindingPaths(d, kDefault);
  EXPECT_EQ(plan.first, (Paths{"reference", "eager", "torchscript"}));
  EXPECT_TRUE(plan.controls.empty());
  // A knob variant's finding has its base path and the stages below it as controls: where inductor
  // diverges the same way, the finding is inductor's (seen on 2.15.0: a max-autotune finding
  // reduced, on its own paths, to a case plain inductor fails too, still headed by the variant).
  d = {DivergenceKind::kErrorBehaviour,
       {"eager", "inductor_max_autotune"},
       "inductor_max_autotune",
       ""};
  plan = FindingPaths(d, {"reference", "eager", "inductor", "aot_eager", "compile_eager",
                          "torchscript", "inductor_max_autotune"});
  EXPECT_EQ(plan.first, (Paths{"reference", "eager", "inductor_max_autotune"}));
  EXPECT_EQ(plan.controls, (Paths{"inductor", "aot_eager", "compile_eager"}));
  // Only paths the campaign runs.
  d = {DivergenceKind::kValue, {"eager", "inductor"}, "inductor", ""};
  plan = FindingPaths(d, {"reference", "eager", "inductor"});
  EXPECT_TRUE(plan.controls.empty());
}

}  // namespace
}  // namespace mmdiff
