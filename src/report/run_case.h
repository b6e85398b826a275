// Running a case and judging it end to end: the paths' results judged (MakeCaseRun), and, where an
// input the op must ignore holds a NaN or an infinity, the rerun with it replaced by zeros
// (PlanZeroedRerun and AddZeroedRerun in oracles/case_run.h judge it; this runs it). Every place
// that judges a fresh run (campaign, replay, reduction, ablation, `mmdiff run`, the self-test) goes
// through here, so all of them see the same findings.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "src/exec/supervisor.h"
#include "src/report/report.h"

namespace mmdiff {

// Runs a program on an input recipe on the named paths (Supervisor::Run, or a replay's runner).
using PathRunner = std::function<std::vector<PathResult>(const Program&, const InputRecipe&,
                                                         const std::vector<std::string>&)>;

// Judges `results` (what `run` returned for the case on its paths) against the contract of
// `torch`: MakeCaseRun, then the rerun with ignored inputs zeroed, only where IgnoredSpecialInputs
// is not empty. It runs the paths that returned, except the reference; its results are not kept,
// only what changed.
CaseRun JudgeRun(const PathRunner& run, const Program& p, const InputRecipe& r,
                 std::vector<PathResult> results, TorchRelease torch = BuildTorchRelease());
// Runs the case on `paths` and judges it (JudgeRun). The rerun (only where IgnoredSpecialInputs is
// not empty) runs the paths that returned, except the reference; its results are not kept, only
// what changed.
CaseRun RunAndJudge(const PathRunner& run, const Program& p, const InputRecipe& r,
                    const std::vector<std::string>& paths);
CaseRun RunAndJudge(Supervisor& sup, const Program& p, const InputRecipe& r,
                    const std::vector<std::string>& paths);

}  // namespace mmdiff
