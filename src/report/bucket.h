// Bucket signatures: one bug, one bucket — divergence kind, the paths that disagree and who is
// blamed, the op sequence, the dtype/device tuple, and the error classes involved.
#pragma once

#include <string>
#include <vector>

#include "oracles/verdict.h"
#include "src/ir/outcome.h"
#include "src/ir/program.h"

namespace mmdiff {

// Human-readable signature, stable across runs and machines.
std::string BucketSignature(const Program& p, const std::vector<PathResult>& results, const Verdict& v);

}  // namespace mmdiff
