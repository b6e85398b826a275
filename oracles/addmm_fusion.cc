// Inductor's addmm fusion as a root cause.
#include "oracles/addmm_fusion.h"

#include "src/ir/op.h"

namespace mmdiff {

namespace {

// True when `value` is an mm's result, views skipped.
bool ProductOfMm(const Program& p, const Expectation& contract, const std::string& value) {
  const Node* n = p.FindNode(value);
  for (int guard = 0; n && guard < 10000 && IsView(n->op) && !n->args.empty(); ++guard)
    n = p.FindNode(n->args[0]);
  return n && OpFamily(p, contract, n->name) == "mm";
}

}  // namespace

bool UnroundedAddmmBias(const Program& p, const Expectation& contract, const RootCauseFacts& f) {
  if (f.kind != DivergenceKind::kValue || !f.compiled || !f.addmm_fused || !f.precision_only ||
      f.behaviour != "values")
    return false;
  const std::vector<const Node*> nodes = FindingNodes(p, contract, f);
  if (nodes.size() != 1 || nodes[0]->op != OpKind::kAdd) return false;
  for (const std::string& arg : nodes[0]->args)
    if (ProductOfMm(p, contract, arg)) return true;
  return false;
}

}  // namespace mmdiff
