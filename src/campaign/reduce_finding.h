// ReduceFinding: shrinks a diverging case with the reducer (src/reduce), asking the real paths
// whether each candidate still lands in the original's bucket; and the finding folder of the
// reduced case, with reduction.json recording how much smaller it is than the original.
#pragma once

#include <cstdint>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "src/campaign/stage_controls.h"
#include "src/exec/supervisor.h"
#include "src/reduce/reduce.h"
#include "src/report/report.h"
#include "src/support/status.h"

namespace mmdiff {

struct ReduceFindingOptions {
  ReduceOptions reduce;         // budget of predicate calls (each one runs the paths once), rounds
  bool try_mitigations = true;  // rerun the reduced case with the inductor knobs (TryMitigations)
                                // and on torch.compile's stages (RunAblation)
  // Run every path on each candidate, instead of only those the finding is about (FindingPaths;
  // the lower stages of torch.compile only where a candidate keeps the bucket without them).
  bool every_path = false;
  // When the reduced case runs on every path at the end (for its report), whether torch.compile's
  // lower stages run only where inductor diverges (src/campaign/stage_controls.h).
  ControlsMode controls = ControlsMode::kOnDivergence;
  // Asked before each candidate run; false ends the reduction where it is (e.g. the campaign's time
  // is up). Empty: always go on.
  std::function<bool()> keep_going;
};

struct ReducedFinding {
  CaseRun run;            // the reduced case as run and judged, about the original's finding
  std::string signature;  // the reduced finding's root-cause signature (may name fewer ops)
  size_t original_nodes = 0, reduced_nodes = 0;
  size_t original_inputs = 0, reduced_inputs = 0;
  int64_t original_elements = 0, reduced_elements = 0;  // input elements, all inputs together
  ReduceResult reduction;      // predicate calls, kept steps and what each did
  bool stopped_early = false;  // keep_going said stop: what was kept so far is the result
};

// Reduces `original` (a case already run through `paths` with `sup`, whose verdict diverges) for
// its finding (original.finding): each candidate runs through the paths of `paths` the finding is
// about (options.every_path: all of them) and is kept when one
// of its findings has the original finding's root cause, or its prefix (RootCausePrefix: an error
// on an accepted program is located at all its ops, and removing the innocent ones is the point),
// with the same classification (KeptFinding). The reduced case then runs once on all of `paths`
// for its report (kept unless that run loses the finding). Returns the original unchanged
// (reduction.steps_kept == 0) when nothing smaller keeps the bucket, or when the original does not
// diverge.
ReducedFinding ReduceFinding(Supervisor& sup, const CaseRun& original,
                             const std::vector<std::string>& paths,
                             const ReduceFindingOptions& options = {});

// The finding of a reduction candidate (its findings and verdict) that keeps the original's: one
// with the original finding's root cause (`signature`, or its prefix, as ReduceFinding says) and
// its classification ("filable", "precision-only" or ""). A candidate that turns a precision-only
// finding into a filable one, or the reverse, is not kept: the accuracy rule compares RMSE over the
// elements left, and a few elements where eager happens to be exact are no evidence against the
// compiled path (seen on 2.15.0: a precision-only float16 inductor linear reduced to an mv headed
// "[filable]"). Null when none.
const FindingKey* KeptFinding(const std::vector<FindingKey>& candidate_findings,
                              const Verdict& candidate, const std::string& signature,
                              const std::string& classification);

// {"format": "mmdiff.reduction", "version": 1, "bucket": signature, "from": {"nodes", "inputs",
//  "elements"}, "to": {...}, "predicate_calls", "steps_kept", "budget_exhausted", "stopped_early",
//  "steps": [...]}.
// A file of its own (reduction.json) because the report schema admits no extra fields.
nlohmann::json ReductionToJson(const ReducedFinding& r);
// "reduced from 10 ops to 1 (4 inputs to 2, 1792 input elements to 2) in 23 runs".
std::string ReductionSummary(const ReducedFinding& r);

// DIR/reduction.json, then WriteFinding (report.json, program.json, repro.py) for the reduced case.
Status WriteReducedFinding(const std::string& dir, const ReducedFinding& r, const RunContext& ctx);

}  // namespace mmdiff
