// Stage controls: torch.compile's lower stages (compile_eager: Dynamo alone; aot_eager: +
// AOTAutograd) say where an inductor divergence starts (root-cause signatures lower a divergence to
// the first stage that shows it). Compiling them for every program cost about 14 % of a default
// campaign (docs/results.md, Speed), and no finding so far was theirs alone, so a campaign runs
// them only on an input where inductor diverges, and the judge then sees the same results it would
// have seen with every path run. Reduction does the same for its candidates, and runs only the
// paths the finding is about.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "src/report/report.h"
#include "src/report/run_case.h"

namespace mmdiff {

// When the lower stages run: on the inputs where inductor diverges (the default), or on every
// input (as every other path).
enum class ControlsMode { kOnDivergence, kAlways };

// "divergence" / "always"; ParseControlsMode: nullopt for any other text.
const char* ControlsModeName(ControlsMode m);
std::optional<ControlsMode> ParseControlsMode(const std::string& s);

struct StagePlan {
  std::vector<std::string> first;     // run on every input
  std::vector<std::string> controls;  // run only where NeedsControls (empty: none deferred)
};

// The lower stages among `paths` are deferred when inductor is among them too and the mode is
// kOnDivergence; otherwise every path runs first. Order within each list is `paths`' order.
StagePlan PlanStages(const std::vector<std::string>& paths, ControlsMode mode);

// True when a divergence of `v` involves a stage of the ladder above its lowest (inductor,
// aot_eager; blamed, or among its paths): the lower stages are what tell where it starts.
bool NeedsControls(const Verdict& v);

// `c` (judged on plan.first's results) judged again with the controls' results added, in `order`'s
// path order, when plan.controls is not empty and NeedsControls(c.verdict); `c` itself otherwise.
// The case's calls before (c.before) run on the controls first, their results dropped, so that the
// controls recompile as inductor did (e.g. for new sizes, through dynamic shapes). Not fresh: the
// controls have compiled nothing of this function yet, and inductor's state is left as it is.
CaseRun AddControls(const PathRunner& run, CaseRun c, const StagePlan& plan,
                    const std::vector<std::string>& order);

// The paths a finding's divergence `d` needs to be judged again the same way: the reference,
// eager, the divergence's own paths and the blamed one (`first`), and as `controls` the stages of
// the ladder below the highest of them (they decide whether its signature lowers); each list in
// `paths`' order, holding only paths of `paths`. The others (e.g. torchscript beside an inductor
// finding) cannot change the finding: the judge compares each path with eager and the reference
// alone.
StagePlan FindingPaths(const Divergence& d, const std::vector<std::string>& paths);

}  // namespace mmdiff
