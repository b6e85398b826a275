// Rejection sites: where a program breaks its contract, with the operand dtypes and devices — a
// behaviour feature of the program fuzzer (src/report/behaviour.h). Buckets are root causes
// (oracles/root_cause.h), which leave the dtypes out.
#pragma once

#include <string>
#include <vector>

#include "oracles/contract.h"
#include "src/ir/program.h"

namespace mmdiff {

// Where a program breaks its contract, as the signature names it: "rule=R|op=O[(batched)]|
// operands=<dtypes, or * where they do not matter>|devices=<devices>"; "" when the contract
// accepts. ignore_dtypes: write * for the operand dtypes whatever the rule.
std::string RejectionSite(const Program& p, const Expectation& contract,
                          bool ignore_dtypes = false);

}  // namespace mmdiff
