// Finding headlines.
#include "src/report/headline.h"

#include <cstdio>

#include "oracles/addmm_fusion.h"
#include "oracles/attention_fusion.h"
#include "oracles/cast_round_trip.h"
#include "oracles/judge.h"

namespace mmdiff {

namespace {

std::string OutputType(const PathResult* r, int output) {
  if (!r || !r->ok() || r->outputs.empty()) return "?";
  const TensorValue& t =
      r->outputs[std::min<size_t>(static_cast<size_t>(std::max(output, 0)), r->outputs.size() - 1)];
  return std::string(DTypeName(t.dtype)) + ShapeString(t.shape) + "@" +
         std::string(DeviceName(t.device));
}

// A message on one line: its first line and, where a worker's stderr follows, the last line of that
// (e.g. "worker killed by signal 6 (Aborted) ... what():  std::bad_alloc").
std::string OneLine(const std::string& message) {
  std::vector<std::string> lines;
  size_t start = 0;
  while (start <= message.size()) {
    size_t end = message.find('\n', start);
    std::string line =
        message.substr(start, end == std::string::npos ? std::string::npos : end - start);
    size_t a = line.find_first_not_of(" \t\r"), b = line.find_last_not_of(" \t\r");
    if (a != std::string::npos) lines.push_back(line.substr(a, b - a + 1));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (lines.empty()) return "";
  std::string out = lines.front().substr(0, 160);
  if (lines.size() > 1) out += " ... " + lines.back().substr(0, 120);
  return out;
}

std::string ErrorClass(const PathResult* r) {
  return r && r->kind == OutcomeKind::kError ? r->error_class : "?";
}

std::string Rule(const Expectation& contract) {
  return contract.rejects ? " (" + contract.violation.rule + ")" : "";
}

// The position of the node named `name` in the program, or -1 (no such node, e.g. no name).
int NodeIndex(const Program& p, const std::string& name) {
  for (size_t i = 0; i < p.nodes.size(); ++i)
    if (p.nodes[i].name == name) return static_cast<int>(i);
  return -1;
}

std::string Other(const Divergence& d, const std::string& at_fault) {
  for (const auto& p : d.paths)
    if (p != at_fault && p != kReferencePath) return p;
  return kEagerPath;
}

// "op(dtype, ...)": a node's op as the headline names it, with its operands' dtypes.
std::string NodeCall(const Program& p, const Expectation& contract, const Node& n) {
  std::string call = OpCallName(p, contract, n.name) + "(";
  for (size_t i = 0; i < n.args.size(); ++i) {
    const ValueType* t = TypeOf(contract, n.args[i]);
    call += (i ? ", " : "") + (t ? std::string(DTypeName(t->dtype)) : std::string("?"));
  }
  return call + ")" + AutocastNote(p, contract, n.name);
}

// ", at OP": where eager raised, when that is past the violation the headline names instead
// (FindingNodes: eager's node, which the contract cannot type).
std::string EagerRaisedPast(const Program& p, const Expectation& contract,
                            const RootCauseFacts& f) {
  if (!EagerRaisedElsewhere(contract, f)) return "";
  const std::vector<const Node*> named = FindingNodes(p, contract, f);
  return named.size() == 1 && named[0]->name != f.eager_node
             ? ", at " + OpCallName(p, contract, f.eager_node)
             : "";
}

}  // namespace

std::string FindingOpCall(const Program& p, const Expectation& contract, const RootCauseFacts& f) {
  std::vector<const Node*> nodes = FindingNodes(p, contract, f);
  if (nodes.empty()) return "the program";
  if (nodes.size() > 1) {
    std::string ops;
    for (const Node* m : nodes) {
      std::string op = OpCallName(p, contract, m->name);
      if (ops.find(op) == std::string::npos) ops += (ops.empty() ? "" : ", ") + op;
    }
    return "a program of " + ops;
  }
  return NodeCall(p, contract, *nodes[0]);
}

std::string FindingHeadline(const Program& p, const Expectation& contract,
                            const std::vector<PathResult>& results, const Verdict& v,
                            const FindingKey& k) {
  if (k.divergence >= v.divergences.size()) return "all paths agree";
  const Divergence& d = v.divergences[k.divergence];
  const RootCauseFacts facts = FindingFacts(contract, results, v, k.divergence);
  const std::string call = FindingOpCall(p, contract, facts);
  std::string at_fault = d.blamed.empty() ? "" : d.blamed;
  // A result of attention fusions: which ones, named after the path (RootCauseFacts::fused).
  std::string fusing = facts.fused.empty() ? "" : ", fusing attention (" + facts.fused + "),";
  if (const auto dim = facts.fused.empty() ? std::nullopt : SoftmaxOverOtherDim(p, contract))
    fusing.insert(fusing.size() - 1, " of a softmax over dim " + std::to_string(*dim));
  std::string h;
  switch (d.kind) {
    case DivergenceKind::kCrash:
    case DivergenceKind::kTimeout: {
      const PathResult* r = FindResult(results, d.paths.empty() ? "" : d.paths[0]);
      h = (d.paths.empty() ? std::string("?") : d.paths[0]) +
          (d.kind == DivergenceKind::kCrash ? " crashes" : " times out") + " in stage \"" +
          (r ? r->stage : "?") + "\" on " + call +
          (r && !r->message.empty() ? ": " + OneLine(r->message) : "");
      break;
    }
    case DivergenceKind::kContract: {
      const PathResult* eager = FindResult(results, kEagerPath);
      const bool passed = eager && EagerPassedTheViolation(contract, *eager);
      const ContractRule* deviation =
          contract.rejects && !contract.violation.eager_deviation.empty()
              ? FindContractRule(contract.violation.eager_deviation)
              : nullptr;
      if (eager && (eager->ok() || passed) && deviation) {
        // Eager breaks a rule that the contract keeps: the rule rejects it, not just the contract.
        h = "eager accepts " + call + " " + deviation->where + " that the rule rejects" +
            Rule(contract);
        if (passed)
          h += ", then raises " + ErrorClass(eager) +
               (eager->backward ? " in backward" : " at " + OpCallName(p, contract, eager->node));
      } else if (eager && (eager->ok() || passed) && contract.rejects) {
        h = !EagerOnMeta(p, contract)
                ? "eager accepts " + call + " that the contract rejects" + Rule(contract)
            : contract.violation.rule == "same_device"
                ? "eager accepts " + call + " with a meta operand that the contract rejects" +
                      Rule(contract)
                : "eager on meta accepts " + call + " that the contract rejects" + Rule(contract);
        if (passed)
          h += ", then raises " + ErrorClass(eager) +
               (eager->backward ? " in backward" : " at " + OpCallName(p, contract, eager->node));
      } else if (eager && !eager->ok() && !contract.rejects)
        h = "eager raises " + ErrorClass(eager) + " on " + call + " that the contract accepts";
      else if (eager && !eager->ok())
        h = "eager raises " + ErrorClass(eager) + " on " + call + " where the contract expects " +
            contract.violation.error_class + Rule(contract);
      else
        h = "eager returns " + OutputType(eager, d.output) + " for " + call +
            " unlike the contract";
      break;
    }
    case DivergenceKind::kMeta: {
      const PathResult* cpu = FindResult(results, kEagerPath);
      const PathResult* meta = FindResult(results, kEagerMetaPath);
      if (at_fault == kEagerPath && cpu && cpu->ok())
        // Meta does what the contract says and cpu does not (a finding folded into eager's own
        // wherever a reference ran).
        h = "eager accepts " + call + " that eager_meta rejects, as the contract does" +
            Rule(contract);
      else if (meta && cpu && meta->ok() && !cpu->ok())
        h = "eager_meta accepts " + call + " that eager on cpu rejects" + Rule(contract);
      else if (meta && cpu && !meta->ok() && cpu->ok())
        h = "eager_meta raises " + ErrorClass(meta) + " on " + call + " that eager on cpu accepts";
      else if (meta && cpu && !meta->ok() && NodeIndex(p, meta->node) > NodeIndex(p, cpu->node) &&
               NodeIndex(p, cpu->node) >= 0)
        // Meta got past the node eager on cpu rejects and failed further on: say so, and where.
        h = "eager_meta accepts " + call + " where eager on cpu raises " + ErrorClass(cpu) +
            ", then raises " + ErrorClass(meta) + " at " + OpCallName(p, contract, meta->node);
      else if (meta && cpu && !meta->ok())
        h = "eager_meta raises " + ErrorClass(meta) + " on " + call +
            " where eager on cpu raises " + ErrorClass(cpu);
      else
        h = "eager_meta predicts " + OutputType(meta, d.output) + " for " + call +
            " where eager on cpu returns " + OutputType(cpu, d.output);
      break;
    }
    case DivergenceKind::kValue: {
      char worst[160];
      std::snprintf(worst, sizeof(worst), "got %.6g, reference %.6g, allowed error %.3g", d.got,
                    d.expected, d.allowed);
      std::string who = at_fault.empty()         ? d.paths.back() + " (eager is out of bound too)"
                        : facts.path == at_fault ? at_fault + fusing
                                                 : at_fault;
      // A gradient: "the backward of mm(float32, float32) for grad(x)".
      bool grad = d.output >= 0 && IsGradient(contract, d.output);
      std::string what = grad ? "the backward of " + call + " for " +
                                    contract.result_names.at(static_cast<size_t>(d.output))
                              : call;
      h = who + " computes " + what + " beyond the rounding bound (" + worst + ")";
      if (facts.behaviour == kSdpaSafeSoftmax)
        h = who + " returns numbers for " + what + " where the unfused softmax gives NaN (" +
            worst + ")";
      if (const CastRoundTrip t = RoundTripFinding(p, contract, facts); t.back)
        h += ", after the explicit round trip " + RoundTripText(t) + " (" + t.narrow->name + ", " +
             t.back->name + ")";
      char rmse[128];
      std::snprintf(rmse, sizeof(rmse), "RMSE %.3g against float64, eager's %.3g", d.path_rmse,
                    d.eager_rmse);
      if (facts.behaviour == kSdpaFloat32)
        h += " but no less accurately than eager (" + std::string(rmse) + ")";
      if (UnroundedAddmmBias(p, contract, facts))
        h += ", fused with its mm into addmm (post_grad.addmm), but no less accurately than eager "
             "(" +
             std::string(rmse) + ")";
      break;
    }
    case DivergenceKind::kBackwardError: {
      const PathResult* eager = FindResult(results, kEagerPath);
      if (at_fault == kEagerPath && d.paths.front() == kReferencePath && eager &&
          eager->kind == OutcomeKind::kError) {
        // Against the reference, which differentiates it.
        h = "eager raises " + ErrorClass(eager) + " in backward on " + call +
            " whose forward it accepts";
        break;
      }
      std::string path = at_fault.empty() ? Other(d, kEagerPath) : at_fault;
      std::string other = Other(d, path);
      const PathResult* r = FindResult(results, path);
      const PathResult* o = FindResult(results, other);
      auto does = [](const PathResult* x) {
        if (!x || x->ok()) return std::string("returns gradients");
        return "raises " + x->error_class + (x->backward ? " in backward" : " in the forward");
      };
      // A compile that fused attention names the fusion, as a wrong value's headline does.
      std::string who = path;
      if (r && r->traits.compiled)
        if (const std::string fused = FusedAttention(*r, d).fused; !fused.empty())
          who += ", fusing attention (" + fused + "),";
      h = who + " " + does(r) + " on " + call + " where " + other + " " + does(o);
      if (const Node* n = PromotedGradientInBackward(p, contract, facts))
        h += ", after " + NodeCall(p, contract, *n) + " promotes a gradient-tracked operand";
      if (at_fault.empty()) h += " (nobody blamed: neither follows the contract)";
      break;
    }
    case DivergenceKind::kIgnoredInput: {
      char values[120];
      std::snprintf(values, sizeof(values), " (%.6g with them, %.6g with zeros)", d.got,
                    d.expected);
      h = at_fault + " reads the ignored input of " + call +
          " (beta = 0): the result changes when its NaN/inf are replaced by zeros" +
          (d.element >= 0 ? std::string(values) : std::string());
      for (size_t i = 1; i < d.paths.size(); ++i) h += (i == 1 ? "; so does " : ", ") + d.paths[i];
      break;
    }
    default: {
      std::string path = at_fault.empty() ? Other(d, kEagerPath) : at_fault;
      std::string other = Other(d, path);
      const PathResult* r = FindResult(results, path);
      const PathResult* o = FindResult(results, other);
      const bool dead = SkipsUnusedOp(p, contract, facts);
      if (d.kind == DivergenceKind::kErrorBehaviour && r && (r->ok() || r->backward))
        h = path + " accepts " + call + " that " + other + " rejects" +
            (contract.rejects && !EagerRaisedElsewhere(contract, facts)
                 ? Rule(contract)
                 : " with " + ErrorClass(o) + EagerRaisedPast(p, contract, facts)) +
            (dead ? ", whose result is unused (dead code eliminated with its error)" : "") +
            (r->backward ? ", then raises " + ErrorClass(r) + " in backward" : "");
      else if (d.kind == DivergenceKind::kErrorClass && dead)
        h = path + " raises " + ErrorClass(r) + " where " + other + " raises " + ErrorClass(o) +
            " on " + call + ", whose result is unused (dead code eliminated with its error)";
      else if (d.kind == DivergenceKind::kErrorBehaviour && o && o->kind == OutcomeKind::kError &&
               o->backward)
        // The other path ran the forward and raised in its backward: it did not accept the program.
        h = path + " raises " + ErrorClass(r) + " on " + call + " where " + other + " raises " +
            ErrorClass(o) + " in backward";
      else if (d.kind == DivergenceKind::kErrorBehaviour)
        h = path + (facts.path == path ? fusing : "") + " raises " + ErrorClass(r) + " on " + call +
            " that " + other + " accepts";
      else if (d.kind == DivergenceKind::kErrorClass)
        h = path + " raises " + ErrorClass(r) + " on " + call + " where " + other + " raises " +
            ErrorClass(o);
      else
        h = path + (facts.path == path ? fusing : "") + " returns " + OutputType(r, d.output) +
            " for " + call + " where " + other + " returns " + OutputType(o, d.output);
      if (at_fault.empty()) h += " (nobody blamed: neither follows the contract)";
      break;
    }
  }
  if (!k.also.empty()) {
    h += " (also:";
    for (size_t i = 0; i < k.also.size(); ++i) h += (i ? ", " : " ") + k.also[i];
    h += ")";
  }
  return h;
}

}  // namespace mmdiff
