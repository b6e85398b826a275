// Reading a root-cause signature's text (oracles/root_cause.h: RootCauseSignature).
#pragma once

#include <string>
#include <vector>

namespace mmdiff {

// A signature's fields, split at '|' ("value", "path=inductor", "values", "op=mm", ...).
std::vector<std::string> SignatureFields(const std::string& signature);
// The field that starts with `key` ("path=", "op="), without the key; "" if none.
std::string SignatureField(const std::string& signature, const std::string& key);
// The signature without where the program breaks (op, ops, devices): kind, path, behaviour, rule.
// What reduction keeps while it removes the ops that do not matter.
std::string RootCausePrefix(const std::string& signature);
// True when `candidate` names the finding `original` names once the contract sees it: `original`
// is signed at the node eager raised at past the contract's first violation (eager_raises_at_op,
// where the contract typed nothing after that violation), and `candidate`, with that earlier
// violation reduced away, is signed by the contract's rule at an op of the same family, with the
// same kind, path at fault and behaviour (the operands' devices may now be known).
bool SameCauseAtEagersNode(const std::string& original, const std::string& candidate);

}  // namespace mmdiff
