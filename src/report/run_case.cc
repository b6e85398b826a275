// Run and judge a case.
#include "src/report/run_case.h"

#include "oracles/accuracy.h"
#include "oracles/ignored_inputs.h"
#include "src/ir/recorded_paths.h"

namespace mmdiff {

PathRunner RunnerOf(Supervisor& sup) {
  return [&sup](const Program& p, const InputRecipe& r, const std::vector<std::string>& paths,
                bool fresh) { return sup.Run(p, r, paths, fresh); };
}

std::vector<std::string> StatefulPaths(const std::vector<std::string>& paths) {
  std::vector<std::string> out;
  for (const auto& p : paths)
    if (RecordedPathTraits(p).keeps_state) out.push_back(p);
  return out;
}

std::vector<PathResult> RunCalls(const PathRunner& run, const std::vector<PriorCall>& before,
                                 const Program& p, const InputRecipe& r,
                                 const std::vector<std::string>& paths) {
  bool fresh = true;
  if (std::vector<std::string> stateful = StatefulPaths(paths); !stateful.empty())
    for (const auto& call : before) {
      // A call that no longer fits the case was refused when it was read or carried.
      auto q = PriorCallProgram(p, call);
      if (!q.ok()) continue;
      run(q.value(), call.recipe, stateful, fresh);
      fresh = false;
    }
  return run(p, r, paths, fresh);
}

CaseRun JudgeRun(const PathRunner& run, const Program& p, const InputRecipe& r,
                 std::vector<PathResult> results, const std::vector<PriorCall>& before,
                 TorchRelease torch) {
  CaseRun c = JudgeCase(p, r, std::move(results), torch);
  c.before = before;
  // PyTorch's accuracy rule measures against the program's math in float64 (oracles/accuracy.h).
  // A runner without that path answers unsupported: the RMSEs against the reference stay.
  if (WantsFloat64Run(c.verdict)) {
    const PathResult* given = FindResult(c.results, kReferenceFloat64Path);
    std::vector<PathResult> fp64 =
        given ? std::vector<PathResult>{*given} : run(p, r, {kReferenceFloat64Path}, false);
    if (fp64.size() == 1 && ClassifyAgainstFloat64(c.verdict, c.results, fp64[0]))
      c.finding = LeadFinding(c);
  }
  std::optional<ZeroedRerun> plan = PlanZeroedRerun(c);
  if (!plan) return c;
  if (AddZeroedRerun(c, plan->zeroed,
                     run(p, WithZeroed(r, plan->zeroed), plan->paths, /*fresh=*/false)))
    c.finding = LeadFinding(c);
  return c;
}

CaseRun RunAndJudge(const PathRunner& run, const Program& p, const InputRecipe& r,
                    const std::vector<std::string>& paths, const std::vector<PriorCall>& before) {
  return JudgeRun(run, p, r, RunCalls(run, before, p, r, paths), before);
}

CaseRun RunAndJudge(Supervisor& sup, const Program& p, const InputRecipe& r,
                    const std::vector<std::string>& paths, const std::vector<PriorCall>& before) {
  return RunAndJudge(RunnerOf(sup), p, r, paths, before);
}

CaseRun RerunCase(Supervisor& sup, const CaseRun& c, const std::vector<std::string>& paths) {
  return RunAndJudge(sup, c.program, c.recipe, paths, c.before);
}

}  // namespace mmdiff
