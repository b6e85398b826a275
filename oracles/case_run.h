// CaseRun: one test case judged end to end — the program, its inputs and every path's result,
// judged against the contract and each other into a verdict (JudgeCase); what the rerun with the
// ignored inputs zeroed changed (AddZeroedRerun); and typed records of the reruns a finding gets
// (the ablation along torch.compile's stages, the mitigation knobs); its findings, one per root
// cause (oracles/root_cause.h), and the one its report is about. Pure: running the paths is the
// caller's (src/report/run_case.h), and so is the JSON of a report.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "oracles/contract.h"
#include "oracles/root_cause.h"
#include "oracles/verdict.h"
#include "src/ir/call_sequence.h"
#include "src/ir/input_recipe.h"
#include "src/ir/outcome.h"
#include "src/ir/program.h"

namespace mmdiff {

// One stage of an ablation (src/campaign/ablation.h), a row of its table: what the stage's path did
// with the case, and whether it agrees with eager.
struct AblationRow {
  std::string path;
  std::string backend;  // how a PyTorch user spells it, e.g. torch.compile with aot_eager
  std::string outcome;  // in words, e.g. "ok (float32)", "error: RuntimeError: ...", "not run"
  bool agrees_with_eager = true;
  std::string detail;  // the divergence from eager; "" when it agrees
  bool operator==(const AblationRow&) const = default;
};

// The case rerun on torch.compile's stages, eager itself first.
struct Ablation {
  std::vector<AblationRow> stages;
  std::optional<std::string> first_divergent;  // the first stage that disagrees with eager
  bool operator==(const Ablation&) const = default;
};

// One rerun with a mitigation knob (src/campaign/mitigations.h).
struct Mitigation {
  std::string knob;  // as Python, e.g. "torch._inductor.config.emulate_precision_casts = True"
  std::string path;  // the knob variant path that ran
  bool removes_divergence = false;
  std::string detail;  // the divergence that remains, or why none does
  bool operator==(const Mitigation&) const = default;
};

// A finding run again on its own before a campaign lists it as a new root cause
// (src/campaign/standalone_check.h): its case with its calls before in a fresh worker, and its
// repro.py in a fresh Python.
struct StandaloneRecord {
  int worker_runs = 0, worker_hits = 0;    // reruns in a fresh worker, and those that showed it
  int repro_attempts = 0, repro_hits = 0;  // repro.py's attempts (one run: it stops at a hit)
  int repro_exit = -1;                     // repro.py's exit status; -1: not run
  std::string detail;                      // what was tried and what each gave, in words
  bool operator==(const StandaloneRecord&) const = default;
};

enum class StandaloneStatus {
  kReproduced,     // every rerun and repro.py attempt showed the finding
  kFlaky,          // some did, some did not: it shows only some of the time
  kNotReproduced,  // the reruns never showed it, or repro.py did not (or could not run here)
  kNotChecked,     // nothing was run (the campaign stopped first)
};
StandaloneStatus StandaloneStatusOf(const StandaloneRecord& r);
// "reproduced", "flaky", "not_reproduced", "not_checked".
const char* StandaloneStatusName(StandaloneStatus s);

// A known root cause as the known-behaviour catalogue (src/report/known.h) names it: what a
// report, a summary and a finding's case.json record of it.
struct KnownRecord {
  std::string title;
  std::string upstream;  // "" when none is recorded
  std::string source;    // the catalogue file it came from
  // How the entry stands toward the finding on the torch it ran on (src/report/known.h:
  // KnownStanding): "" where it claims it (known); "back" where it expects agreement or other
  // divergences there (a known bug back, or a fix that misses this form); "no_expectation" where it
  // expects nothing there. `why` says so, naming the entry's ranges; "" where it claims it.
  std::string standing;
  std::string why;
  bool operator==(const KnownRecord&) const = default;
};

struct CaseRun {
  Program program;
  InputRecipe recipe;
  // The calls the compiled paths made before this one, from a fresh start (the first compile, new
  // sizes): part of the case, replayed wherever it runs again (src/report/run_case.h).
  std::vector<PriorCall> before;
  Expectation contract;
  std::vector<PathResult> results;
  Verdict verdict;
  // Reruns with mitigation knobs for compiled value findings; none when none were tried (an empty
  // list when tried with no knob available).
  std::optional<std::vector<Mitigation>> mitigations;
  // The case rerun on torch.compile's stages; none when not run.
  std::optional<Ablation> ablation;
  // The finding run again on its own (a campaign's new findings); none when not run.
  std::optional<StandaloneRecord> standalone;
  // The divergence this run's report is about (a case yields one finding per root cause): its
  // headline, bucket and repro. An index into verdict.divergences.
  size_t finding = 0;
  // The catalogue entry of a known root cause; none when new.
  std::optional<KnownRecord> known;
  // A new root cause that a catalogue entry matches without claiming it on this torch (an entry
  // that expects agreement here, or nothing): a known bug back, or a fix that misses this form.
  std::optional<KnownRecord> unclaimed;
  // The inputs the case was rerun with replaced by zeros (ignored inputs holding NaN or inf:
  // AddZeroedRerun); empty when there was no rerun.
  std::vector<int> rerun_zeroed;
};

// The case's contract, the verdict on its paths' results and its lead finding (LeadFinding),
// nothing rerun; the contract of `torch` (`mmdiff releases` judges other releases' results with
// their own).
CaseRun JudgeCase(const Program& p, const InputRecipe& r, std::vector<PathResult> results,
                  TorchRelease torch = BuildTorchRelease());

// The findings of a judged case, one per root cause (Findings in oracles/root_cause.h).
std::vector<FindingKey> CaseFindings(const CaseRun& c);
// The finding a judged case's report is about by default: the first of CaseFindings (0 when it
// has none).
size_t LeadFinding(const CaseRun& c);
// The finding c.finding leads; a finding of its own when that divergence is folded into another.
FindingKey CaseFinding(const CaseRun& c);
// A copy of `c` about finding `k`.
CaseRun WithFinding(const CaseRun& c, const FindingKey& k);

// The rerun a judged case needs: its ignored inputs that hold a NaN or an infinity
// (IgnoredSpecialInputs), replaced by zeros, on the paths that returned, except the reference.
struct ZeroedRerun {
  std::vector<int> zeroed;
  std::vector<std::string> paths;
};
// None when the case has no such inputs or no such paths.
std::optional<ZeroedRerun> PlanZeroedRerun(const CaseRun& c);

// Judges what the rerun of the case with `zeroed` inputs replaced by zeros returned (`rerun`: the
// planned paths' results): records the zeroed inputs, and adds to the verdict an ignored-input
// divergence for each path whose result changed (oracles/ignored_inputs.h). True when it added any.
bool AddZeroedRerun(CaseRun& c, const std::vector<int>& zeroed, std::vector<PathResult> rerun);

}  // namespace mmdiff
