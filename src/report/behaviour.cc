// Behaviour features of a judged case (see behaviour.h).
#include "src/report/behaviour.h"

#include <algorithm>
#include <cmath>
#include <set>

#include "src/ir/op.h"

namespace mmdiff {

std::vector<std::string> BehaviourFeatures(const CaseRun& c) {
  std::set<std::string> features;
  std::set<std::string> dtypes, devices;
  for (const auto& in : c.program.inputs) {
    dtypes.insert(std::string(DTypeName(in.dtype)));
    devices.insert(std::string(DeviceName(in.device)));
  }
  std::string operands;
  for (const auto& d : dtypes) operands += d + ",";
  operands += "|";
  for (const auto& d : devices) operands += d + ",";
  std::set<std::string> ops;
  for (const auto& n : c.program.nodes) ops.insert(std::string(GetOpSpec(n.op).name));
  for (const auto& r : c.results) {
    std::string outcome = r.path + "|" + std::string(OutcomeName(r.kind)) + "|" + r.error_class;
    features.insert("outcome|" + outcome);
    for (const auto& op : ops) features.insert("op|" + op + "|" + operands + "|" + outcome);
  }
  features.insert("contract|" + (c.contract.rejects ? "rejects|" + c.contract.violation.rule
                                                    : std::string("accepts")));
  for (const auto& d : c.verdict.divergences) {
    std::string kind(DivergenceKindName(d.kind));
    features.insert("divergence|" + kind + "|" + d.blamed + "|" + d.classification);
    if (d.kind == DivergenceKind::kValue && d.allowed > 0 && std::isfinite(d.got) &&
        std::isfinite(d.expected)) {
      double ratio = std::fabs(d.got - d.expected) / d.allowed;
      features.insert("band|" + kind + "|" + d.blamed + "|" +
                      std::to_string(std::ilogb(std::max(ratio, 1e-300))));
    }
  }
  return {features.begin(), features.end()};
}

}  // namespace mmdiff
