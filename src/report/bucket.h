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

// Where a program breaks its contract, as the signature names it: "rule=R|op=O[(batched)]|
// operands=<dtypes, or * where they do not matter>|devices=<devices>"; "" when the contract accepts.
// ignore_dtypes: write * for the operand dtypes whatever the rule.
std::string RejectionSite(const Program& p, const Expectation& contract, bool ignore_dtypes = false);

// Human-readable signature, stable across runs and machines.
std::string BucketSignature(const Program& p, const Expectation& contract, const std::vector<PathResult>& results,
                            const Verdict& v);

}  // namespace mmdiff
