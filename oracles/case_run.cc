// Judging a case end to end.
#include "oracles/case_run.h"

#include "oracles/ignored_inputs.h"
#include "oracles/judge.h"

namespace mmdiff {

CaseRun JudgeCase(const Program& p, const InputRecipe& r, std::vector<PathResult> results,
                  TorchRelease torch) {
  CaseRun c;
  c.program = p;
  c.recipe = r;
  c.contract = Expect(p, torch);
  c.results = std::move(results);
  c.verdict = Judge(c.contract, c.results);
  c.finding = LeadFinding(c);
  return c;
}

std::vector<FindingKey> CaseFindings(const CaseRun& c) {
  return Findings(c.program, c.contract, c.results, c.verdict);
}

size_t LeadFinding(const CaseRun& c) {
  auto findings = CaseFindings(c);
  return findings.empty() ? 0 : findings[0].divergence;
}

FindingKey CaseFinding(const CaseRun& c) {
  for (auto& k : CaseFindings(c))
    if (k.divergence == c.finding) return k;
  FindingKey own{c.finding, "", {}};
  if (c.finding < c.verdict.divergences.size())
    own.signature = RootCauseSignature(c.program, c.contract,
                                       FindingFacts(c.contract, c.results, c.verdict, c.finding));
  return own;
}

CaseRun WithFinding(const CaseRun& c, const FindingKey& k) {
  CaseRun out = c;
  out.finding = k.divergence;
  return out;
}

std::optional<ZeroedRerun> PlanZeroedRerun(const CaseRun& c) {
  ZeroedRerun plan;
  plan.zeroed = IgnoredSpecialInputs(c.program, c.recipe);
  if (plan.zeroed.empty()) return std::nullopt;
  for (const auto& res : c.results)
    if (res.ok() && res.path != kReferencePath) plan.paths.push_back(res.path);
  if (plan.paths.empty()) return std::nullopt;
  return plan;
}

bool AddZeroedRerun(CaseRun& c, const std::vector<int>& zeroed, std::vector<PathResult> rerun) {
  c.rerun_zeroed = zeroed;
  std::vector<Divergence> changed = CheckIgnoredInputs(c.program, zeroed, c.results, rerun);
  if (changed.empty()) return false;
  // With beta = 0 the reference does not read the ignored input: its result judges the rerun too.
  if (const PathResult* ref = FindResult(c.results, kReferencePath))
    rerun.insert(rerun.begin(), *ref);
  AddIgnoredInputDivergences(c.verdict, changed, Judge(c.contract, rerun));
  return true;
}

StandaloneStatus StandaloneStatusOf(const StandaloneRecord& r) {
  const bool repro_ran = r.repro_exit >= 0;
  if (r.worker_runs == 0 && !repro_ran) return StandaloneStatus::kNotChecked;
  if ((r.worker_runs > 0 && r.worker_hits == 0) || (repro_ran && r.repro_hits == 0))
    return StandaloneStatus::kNotReproduced;
  return r.worker_hits + r.repro_hits == r.worker_runs + r.repro_attempts
             ? StandaloneStatus::kReproduced
             : StandaloneStatus::kFlaky;
}

const char* StandaloneStatusName(StandaloneStatus s) {
  switch (s) {
    case StandaloneStatus::kReproduced:
      return "reproduced";
    case StandaloneStatus::kFlaky:
      return "flaky";
    case StandaloneStatus::kNotReproduced:
      return "not_reproduced";
    case StandaloneStatus::kNotChecked:
      return "not_checked";
  }
  return "not_checked";
}

}  // namespace mmdiff
