// Inductor's attention fusions as root causes.
#include "oracles/attention_fusion.h"

#include <cctype>
#include <set>

namespace mmdiff {

std::string AttentionFusionPattern(const std::string& rewrite) {
  static const std::string kPattern = "_sfdp_pattern_";
  if (rewrite.rfind(kPattern, 0) != 0) return "";
  size_t end = kPattern.size();
  while (end < rewrite.size() && std::isdigit(static_cast<unsigned char>(rewrite[end]))) ++end;
  return end > kPattern.size() ? rewrite.substr(0, end) : "";
}

bool AttentionFusionPatterns(const std::string& fused) {
  if (fused.empty()) return false;
  size_t at = 0;
  for (;;) {
    size_t comma = fused.find(',', at);
    std::string part =
        fused.substr(at, comma == std::string::npos ? std::string::npos : comma - at);
    if (AttentionFusionPattern(part) != part || part.empty()) return false;
    if (comma == std::string::npos) return true;
    at = comma + 1;
  }
}

std::optional<int64_t> SoftmaxOverOtherDim(const Program& p, const Expectation& contract) {
  for (const Node& n : p.nodes) {
    if (n.op != OpKind::kSoftmax || n.ints.empty() || n.args.empty()) continue;
    auto t = contract.types.find(n.args[0]);
    if (t == contract.types.end()) continue;
    const int64_t rank = static_cast<int64_t>(t->second.shape.size());
    const int64_t dim = n.ints[0] < 0 ? n.ints[0] + rank : n.ints[0];
    if (rank > 0 && dim != rank - 1) return n.ints[0];
  }
  return std::nullopt;
}

FusionFacts FusedAttention(const PathResult& at_fault, const Divergence& d) {
  FusionFacts out;
  std::set<std::string> patterns;
  for (const std::string& name : at_fault.compile.internals)
    if (name.rfind(kRewritePrefix, 0) == 0)
      if (std::string p = AttentionFusionPattern(name.substr(kRewritePrefix.size())); !p.empty())
        patterns.insert(p);
  for (const std::string& p : patterns) out.fused += (out.fused.empty() ? "" : ",") + p;
  if (out.fused.empty() || d.kind != DivergenceKind::kValue) return out;
  if (d.diverging_elements > 0 && d.nan_reference_elements == d.diverging_elements)
    out.behaviour = kSdpaSafeSoftmax;
  else if (d.rmse_float64 && d.classification == "precision-only")
    out.behaviour = kSdpaFloat32;
  return out;
}

}  // namespace mmdiff
