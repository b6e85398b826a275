// Rejection sites.
#include "src/report/bucket.h"

#include <algorithm>

namespace mmdiff {

namespace {

template <typename Items>
std::string Join(const Items& items) {
  std::string out;
  for (const auto& x : items) out += (out.empty() ? "" : ",") + std::string(x);
  return out;
}

}  // namespace

std::string RejectionSite(const Program& p, const Expectation& contract, bool ignore_dtypes) {
  if (!contract.rejects) return "";
  const Node* n = p.FindNode(contract.violation.node);
  if (!n) return "rule=" + contract.violation.rule;
  std::vector<std::string> dtypes, devices;
  size_t max_rank = 0;
  for (const auto& a : n->args) {
    const ValueType& t = contract.types.at(a);
    dtypes.push_back(std::string(DTypeName(t.dtype)));
    devices.push_back(std::string(DeviceName(t.device)));
    max_rank = std::max(max_rank, t.shape.size());
  }
  // A wrong-device operand is one bug whatever the dtypes, and meta skips most dtype checks.
  bool dtypes_matter = !ignore_dtypes && contract.violation.rule != "same_device" &&
                       std::find(devices.begin(), devices.end(), "meta") == devices.end();
  return "rule=" + contract.violation.rule + "|op=" + std::string(GetOpSpec(n->op).name) +
         (max_rank >= 3 ? "(batched)" : "") + "|operands=" + (dtypes_matter ? Join(dtypes) : "*") +
         "|devices=" + Join(devices);
}

}  // namespace mmdiff
