// Bucket signatures.
#include "src/report/bucket.h"

#include <algorithm>
#include <set>

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

std::string BucketSignature(const Program& p, const Expectation& contract, const std::vector<PathResult>& results,
                            const Verdict& v) {
  std::set<std::string> parts, involved;
  for (const auto& d : v.divergences) {
    std::string s = std::string(DivergenceKindName(d.kind)) + ":";
    for (size_t i = 0; i < d.paths.size(); ++i) s += (i ? "/" : "") + d.paths[i];
    s += ":blamed=" + (d.blamed.empty() ? std::string("?") : d.blamed);
    if (d.kind == DivergenceKind::kCrash || d.kind == DivergenceKind::kTimeout) {
      for (const auto& r : results)
        if (r.path == d.paths[0]) s += ":stage=" + r.stage;
    }
    parts.insert(s);
    involved.insert(d.paths.begin(), d.paths.end());
  }
  std::set<std::string> errors;
  for (const auto& r : results)
    if (r.kind == OutcomeKind::kError && involved.count(r.path)) errors.insert(r.path + "=" + r.error_class);
  std::string where;
  if (contract.rejects) {
    // Meta skips most of cpu's dtype checks (on meta programs and on the eager_meta path): there,
    // the operand dtypes would split one eager inconsistency into dozens of buckets.
    bool only_meta = std::all_of(v.divergences.begin(), v.divergences.end(),
                                 [](const Divergence& d) { return d.kind == DivergenceKind::kMeta; });
    where = "|" + RejectionSite(p, contract, only_meta);
  } else {
    std::vector<std::string> ops;
    std::set<std::string> dtypes, devices;
    for (const auto& n : p.nodes)
      if (n.op != OpKind::kCast) ops.push_back(std::string(GetOpSpec(n.op).name));
    for (const auto& in : p.inputs) {
      dtypes.insert(std::string(DTypeName(in.dtype)));
      devices.insert(std::string(DeviceName(in.device)));
    }
    where = "|ops=" + Join(ops) + "|dtypes=" + Join(dtypes) + "|devices=" + Join(devices);
  }
  return Join(parts) + where + "|errors=" + Join(errors);
}

}  // namespace mmdiff
