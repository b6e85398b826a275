// Reduction of a diverging case against its bucket, on the real paths.
#include "src/campaign/reduce_finding.h"

#include <algorithm>
#include <filesystem>
#include <optional>

#include "src/campaign/ablation.h"
#include "src/campaign/mitigations.h"
#include "src/campaign/stage_controls.h"
#include "src/report/run_case.h"
#include "src/support/files.h"

namespace mmdiff {

namespace {

int64_t InputElements(const Program& p) {
  int64_t total = 0;
  for (const auto& in : p.inputs) total += std::max<int64_t>(Numel(in.shape), 0);
  return total;
}

// The finding of `c` with the root cause `signature`, or failing that one with its prefix (the same
// kind, path at fault, behaviour and rule, located at fewer or other ops), or the same finding at
// eager's node now that the contract reaches it (SameCauseAtEagersNode), if any.
const FindingKey* FindingWith(const std::vector<FindingKey>& findings,
                              const std::string& signature) {
  for (const auto& k : findings)
    if (k.signature == signature) return &k;
  for (const auto& k : findings)
    if (RootCausePrefix(k.signature) == RootCausePrefix(signature)) return &k;
  for (const auto& k : findings)
    if (SameCauseAtEagersNode(signature, k.signature)) return &k;
  return nullptr;
}

}  // namespace

const FindingKey* KeptFinding(const std::vector<FindingKey>& candidate_findings,
                              const Verdict& candidate, const std::string& signature,
                              const std::string& classification) {
  const FindingKey* same = FindingWith(candidate_findings, signature);
  if (!same || same->divergence >= candidate.divergences.size()) return nullptr;
  return candidate.divergences[same->divergence].classification == classification ? same : nullptr;
}

ReducedFinding ReduceFinding(Supervisor& sup, const CaseRun& original,
                             const std::vector<std::string>& paths,
                             const ReduceFindingOptions& options) {
  ReducedFinding out;
  const FindingKey lead = CaseFinding(original);
  out.run = original;
  out.signature = lead.signature;
  out.reduction.program = original.program;
  out.reduction.recipe = original.recipe;
  const std::string wanted = out.signature;
  const std::string classification =
      lead.divergence < original.verdict.divergences.size()
          ? original.verdict.divergences[lead.divergence].classification
          : "";
  if (original.verdict.diverges()) {
    // The last candidate that kept the bucket, as run.
    std::optional<CaseRun> last_kept;
    const StagePlan plan = options.every_path
                               ? StagePlan{paths, {}}
                               : FindingPaths(original.verdict.divergences[lead.divergence], paths);
    PathRunner run = RunnerOf(sup);
    // The calls before the case that the finding needs (fewer below, where it needs fewer),
    // carried to each candidate's sizes (CarryPriorCalls): a candidate they do not carry to is not
    // kept.
    std::vector<PriorCall> before = original.before;
    ReducePredicate same_bucket = [&](const Program& p, const InputRecipe& r) {
      if (options.keep_going && !options.keep_going()) {
        out.stopped_early = true;
        return false;
      }
      std::optional<std::vector<PriorCall>> carried = CarryPriorCalls(original.program, before, p);
      if (!carried) return false;
      CaseRun c = RunAndJudge(run, p, r, plan.first, *carried);
      // Kept when the candidate still shows the finding's root cause, whatever else it shows. The
      // lower stages can only lower the signature, so they run where it is kept without them.
      if (!plan.controls.empty() &&
          !KeptFinding(CaseFindings(c), c.verdict, wanted, classification))
        return false;
      c = AddControls(run, std::move(c), plan, paths);
      auto findings = CaseFindings(c);
      const FindingKey* same = KeptFinding(findings, c.verdict, wanted, classification);
      if (!same) return false;
      c.finding = same->divergence;
      last_kept = std::move(c);
      return true;
    };
    // The calls before are kept only while the finding needs them: none at all, else each left
    // out in turn. Each try is a run of the original case.
    std::vector<std::string> call_steps;
    int64_t call_tries = 0;
    if (!before.empty()) {
      const std::vector<PriorCall> all = before;
      auto needs_only = [&](std::vector<PriorCall> fewer) {
        std::swap(before, fewer);
        ++call_tries;
        bool kept = same_bucket(original.program, original.recipe);
        if (!kept) std::swap(before, fewer);
        return kept;
      };
      if (needs_only({})) {
        call_steps.push_back("dropped the " + std::to_string(all.size()) +
                             " calls before the case: the case alone shows the finding");
      } else {
        for (size_t i = 0; i < before.size();) {
          std::vector<PriorCall> fewer = before;
          fewer.erase(fewer.begin() + static_cast<long>(i));
          if (needs_only(fewer))
            call_steps.push_back("dropped a call before the case (" +
                                 std::to_string(before.size()) + " left)");
          else
            ++i;
        }
      }
    }
    out.reduction = Reduce(original.program, original.recipe, same_bucket, options.reduce);
    out.reduction.predicate_calls += call_tries;
    out.reduction.steps_kept += static_cast<int64_t>(call_steps.size());
    out.reduction.steps.insert(out.reduction.steps.begin(), call_steps.begin(), call_steps.end());
    // (Where Reduce kept nothing, the last run kept is the original case with the fewer calls.)
    if (last_kept && last_kept->program == out.reduction.program &&
        last_kept->recipe == out.reduction.recipe) {
      out.run = std::move(*last_kept);
      // The reduced case's report shows every path, as the original's does: what the others do
      // with it (the paths that share the root cause, "also: aot_eager, inductor"; whether the
      // compiled paths follow an eager finding) is part of the finding. One run more.
      const StagePlan every = PlanStages(paths, options.controls);
      if (plan.first.size() + plan.controls.size() < paths.size()) {
        CaseRun full = AddControls(
            run, RunAndJudge(run, out.run.program, out.run.recipe, every.first, out.run.before),
            every, paths);
        auto findings = CaseFindings(full);
        if (const FindingKey* same = KeptFinding(findings, full.verdict, wanted, classification)) {
          full.finding = same->divergence;
          out.run = std::move(full);
        }
      }
      out.signature = CaseFinding(out.run).signature;  // located at the op that is left
      if (options.try_mitigations) {
        out.run.mitigations = TryMitigations(sup, out.run);
        out.run.ablation = RunAblation(sup, out.run);
      }
    }
  }
  out.original_nodes = original.program.nodes.size();
  out.original_inputs = original.program.inputs.size();
  out.original_elements = InputElements(original.program);
  out.reduced_nodes = out.run.program.nodes.size();
  out.reduced_inputs = out.run.program.inputs.size();
  out.reduced_elements = InputElements(out.run.program);
  return out;
}

nlohmann::json ReductionToJson(const ReducedFinding& r) {
  return {{"format", "mmdiff.reduction"},
          {"version", 1},
          {"bucket", r.signature},
          {"from",
           {{"nodes", r.original_nodes},
            {"inputs", r.original_inputs},
            {"elements", r.original_elements}}},
          {"to",
           {{"nodes", r.reduced_nodes},
            {"inputs", r.reduced_inputs},
            {"elements", r.reduced_elements}}},
          {"predicate_calls", r.reduction.predicate_calls},
          {"steps_kept", r.reduction.steps_kept},
          {"budget_exhausted", r.reduction.budget_exhausted},
          {"stopped_early", r.stopped_early},
          {"steps", r.reduction.steps}};
}

std::string ReductionSummary(const ReducedFinding& r) {
  return "reduced from " + std::to_string(r.original_nodes) + " ops to " +
         std::to_string(r.reduced_nodes) + " (" + std::to_string(r.original_inputs) +
         " inputs to " + std::to_string(r.reduced_inputs) + ", " +
         std::to_string(r.original_elements) + " input elements to " +
         std::to_string(r.reduced_elements) + ") in " +
         std::to_string(r.reduction.predicate_calls) + " runs" +
         (r.stopped_early ? " (stopped early, out of time: `mmdiff reduce` may shrink it further)"
          : r.reduction.budget_exhausted ? " (budget spent: a larger budget may shrink it further)"
                                         : "");
}

Status WriteReducedFinding(const std::string& dir, const ReducedFinding& r, const RunContext& ctx) {
  Status s = MakeWritableDir(dir);
  if (!s.ok()) return s;
  // reduction.json first: WriteFinding writes report.json last, so a folder with a report is
  // complete.
  s = WriteFileAtomic((std::filesystem::path(dir) / "reduction.json").string(),
                      ReductionToJson(r).dump(2) + "\n");
  if (!s.ok()) return s;
  return WriteFinding(dir, r.run, ctx);
}

}  // namespace mmdiff
