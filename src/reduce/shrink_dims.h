// The dimension-shrinking pass: every size class (one size value wherever it occurs, so that shared
// dims stay shared, like the mutator's "perturb a size everywhere") shrinks toward 1.
#pragma once

#include <cstdint>

#include "src/ir/program.h"
#include "src/reduce/reduce_session.h"

namespace mmdiff {

// Size `from` replaced by `to` everywhere: in every input dim, in the sizes of reshape, view and
// expand, the length of narrow and the end of slice.
Program ReplaceSize(const Program& p, int64_t from, int64_t to);

// For each size class above 1, largest first: try 1, then half, then one less, again from the new
// size after each success. Sizes 0 and 1 are left alone. A candidate that changes which nodes have
// valid shapes is skipped without asking the predicate: it would be another program, not a smaller
// one. Returns true when it kept a step.
bool ShrinkDims(ReduceSession& s);

}  // namespace mmdiff
