// Node-dropping passes: keep one output, truncate the program after a node, ddmin-style removal of
// chunks of nodes (halving the chunk size down to single nodes), and single nodes bypassed to each
// of their possible substitutes.
#pragma once

#include "src/reduce/reduce_session.h"

namespace mmdiff {

// Each of these returns true when it kept at least one step.

// With several outputs: keep each output alone, then drop each output.
bool ReduceOutputs(ReduceSession& s);
// Make one node, earliest first, the program's only output (dropping what it does not depend on).
bool TruncateAfterNode(ReduceSession& s);
// Remove chunks of consecutive nodes, n/2 at a time down to one at a time (ddmin without
// complements: a complement is a chunk of a coarser round, or an output kept alone).
bool RemoveNodeChunks(ReduceSession& s);
// Remove single nodes, rerouting their uses to each substitute in turn (Substitutes()).
bool BypassNodes(ReduceSession& s);

}  // namespace mmdiff
