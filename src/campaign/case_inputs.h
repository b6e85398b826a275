// What a case's runs on one input say about its next inputs (the campaign runs a program on up to
// inputs_per_program inputs in a row: compile once, run many).
#pragma once

#include <vector>

#include "oracles/case_run.h"
#include "src/ir/outcome.h"

namespace mmdiff {

// After input v, are more inputs worth running? Not when no compiled path ran (nothing compiled
// to reuse: a new program costs what another input costs and explores more), nor when no path
// computed values (every path raised, or the program is on meta) — except to reach the new-sizes
// input, which can change that.
bool MoreInputsMatter(const CaseRun& c, int v);

// Whether a path compiled (or recompiled) on this call: what it compiled then is the state later
// calls of the program meet.
bool CompiledAny(const std::vector<PathResult>& results);

}  // namespace mmdiff
