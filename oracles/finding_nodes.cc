// Where a finding is in its program: the nodes it is about, how a headline names their ops, and
// whether eager raised at another node than the contract's violation (oracles/root_cause.h).
#include <algorithm>
#include <set>

#include "oracles/ignored_inputs.h"
#include "oracles/judge.h"
#include "oracles/root_cause.h"
#include "src/ir/autocast.h"

namespace mmdiff {

namespace {

// The compute node behind a value: casts, views and device moves are followed to their operand.
const Node* ComputeNodeBehind(const Program& p, const std::string& value) {
  const Node* n = p.FindNode(value);
  for (int guard = 0; n && guard < 10000 && !n->args.empty() &&
                      (IsView(n->op) || n->op == OpKind::kCast || n->op == OpKind::kToDevice);
       ++guard)
    n = p.FindNode(n->args[0]);
  return n;
}

// The first compute node that reads `input`, through casts, views and device moves.
const Node* ComputeNodeReading(const Program& p, const std::string& input) {
  std::set<std::string> reach = {input};
  for (const auto& n : p.nodes) {
    bool reads = std::any_of(n.args.begin(), n.args.end(),
                             [&](const std::string& a) { return reach.count(a) > 0; });
    if (!reads) continue;
    if (!IsView(n.op) && n.op != OpKind::kCast && n.op != OpKind::kToDevice) return &n;
    reach.insert(n.name);
  }
  return nullptr;
}

}  // namespace

std::vector<const Node*> FindingNodes(const Program& p, const Expectation& contract,
                                      const RootCauseFacts& f) {
  if (EagerRaisedElsewhere(contract, f)) {
    const Node* n = p.FindNode(f.eager_node);
    // Past the contract's violation the contract types no value, so eager's node would be named
    // "matmul(?, ?)": the finding is then about the violation, which eager let through (seen on
    // 2.11.0: eager's addmv accepting a bias of another dtype, then its matmul raising).
    const bool typed = n && std::all_of(n->args.begin(), n->args.end(), [&](const std::string& a) {
                         return TypeOf(contract, a) != nullptr;
                       });
    if (n && !typed && contract.rejects) n = p.FindNode(contract.violation.node);
    return n ? std::vector<const Node*>{n} : std::vector<const Node*>{};
  }
  if (contract.rejects) {
    const Node* n = p.FindNode(contract.violation.node);
    return n ? std::vector<const Node*>{n} : std::vector<const Node*>{};
  }
  // A result that depends on an ignored input: the op whose promise it breaks, wherever the
  // program's output comes from.
  if (f.kind == DivergenceKind::kIgnoredInput) {
    const Node* n = IgnoringNode(p);
    return n ? std::vector<const Node*>{n} : std::vector<const Node*>{};
  }
  // A gradient: the backward of the first compute op its input feeds (reduction narrows it).
  if (IsGradient(contract, f.output)) {
    std::vector<size_t> grads = GradientInputs(p);
    size_t g = static_cast<size_t>(f.output) - p.outputs.size();
    const Node* n = g < grads.size() ? ComputeNodeReading(p, p.inputs[grads[g]].name) : nullptr;
    if (n) return {n};
  }
  bool about_a_result = f.behaviour == "accepts" || f.behaviour == "returns" ||
                        f.behaviour == "values" || f.behaviour == "grad_values" ||
                        f.behaviour == "result_type";
  if (!about_a_result) {
    std::vector<const Node*> out;
    for (const auto& n : p.nodes)
      if (!IsView(n.op) && n.op != OpKind::kCast && n.op != OpKind::kToDevice) out.push_back(&n);
    return out;
  }
  if (p.outputs.empty()) return {};
  size_t o = std::min<size_t>(static_cast<size_t>(std::max(f.output, 0)), p.outputs.size() - 1);
  const Node* n = ComputeNodeBehind(p, p.outputs[o]);
  return n ? std::vector<const Node*>{n} : std::vector<const Node*>{};
}

std::string AutocastNote(const Program& p, const Expectation& contract, const std::string& node) {
  const Node* n = p.FindNode(node);
  if (!n || !n->autocast || n->args.empty()) return "";
  const ValueType* first = TypeOf(contract, n->args[0]);
  if (!first) return "";
  std::optional<DType> dtype = AutocastDType(p, *n, first->device);
  if (!dtype || AutocastPolicyOf(n->op, first->device) == AutocastPolicy::kNone) return "";
  return " under autocast(" + std::string(DeviceName(first->device)) + ", " +
         std::string(DTypeName(*dtype)) + ")";
}

std::string OpCallName(const Program& p, const Expectation& contract, const std::string& node) {
  const Node* n = p.FindNode(node);
  if (!n) return "?";
  std::string name(GetOpSpec(n->op).name);
  if (n->op != OpKind::kMatmul || n->args.size() < 2) return name;
  const ValueType* a = TypeOf(contract, n->args[0]);
  const ValueType* b = TypeOf(contract, n->args[1]);
  if (!a || !b) return name;
  std::string to = MatmulReaches(a->shape, b->shape);
  // 1-D @ 2-D is mm of a row: named apart, since the row's dtype comes first.
  if (to == "mm" && a->shape.size() == 1 && b->shape.size() == 2) to = "vm";
  return name + "[" + to + "]";
}

std::string OpFamily(const Program& p, const Expectation& contract, const std::string& node) {
  const Node* n = p.FindNode(node);
  // aten/src/ATen/native/Linear.cpp: linear is addmm with a bias, else a matmul that folds the
  // input's batch dims into mm; eager and the compilers' decompositions reach those.
  if (n && n->op == OpKind::kLinear) return n->args.size() >= 3 ? "addmm" : "mm";
  std::string call = OpCallName(p, contract, node);
  // matmul reaches dot, mv, mm or bmm (vm is mm of a row): each compiler lowers the function
  // reached, so matmul's mv path and mv are one code path.
  if (call.rfind("matmul[", 0) != 0) return call;
  std::string to = call.substr(7, call.size() - 8);
  return to == "vm" ? "mm" : to;
}

bool EagerOnMeta(const Program& p, const Expectation& contract) {
  if (!contract.rejects) return false;
  const Node* n = p.FindNode(contract.violation.node);
  if (!n) return false;
  for (const auto& a : n->args) {
    const ValueType* t = TypeOf(contract, a);
    if (t && t->device == Device::kMeta) return true;
  }
  return false;
}

bool UnusedNode(const Program& p, const std::string& node) {
  std::set<std::string> live(p.outputs.begin(), p.outputs.end());
  for (auto n = p.nodes.rbegin(); n != p.nodes.rend(); ++n)
    if (live.count(n->name)) live.insert(n->args.begin(), n->args.end());
  return p.FindNode(node) && !live.count(node);
}

bool EagerPassedTheViolation(const Expectation& contract, const PathResult& eager) {
  if (!contract.rejects || eager.kind != OutcomeKind::kError) return false;
  // Raising in backward where the forward must raise is getting past it (and the reverse is not).
  if (eager.backward != contract.violation.backward) return eager.backward;
  return !eager.node.empty() && eager.node != contract.violation.node;
}

bool EagerRaisedElsewhere(const Expectation& contract, const RootCauseFacts& f) {
  bool against_eager =
      f.kind == DivergenceKind::kErrorBehaviour || f.kind == DivergenceKind::kErrorClass;
  return against_eager && !f.eager_node.empty() &&
         (!contract.rejects || f.eager_node != contract.violation.node);
}

bool SkipsUnusedOp(const Program& p, const Expectation& contract, const RootCauseFacts& f) {
  bool skipped =
      (f.kind == DivergenceKind::kErrorBehaviour && f.behaviour == "accepts") ||
      (f.kind == DivergenceKind::kErrorClass && f.path != kEagerPath && f.path != kEagerMetaPath);
  if (!skipped) return false;
  // Seen on 2.15.0 in the program fuzzer: eager accepted addmm(cpu, meta, meta) (the contract's
  // violation), then raised at an unused bmm, which TorchScript eliminated: ten entries signed by
  // the addmm's rule and op were dead-code elimination.
  if (EagerRaisedElsewhere(contract, f)) return UnusedNode(p, f.eager_node);
  return contract.rejects && UnusedNode(p, contract.violation.node);
}

}  // namespace mmdiff
