// Bucket signatures: one bug, one bucket — divergence kind, the paths that disagree and who is
// blamed, the error classes involved, and where the program breaks: for a contract violation the
// rule, the violating op, its operand dtypes/devices and whether it is batched (rank >= 3); else
// the op sequence and dtype set. Sizes never enter a signature.
#pragma once

#include <string>
#include <vector>

#include "oracles/contract.h"
#include "oracles/verdict.h"
#include "src/ir/outcome.h"
#include "src/ir/program.h"

namespace mmdiff {

// Human-readable signature, stable across runs and machines.
std::string BucketSignature(const Program& p, const Expectation& contract, const std::vector<PathResult>& results,
                            const Verdict& v);

}  // namespace mmdiff
