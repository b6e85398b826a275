// Headlines: one line per finding that leads with the path at fault and what it does, e.g.
// "inductor accepts addmm(float64, float32, float32) that eager rejects (dtype_match)", to which
// Headline (src/report/report.h) adds the root cause's class: " [filable]".
#pragma once

#include <string>
#include <vector>

#include "oracles/contract.h"
#include "oracles/root_cause.h"
#include "oracles/verdict.h"
#include "src/ir/outcome.h"
#include "src/ir/program.h"

namespace mmdiff {

// "addmm(float64, float32, float32)": the op where the finding is located (FindingNodes) with its
// operand dtypes; "a program of dot, bmm" where that is several ops.
std::string FindingOpCall(const Program& p, const Expectation& contract, const RootCauseFacts& f);

// The headline of finding `k` of a judged case, without its class (Headline adds the tag);
// "(also: ...)" names the paths folded into the finding.
std::string FindingHeadline(const Program& p, const Expectation& contract,
                            const std::vector<PathResult>& results, const Verdict& v,
                            const FindingKey& k);

}  // namespace mmdiff
