// Reduction dimension K of products.
#include "src/triage/reduction_k.h"

#include <algorithm>
#include <set>
#include <vector>

namespace mmdiff::triage {

std::optional<int64_t> NodeReductionK(const Node& n,
                                      const std::map<std::string, StaticType>& types) {
  auto shape_of = [&](size_t i) -> std::optional<Shape> {
    if (i >= n.args.size()) return std::nullopt;
    auto it = types.find(n.args[i]);
    if (it == types.end() || !it->second.shape || it->second.shape->empty()) return std::nullopt;
    return it->second.shape;
  };
  if (n.op == OpKind::kSdpa) {
    auto q = shape_of(0), k = shape_of(1);
    if (!q || !k || k->size() < 2) return std::nullopt;
    return std::max(q->back(), (*k)[k->size() - 2]);
  }
  if (!IsMatmulFamily(n.op)) return std::nullopt;
  auto a = shape_of(GetOpSpec(n.op).has_alpha_beta ? 1 : 0);
  if (!a) return std::nullopt;
  return a->back();
}

std::optional<int64_t> OutputReductionK(const Program& p, int output) {
  // The nodes the output depends on: a walk back through arguments.
  std::set<std::string> wanted;
  bool all = output < 0 || output >= static_cast<int>(p.outputs.size());
  if (!all) {
    std::vector<std::string> stack = {p.outputs[output]};
    while (!stack.empty()) {
      std::string name = stack.back();
      stack.pop_back();
      if (!wanted.insert(name).second) continue;
      if (const Node* n = p.FindNode(name))
        for (const auto& a : n->args) stack.push_back(a);
    }
  }
  auto types = InferStaticTypes(p);
  std::optional<int64_t> best;
  for (const auto& n : p.nodes) {
    if (!all && !wanted.count(n.name)) continue;
    auto k = NodeReductionK(n, types);
    if (k && (!best || *k > *best)) best = k;
  }
  return best;
}

}  // namespace mmdiff::triage
