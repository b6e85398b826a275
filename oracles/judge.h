// Judge: compares every path's result with eager (the baseline) and with the contract and the
// reference, and explains each divergence.
#pragma once

#include <string>
#include <vector>

#include "oracles/contract.h"
#include "oracles/verdict.h"
#include "src/ir/outcome.h"
#include "src/ir/paths.h"

namespace mmdiff {

// The paths the judge treats apart, by their catalogue names.
inline constexpr const char* kReferencePath = paths::kReference;
inline constexpr const char* kEagerPath = paths::kEager;
inline constexpr const char* kEagerMetaPath = paths::kEagerMeta;

// Pairs judged: (reference, eager) for contract gaps, eager's own numeric errors and eager raising
// in a backward the reference differentiates, then (eager, X) for every other path X. Where eager
// breaks the contract and X follows it, the divergence is blamed on eager. Value judgements use the
// reference's per-element bounds and never a global tolerance; without a reference result, values
// are not judged (and a note says so).
Verdict Judge(const Expectation& contract, const std::vector<PathResult>& results);

}  // namespace mmdiff
