// Run and judge a case.
#include "src/report/run_case.h"

#include "oracles/ignored_inputs.h"
#include "oracles/judge.h"

namespace mmdiff {

CaseRun JudgeRun(const PathRunner& run, const Program& p, const InputRecipe& r,
                 std::vector<PathResult> results) {
  CaseRun c = MakeCaseRun(p, r, std::move(results));
  std::vector<int> zeroed = IgnoredSpecialInputs(p, r);
  if (zeroed.empty()) return c;
  std::vector<std::string> returned;
  for (const auto& res : c.results)
    if (res.ok() && res.path != kReferencePath) returned.push_back(res.path);
  if (returned.empty()) return c;
  std::vector<PathResult> rerun = run(p, WithZeroed(r, zeroed), returned);
  c.rerun_zeroed = zeroed;
  std::vector<Divergence> changed = CheckIgnoredInputs(p, zeroed, c.results, rerun);
  if (changed.empty()) return c;
  // With beta = 0 the reference does not read the ignored input: its result judges the rerun too.
  if (const PathResult* ref = FindResult(c.results, kReferencePath))
    rerun.insert(rerun.begin(), *ref);
  AddIgnoredInputDivergences(c.verdict, changed, Judge(c.contract, rerun));
  auto findings = CaseFindings(c);
  c.finding = findings.empty() ? 0 : findings[0].divergence;
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
