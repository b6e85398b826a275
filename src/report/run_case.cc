// Run and judge a case.
#include "src/report/run_case.h"

#include "oracles/ignored_inputs.h"

namespace mmdiff {

CaseRun JudgeRun(const PathRunner& run, const Program& p, const InputRecipe& r,
                 std::vector<PathResult> results, TorchRelease torch) {
  CaseRun c = MakeCaseRun(p, r, std::move(results), torch);
  std::optional<ZeroedRerun> plan = PlanZeroedRerun(c);
  if (!plan) return c;
  if (AddZeroedRerun(c, plan->zeroed, run(p, WithZeroed(r, plan->zeroed), plan->paths)))
    c.finding = LeadFinding(c);
  return c;
}

CaseRun RunAndJudge(const PathRunner& run, const Program& p, const InputRecipe& r,
                    const std::vector<std::string>& paths) {
  return JudgeRun(run, p, r, run(p, r, paths));
}

CaseRun RunAndJudge(Supervisor& sup, const Program& p, const InputRecipe& r,
                    const std::vector<std::string>& paths) {
  return RunAndJudge([&sup](const Program& q, const InputRecipe& s,
                            const std::vector<std::string>& ps) { return sup.Run(q, s, ps); },
                     p, r, paths);
}

}  // namespace mmdiff
