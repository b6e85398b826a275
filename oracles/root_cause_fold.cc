// Folded root causes.
#include "oracles/root_cause_fold.h"

#include <algorithm>

#include "oracles/judge.h"
#include "oracles/root_cause.h"

namespace mmdiff {

std::string FoldedRootCause(const std::string& signature,
                            const std::optional<std::vector<Mitigation>>& mitigations) {
  const bool values = signature.rfind("value|path=", 0) == 0 &&
                      (signature.find("|values|") != std::string::npos ||
                       signature.find("|grad_values|") != std::string::npos ||
                       signature.find("|cast_round_trip|") != std::string::npos);
  if (!values || !mitigations) return "";
  const std::string path = SignatureField(signature, "path=");
  if (path.empty() || path[0] == '?' || path == kEagerPath) return "";
  for (const auto& m : *mitigations)
    if (m.knob.find("emulate_precision_casts") != std::string::npos && m.removes_divergence)
      return "value|path=" + path + "|" + kUnroundedIntermediates;
  return "";
}

bool FoldsOnlyReduced(const std::string& signature,
                      const std::optional<std::vector<Mitigation>>& mitigations,
                      const std::string& reduced_signature,
                      const std::optional<std::vector<Mitigation>>& reduced_mitigations) {
  return mitigations && FoldedRootCause(signature, mitigations).empty() &&
         !FoldedRootCause(reduced_signature, reduced_mitigations).empty();
}

bool IsFoldedRootCause(const std::string& signature) {
  return signature.find(std::string("|") + kUnroundedIntermediates) != std::string::npos;
}

std::string FoldedHeadline(const std::string& signature) {
  if (!IsFoldedRootCause(signature)) return "";
  return SignatureField(signature, "path=") +
         " computes float16/bfloat16 values beyond the rounding bound that "
         "torch._inductor.config.emulate_precision_casts = True removes";
}

std::vector<std::string> FindingOps(const CaseRun& c) {
  std::vector<std::string> out;
  if (c.finding >= c.verdict.divergences.size()) return out;
  const RootCauseFacts f = FindingFacts(c.contract, c.results, c.verdict, c.finding);
  for (const Node* n : FindingNodes(c.program, c.contract, f)) {
    std::string op = OpFamily(c.program, c.contract, n->name);
    if (std::find(out.begin(), out.end(), op) == out.end()) out.push_back(op);
  }
  return out;
}

}  // namespace mmdiff
