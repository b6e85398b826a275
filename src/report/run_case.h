// Running a case and judging it end to end: the paths' results judged (JudgeCase), and, where an
// input the op must ignore holds a NaN or an infinity, the rerun with it replaced by zeros
// (PlanZeroedRerun and AddZeroedRerun in oracles/case_run.h judge it; this runs it). A case is its
// calls: the calls a compiled path made before the case's own (src/ir/call_sequence.h), replayed
// from a fresh start, then the case. Every place that judges a fresh run (campaign, replay,
// reduction, ablation, `mmdiff run`, the self-test) goes through here, so all of them see the same
// findings.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "src/exec/supervisor.h"
#include "src/ir/call_sequence.h"
#include "src/report/report.h"

namespace mmdiff {

// Runs a program on an input recipe on the named paths (Supervisor::Run, or a replay's runner);
// `fresh`: the paths that keep state forget earlier calls first.
using PathRunner = std::function<std::vector<PathResult>(
    const Program&, const InputRecipe&, const std::vector<std::string>&, bool fresh)>;
// Supervisor::Run as a PathRunner.
PathRunner RunnerOf(Supervisor& sup);

// The paths among `paths` that keep state from one call to the next (PathTraits::keeps_state, as
// recorded for mmdiff's paths): the ones a case's calls before are replayed on.
std::vector<std::string> StatefulPaths(const std::vector<std::string>& paths);

// A case's calls from a fresh start: each call of `before` on the paths of `paths` that keep state
// (their results dropped), then the case on `paths`; the case's results.
std::vector<PathResult> RunCalls(const PathRunner& run, const std::vector<PriorCall>& before,
                                 const Program& p, const InputRecipe& r,
                                 const std::vector<std::string>& paths);

// Judges `results` (what `run` returned for the case, after the calls `before`, on its paths)
// against the contract of `torch`: JudgeCase, recording `before`, then the rerun with ignored
// inputs zeroed, only where IgnoredSpecialInputs is not empty. It runs the paths that returned,
// except the reference, right after the case (the compiled function the case ran is reused); its
// results are not kept, only what changed.
CaseRun JudgeRun(const PathRunner& run, const Program& p, const InputRecipe& r,
                 std::vector<PathResult> results, const std::vector<PriorCall>& before = {},
                 TorchRelease torch = BuildTorchRelease());
// Runs the case's calls on `paths` (RunCalls) and judges it (JudgeRun).
CaseRun RunAndJudge(const PathRunner& run, const Program& p, const InputRecipe& r,
                    const std::vector<std::string>& paths,
                    const std::vector<PriorCall>& before = {});
CaseRun RunAndJudge(Supervisor& sup, const Program& p, const InputRecipe& r,
                    const std::vector<std::string>& paths,
                    const std::vector<PriorCall>& before = {});
// A judged case run again on `paths`, with its calls before (c.before).
CaseRun RerunCase(Supervisor& sup, const CaseRun& c, const std::vector<std::string>& paths);

}  // namespace mmdiff
