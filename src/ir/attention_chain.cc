#include "src/ir/attention_chain.h"

#include <map>
#include <vector>

namespace mmdiff {

namespace {

bool IsProduct(OpKind op) {
  return op == OpKind::kMatmul || op == OpKind::kBmm || op == OpKind::kMm;
}

// Between the scores' matmul and the softmax: scaling (by a number or a 0-d tensor), an added,
// filled or selected mask, casts, views.
bool ScoresGlue(OpKind op) {
  switch (op) {
    case OpKind::kMulScalar:
    case OpKind::kDivScalar:
    case OpKind::kMul:
    case OpKind::kDiv:
    case OpKind::kAdd:
    case OpKind::kMaskedFill:
    case OpKind::kWhere:
    case OpKind::kCast:
      return true;
    default:
      return IsView(op);
  }
}

}  // namespace

std::set<std::string> FusableAttentionNodes(const Program& p) {
  std::map<std::string, const Node*> by_name;
  std::map<std::string, std::vector<const Node*>> consumers;
  for (const Node& n : p.nodes) {
    by_name[n.name] = &n;
    for (const std::string& a : n.args) consumers[a].push_back(&n);
  }
  // Whether a value is (or comes through scores glue from) a matmul's result; memoised, in the
  // program's order (arguments come first).
  std::map<std::string, bool> from_scores;
  for (const Node& n : p.nodes) {
    bool from = IsProduct(n.op);
    if (!from && ScoresGlue(n.op))
      for (const std::string& a : n.args) from |= from_scores.count(a) && from_scores[a];
    from_scores[n.name] = from;
  }
  std::set<std::string> out;
  for (const Node& s : p.nodes) {
    if (s.op != OpKind::kSoftmax || s.args.empty() || !from_scores[s.args[0]]) continue;
    // Forward: casts, dropouts and views to a matmul that takes the probabilities first.
    std::vector<std::string> after;
    bool into_product = false;
    std::vector<std::string> frontier = {s.name};
    while (!frontier.empty() && !into_product) {
      std::string v = frontier.back();
      frontier.pop_back();
      for (const Node* c : consumers[v]) {
        if (IsProduct(c->op) && !c->args.empty() && c->args[0] == v) into_product = true;
        if (c->op == OpKind::kCast || c->op == OpKind::kDropout || IsView(c->op)) {
          after.push_back(c->name);
          frontier.push_back(c->name);
        }
      }
    }
    if (!into_product) continue;
    out.insert(s.name);
    out.insert(after.begin(), after.end());
    // Backward: every node of the chain from the scores' matmuls to the softmax.
    std::vector<std::string> todo = {s.args[0]};
    while (!todo.empty()) {
      std::string v = todo.back();
      todo.pop_back();
      auto it = by_name.find(v);
      if (it == by_name.end() || !from_scores[v] || !out.insert(v).second) continue;
      if (IsProduct(it->second->op)) continue;  // the scores: the chain starts here
      for (const std::string& a : it->second->args) todo.push_back(a);
    }
  }
  return out;
}

}  // namespace mmdiff
