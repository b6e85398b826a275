// Root-cause signatures and the findings of a case.
#include "oracles/root_cause.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <set>
#include <string_view>

#include "oracles/addmm_fusion.h"
#include "oracles/cast_round_trip.h"
#include "oracles/judge.h"

namespace mmdiff {

namespace {

// The operands' devices in operand order: a meta bias with cpu matrices takes another code path in
// eager than cpu matrices with a meta bias.
std::string Devices(const Program& p, const Expectation& contract, const Node* n) {
  std::vector<std::string> devices;
  if (n) {
    for (const auto& a : n->args) {
      const ValueType* t = TypeOf(contract, a);
      devices.push_back(t ? std::string(DeviceName(t->device)) : "?");
    }
  } else {
    std::set<std::string> distinct;
    for (const auto& in : p.inputs) distinct.insert(std::string(DeviceName(in.device)));
    devices.assign(distinct.begin(), distinct.end());
  }
  std::string out;
  for (const auto& d : devices) out += (out.empty() ? "" : ",") + d;
  return out.empty() ? "?" : out;
}

// The devices the program's results are on, sorted: where it computes, whatever devices its
// inputs were made on before a move (the inputs' where a result's type is unknown).
std::string ResultDevices(const Program& p, const Expectation& contract) {
  std::set<std::string> distinct;
  for (const auto& out : p.outputs) {
    const ValueType* t = TypeOf(contract, out);
    if (!t) return Devices(p, contract, nullptr);
    distinct.insert(std::string(DeviceName(t->device)));
  }
  std::string joined;
  for (const auto& d : distinct) joined += (joined.empty() ? "" : ",") + d;
  return joined.empty() ? Devices(p, contract, nullptr) : joined;
}

std::string Behaviour(const PathResult* r) {
  if (!r) return "?";
  if (r->ok()) return "accepts";
  if (r->kind == OutcomeKind::kError) return "raises:" + r->error_class;
  return std::string(OutcomeName(r->kind));
}

// The path of a two-path divergence that is not eager (or the second, when neither is).
// An unblamed divergence's path at fault is written "?(p)"; these give p and say which it is.
bool Unblamed(const std::string& path) { return path.size() > 3 && path.compare(0, 2, "?(") == 0; }
std::string BarePath(const std::string& path) {
  return Unblamed(path) ? path.substr(2, path.size() - 3) : path;
}

std::string OtherPath(const Divergence& d) {
  for (const auto& p : d.paths)
    if (p != kEagerPath && p != kReferencePath) return p;
  return d.paths.empty() ? "?" : d.paths.back();
}

// Facts before the ladder lowering.
RootCauseFacts RawFacts(const Expectation& contract, const std::vector<PathResult>& results,
                        const Divergence& d) {
  RootCauseFacts f;
  f.kind = d.kind;
  f.output = d.output >= 0 ? d.output : 0;
  const PathResult* eager = FindResult(results, kEagerPath);
  if (eager && eager->kind == OutcomeKind::kError) f.eager_node = eager->node;
  switch (d.kind) {
    case DivergenceKind::kCrash:
    case DivergenceKind::kTimeout: {
      f.path = d.paths.empty() ? "?" : d.paths[0];
      const PathResult* r = FindResult(results, f.path);
      f.behaviour = "stage:" + (r ? r->stage : std::string("?"));
      return f;
    }
    case DivergenceKind::kContract:
      f.path = kEagerPath;
      if (!eager)
        f.behaviour = "?";
      else if (eager->ok())
        f.behaviour = contract.rejects ? "accepts" : "result_type";
      else if (EagerPassedTheViolation(contract, *eager))
        f.behaviour = "accepts";  // and failed at a later node: a finding of its own, if any
      else
        f.behaviour = Behaviour(eager);
      return f;
    case DivergenceKind::kMeta: {
      f.path = kEagerMetaPath;
      const PathResult* meta = FindResult(results, kEagerMetaPath);
      if (!eager || !meta)
        f.behaviour = "?";
      else if (eager->ok() != meta->ok())
        f.behaviour = Behaviour(meta);
      else if (!eager->ok())
        f.behaviour = "error_class:" + meta->error_class;
      else
        f.behaviour = "result_type";
      return f;
    }
    default:
      break;
  }
  std::string at_fault = d.blamed.empty() ? OtherPath(d) : d.blamed;
  f.path = d.blamed.empty() ? "?(" + at_fault + ")" : d.blamed;
  switch (d.kind) {
    case DivergenceKind::kErrorBehaviour: {
      // A path that raised only in the backward pass accepted the forward.
      const PathResult* r = FindResult(results, at_fault);
      f.behaviour = r && r->kind == OutcomeKind::kError && r->backward ? "accepts" : Behaviour(r);
      break;
    }
    case DivergenceKind::kErrorClass:
      f.behaviour = Behaviour(FindResult(results, at_fault));
      break;
    case DivergenceKind::kBackwardError: {
      // The class is left out: a regression entry (which records kinds, not classes) must be able
      // to name the root cause, and backward errors of one op are one cause whatever the class.
      const PathResult* r = FindResult(results, at_fault);
      f.behaviour =
          r && r->kind == OutcomeKind::kError && r->backward ? "backward_raises" : Behaviour(r);
      break;
    }
    case DivergenceKind::kValue:
      // A gradient beyond its bound is the backward's finding, apart from the forward's values.
      f.behaviour = IsGradient(contract, d.output) ? "grad_values" : "values";
      f.nan = std::isnan(d.got) && !std::isnan(d.expected);
      break;
    case DivergenceKind::kIgnoredInput:
      f.behaviour = "reads_ignored";
      break;
    default:
      f.behaviour = "returns";
      break;  // dtype, shape, device: the kind says what
  }
  return f;
}

// Whether a result raises or returns as the contract says (by class, not types).
bool MatchesContractOutcome(const Expectation& c, const PathResult& r) {
  return c.rejects ? r.kind == OutcomeKind::kError && r.error_class == c.violation.error_class
                   : r.ok();
}

// Eager's own finding against the contract: its contract divergence, or its backward error where
// the reference differentiates (paths reference, eager).
bool EagersContractFinding(const Divergence& d) {
  return d.kind == DivergenceKind::kContract ||
         (d.kind == DivergenceKind::kBackwardError && d.blamed == kEagerPath &&
          std::find(d.paths.begin(), d.paths.end(), kReferencePath) != d.paths.end());
}

// The findings' fold: where divergence i's cause is stated by another divergence, that one's index
// (target), and whether the path of a folded divergence shares the fault and is named in the
// finding's "also" (named).
struct Folds {
  std::vector<size_t> target;
  std::vector<bool> named;
};

Folds FoldTargets(const Expectation& c, const Verdict& v, const std::vector<PathResult>& results) {
  const auto& ds = v.divergences;
  Folds folds{std::vector<size_t>(ds.size()), std::vector<bool>(ds.size(), false)};
  std::vector<size_t>& target = folds.target;
  // How a divergence restates eager's finding where eager breaks the rule: by another path that
  // breaks it too (named), or by one that follows it (not named).
  std::vector<bool> shares_eagers_fault(ds.size(), false);
  size_t contract = ds.size(), eager_values = ds.size();
  for (size_t i = 0; i < ds.size(); ++i) {
    target[i] = i;
    if (EagersContractFinding(ds[i])) contract = i;
    if (ds[i].kind == DivergenceKind::kValue && ds[i].blamed == kEagerPath) eager_values = i;
  }
  const PathResult* eager = FindResult(results, kEagerPath);
  // Eager breaks a rule the contract documents it breaking, or raises in a backward the reference
  // differentiates (its class then).
  const bool deviation = contract < ds.size() && ds[contract].kind == DivergenceKind::kContract &&
                         ds[contract].blamed == kEagerPath;
  const bool eager_backward = contract < ds.size() &&
                              ds[contract].kind == DivergenceKind::kBackwardError && eager &&
                              eager->kind == OutcomeKind::kError && eager->backward;
  // torch.compile traces with fake tensors, which run the meta registrations: a compiled path that
  // raises the class eager_meta raises, where eager on cpu does otherwise, fails in the meta
  // kernel.
  size_t meta = ds.size();
  std::string meta_class;
  const PathResult* meta_result = FindResult(results, kEagerMetaPath);
  for (size_t i = 0; i < ds.size(); ++i)
    if (ds[i].kind == DivergenceKind::kMeta && meta_result &&
        meta_result->kind == OutcomeKind::kError) {
      meta = i;
      meta_class = meta_result->error_class;
    }
  auto other = [&](const Divergence& d) -> const PathResult* {
    if (d.paths.size() != 2 || d.paths[0] != kEagerPath) return nullptr;
    return FindResult(results, d.paths[1]);
  };
  for (size_t i = 0; i < ds.size(); ++i) {
    const Divergence& d = ds[i];
    if (i == contract) continue;
    if (d.kind == DivergenceKind::kMeta && contract < ds.size() && meta_result &&
        MatchesContractOutcome(c, *meta_result)) {
      target[i] = contract;  // meta does what the contract says; eager on cpu is the odd one
      continue;
    }
    const PathResult* x = other(d);
    // Where eager accepts what the contract documents it wrongly accepting (an empty mixed-dtype
    // bmm), another path that accepts it too, returning another type, breaks the same rule: its
    // difference from eager is no cause of its own (seen on 2.11.0: inductor returning float64
    // where eager returned float32 for the empty float64 @ float32 bmm both should reject).
    if (deviation && x && (x->ok() || x->backward) &&
        (d.blamed.empty() || d.kind == DivergenceKind::kMeta)) {
      target[i] = contract;
      shares_eagers_fault[i] = true;
      continue;
    }
    // Eager raised in a backward the reference differentiates; a compiled path that raises the
    // same class in its forward call of a training program traced that backward there (AOTAutograd
    // traces forward and backward together at the first call): the same root cause (seen on
    // 2.15.0: addmv with an empty matrix and a [1] bias, eager's backward and inductor's and
    // aot_eager's forward call all raising RuntimeError "size mismatch").
    if (eager_backward && d.blamed.empty() && x && x->traits.compiled &&
        x->kind == OutcomeKind::kError && !x->backward && x->error_class == eager->error_class) {
      target[i] = contract;
      shares_eagers_fault[i] = true;
      continue;
    }
    bool compiled_error =
        d.kind == DivergenceKind::kErrorBehaviour || d.kind == DivergenceKind::kErrorClass;
    if (meta < ds.size() && compiled_error && LadderRank(d.blamed) >= 0) {
      const PathResult* r = FindResult(results, d.blamed);
      if (r && r->kind == OutcomeKind::kError && r->error_class == meta_class) {
        target[i] = meta;
        continue;
      }
    }
    bool restates_eager_values =
        d.kind == DivergenceKind::kValue && d.blamed.empty() && eager_values < ds.size();
    bool restates_contract =
        contract < ds.size() && d.blamed == kEagerPath &&
        (d.kind == DivergenceKind::kErrorBehaviour || d.kind == DivergenceKind::kErrorClass ||
         d.kind == DivergenceKind::kBackwardError || d.kind == DivergenceKind::kDType ||
         d.kind == DivergenceKind::kShape || d.kind == DivergenceKind::kDevice ||
         d.kind == DivergenceKind::kMeta);
    if (restates_eager_values)
      target[i] = eager_values;
    else if (restates_contract)
      target[i] = contract;
  }
  // Folds chain (a compiled path into eager_meta, eager_meta into the contract): to the end.
  for (size_t i = 0; i < ds.size(); ++i)
    for (size_t hops = 0; hops < ds.size() && target[target[i]] != target[i]; ++hops)
      target[i] = target[target[i]];
  // A folded path is named where it shows the finding's fault too: a value out of bound with
  // eager's, a compiled path failing in the meta kernel, a path breaking the rule eager breaks. The
  // paths that disagree with an eager that breaks the contract follow the contract: not named.
  for (size_t i = 0; i < ds.size(); ++i) {
    if (target[i] == i) continue;
    folds.named[i] = shares_eagers_fault[i] ||
                     (ds[i].blamed != kEagerPath && !EagersContractFinding(ds[target[i]]));
  }
  return folds;
}

}  // namespace

bool EagerBfloat16ProductNan(const Program& p, const Expectation& contract,
                             const RootCauseFacts& f) {
  if (f.kind != DivergenceKind::kValue || f.path != kEagerPath || !f.nan) return false;
  const std::vector<const Node*> nodes = FindingNodes(p, contract, f);
  if (nodes.size() != 1) return false;
  const Node& n = *nodes[0];
  const std::string family = OpFamily(p, contract, n.name);
  static const std::set<std::string> kProducts = {"mm", "bmm", "addmm", "baddbmm", "addbmm"};
  if (!kProducts.count(family)) return false;
  const bool with_bias = GetOpSpec(n.op).has_alpha_beta;
  if (with_bias && n.alpha == 0) return false;
  // The product's first operand (linear's input; the addmm family's first matrix).
  const size_t first = with_bias ? 1 : 0;
  if (n.args.size() <= first) return false;
  const ValueType* t = TypeOf(contract, n.args[first]);
  return t && t->dtype == DType::kBFloat16;
}

const Node* PromotedGradientInBackward(const Program& p, const Expectation& contract,
                                       const RootCauseFacts& f) {
  if (f.kind != DivergenceKind::kBackwardError || f.behaviour != "backward_raises" || !f.compiled)
    return nullptr;
  const std::set<std::string> tracked = GradTrackedValues(p, contract.types);
  for (const Node& n : p.nodes) {
    if (!IsBinaryPromoting(n.op)) continue;
    const ValueType* result = TypeOf(contract, n.name);
    if (!result) continue;
    for (const std::string& a : n.args) {
      const ValueType* t = TypeOf(contract, a);
      if (t && tracked.count(a) && t->dtype != result->dtype) return &n;
    }
  }
  return nullptr;
}

std::string RootCauseSignature(const Program& p, const Expectation& contract,
                               const RootCauseFacts& f) {
  // A path that accepts a program, or raises another class, because the op eager rejects has an
  // unused result: it eliminated dead code (TorchScript's DCE treats aten ops as free of side
  // effects) and with it the op's error, whatever the op, rule and operands; where it raises, it
  // raises at a later op. One root cause per path, whether it then accepts or raises and whether
  // or not eager follows the contract there (seen on 2.15.0: 33 program-fuzzer buckets of
  // torchscript accepting mm, bmm, addmv, dot, views and device moves, and 9 of it raising another
  // class, were all this; then three entries, accepting, raising, and unblamed where eager raised
  // IndexError for the contract's RuntimeError). Signed as an error-behaviour finding either way.
  if (SkipsUnusedOp(p, contract, f))
    return std::string(DivergenceKindName(DivergenceKind::kErrorBehaviour)) +
           "|path=" + BarePath(f.path) + "|unused_op";
  // Eager's bfloat16 products returning NaN: one root cause whatever the op, forward or gradient.
  if (EagerBfloat16ProductNan(p, contract, f)) {
    const std::vector<const Node*> nodes = FindingNodes(p, contract, f);
    return "value|path=eager|bfloat16_products_nan|devices=" + Devices(p, contract, nodes[0]);
  }

  // A gradient left in a type-promoting op's promoted dtype: one root cause per path, whatever the
  // product before it raised in (seen on 2.15.0: TorchScript after float16 linear and bmm, two
  // buckets by their ops for the catalogued bfloat16 matmul's one).
  if (PromotedGradientInBackward(p, contract, f))
    return "backward_error|path=" + f.path +
           "|backward_raises|promoted_gradient|devices=" + Devices(p, contract, nullptr);

  // An explicit cast round trip whose rounding the compiled path skipped, by the look of a
  // precision-only result: one root cause per path, forward or gradient (seen on 2.11.0:
  // pytorch#185337 in a baddbmm's values and, through the same pair, in an mv's gradient).
  if (RoundTripFinding(p, contract, f).back)
    return "value|path=" + f.path + "|cast_round_trip|devices=" + Devices(p, contract, nullptr);
  // An add of an mm's product fused into addmm, no less accurate than eager: by design.
  if (UnroundedAddmmBias(p, contract, f)) return "value|path=" + f.path + "|" + kAddmmFusion;

  // Eager on meta tensors runs torch's meta registrations, which check the matmul family's shapes
  // but skip most of its dtype checks, whatever the op: the eager_meta path (a cpu program on meta
  // tensors) and eager on a meta program that accept what cpu rejects are one root cause per rule,
  // not one per op and operand dtypes (seen on torch 2.11.0 to 2.15.0: mm, bmm, mv, addmm, addbmm,
  // matmul and linear all accept float16 with float32 on meta). Likewise an op mixing cpu and meta
  // operands dispatches to the meta kernel, which has no device check (same_device: mm, bmm,
  // addmm, addbmm and linear, in every operand order). Where eager on meta operands raises another
  // class than the contract's, it is the same missing check met later, in whatever the meta kernel
  // or the mixed dispatch does next (seen on 2.15.0 in the program fuzzer: IndexError from mm and
  // bmm of a meta and a cpu operand, NotImplementedError "Cannot copy out of meta tensor" from bmm
  // and matmul's mv): whether the program then returns or fails elsewhere depends on the operands,
  // not on the cause, so accepting and raising another class are one root cause per rule (seen on
  // 2.15.0 in the program fuzzer: a cpu/meta addmm accepted and a cpu/meta bmm raising IndexError
  // were two entries for one missing device check). A meta kernel raising another class than cpu
  // where both reject (error_class) is a check of its own, met first: kept apart.
  bool meta_kind = f.kind == DivergenceKind::kMeta ||
                   (f.kind == DivergenceKind::kContract && EagerOnMeta(p, contract));
  if (meta_kind && contract.rejects) {
    bool skips_check = f.behaviour == "accepts" || f.behaviour.rfind("raises:", 0) == 0;
    return "meta|path=eager_meta|" + (skips_check ? std::string("skips_check") : f.behaviour) +
           "|rule=" + contract.violation.rule;
  }
  // Where the contract names eager's deviation from a rule it keeps (ContractRule::where), eager
  // accepting is one root cause per deviation and device, whatever the op it is met in: bmm,
  // baddbmm and matmul's bmm path all reach bmm_out_or_baddbmm_, whose early return for empty
  // inputs comes before its dtype check (seen on 2.15.0: the empty mixed-dtype forms of bmm,
  // baddbmm and >= 3-D matmul, a deliberate fold of three op families into one signature); linear
  // adds the bias in place wherever its input is not 2-D.
  if (f.kind == DivergenceKind::kContract && f.behaviour == "accepts" && contract.rejects &&
      !contract.violation.eager_deviation.empty()) {
    const Node* n = p.FindNode(contract.violation.node);
    const ValueType* t = n && !n->args.empty() ? TypeOf(contract, n->args[0]) : nullptr;
    return "contract|path=eager|accepts|rule=" + contract.violation.rule +
           "|deviation=" + contract.violation.eager_deviation +
           "|devices=" + (t ? std::string(DeviceName(t->device)) : std::string("?"));
  }
  std::string s = std::string(DivergenceKindName(f.kind)) + "|path=" + f.path + "|" + f.behaviour;
  if (f.behaviour == kSdpaSafeSoftmax || f.behaviour == kSdpaFloat32)
    return s;  // whatever the op and the fusion
  // A compiled path raising on a program eager runs, after fusing attention: one root cause per
  // path, kind and error class whatever the pattern and the ops around it. The error comes from
  // what the fusion left (sdpa's result, its layout and dtype, in place of the ops the rest of the
  // graph was traced with), not from one op: seen on 2.11.0, pytorch#195589 (attention viewed to
  // (B*H, L, E) and fed to linear) came as 4 buckets by ops list from patterns 2, 3 and 25, and on
  // 2.15.0 the backward of patterns 7, 9 and 10 raising on float32 attention with float16 casts
  // as 3.
  if (!f.fused.empty() &&
      (f.kind == DivergenceKind::kErrorBehaviour || f.kind == DivergenceKind::kBackwardError))
    return s + "|fused|devices=" + Devices(p, contract, nullptr);
  // A compiled path raising on a program eager runs with a message that names a compiler defect
  // of its own (CompilerErrorMark): one root cause per path and the devices it computes on,
  // whatever the ops (and whatever devices its inputs came from: a 2.15.0 campaign listed the
  // catalogued meta graph-order error as new for a cpu input moved to meta).
  if (!f.error_mark.empty() && !contract.rejects &&
      (f.kind == DivergenceKind::kErrorBehaviour || f.kind == DivergenceKind::kBackwardError))
    return s + "|" + f.error_mark + "|devices=" + ResultDevices(p, contract);
  // A fusion's result for a softmax over another dim than the last is a root cause of its own,
  // whatever the pattern and the op it ends in: the fusions share the check they lack
  // (pytorch#196468; seen on 2.11.0: _sfdp_pattern_5 ending in matmul and _sfdp_pattern_13 in bmm,
  // two lines).
  if (!f.fused.empty() && SoftmaxOverOtherDim(p, contract)) return s + "|fused|softmax_dim=other";
  // A fusion returning another dtype or shape than the ops it replaced: the replacement does not
  // restore what the pattern's casts and views made, one root cause per path and op whatever the
  // pattern (seen on 2.15.0: patterns 7 to 10, written alike, returned float32 for float16
  // attention, 4 buckets). A wrong value stays the pattern's own: each replacement computes its
  // own way (its mask, its scale).
  if (!f.fused.empty() && f.kind != DivergenceKind::kValue)
    s += "|fused";
  else if (!f.fused.empty())
    s += "|fused=" + f.fused;
  // Where eager raised at another node than the contract's violation, the contract's rule is not
  // what eager rejected: the finding is about eager's node, and its error class.
  if (EagerRaisedElsewhere(contract, f))
    s += "|eager_raises_at_op";
  else if (contract.rejects)
    s += "|rule=" + contract.violation.rule;
  // A compiled path that rejects what eager rejects, with another error class, raises from the
  // tracing layer its ops share (fake tensors, AOT autograd, the pattern matcher), not from one
  // op's lowering: one root cause per path, class and rule (seen on 2.15.0: bool addmm, bmm and mm
  // all raise inductor's pattern-matcher RuntimeError "Only Tensors of floating point and complex
  // dtype can require gradients" where eager raises NotImplementedError, three buckets for one
  // cause). A compiled path that *accepts* stays per op family: each lowering has its own checks
  // (the fix for pytorch#177630 covered bmm but not mm).
  if (f.kind == DivergenceKind::kErrorClass && contract.rejects && f.compiled) return s;
  std::vector<const Node*> nodes = FindingNodes(p, contract, f);
  // A compiled path's op under autocast: how it traced the region is a root cause of its own beside
  // the same op outside one. Eager's own kernels are the same whether autocast or an explicit cast
  // chose their dtype (its bfloat16 AMX NaN under autocast is the catalogued one, seen in the
  // first autocast campaign on 2.15.0).
  bool autocast = false;
  for (const Node* n : nodes) autocast |= !AutocastNote(p, contract, n->name).empty();
  // Accepting what eager rejects is about the op's checks, however autocast chose the operands'
  // dtypes (seen: inductor accepting an autocast float64 @ bfloat16 bmm, the catalogued
  // pytorch#177630 promotion): not tagged.
  if (autocast && f.compiled && f.behaviour != "accepts") s += "|autocast";
  if (nodes.size() == 1)
    return s + "|op=" + OpFamily(p, contract, nodes[0]->name) +
           "|devices=" + Devices(p, contract, nodes[0]);
  // An error on a program the contract accepts: which node raised is not known (reduction narrows
  // it), so the program's compute ops, each once, in order.
  std::vector<std::string> ops;
  for (const Node* n : nodes) {
    std::string op = OpFamily(p, contract, n->name);
    if (std::find(ops.begin(), ops.end(), op) == ops.end()) ops.push_back(op);
  }
  std::string joined;
  for (const auto& op : ops) joined += (joined.empty() ? "" : ",") + op;
  return s + "|ops=" + (joined.empty() ? std::string("none") : joined) +
         "|devices=" + Devices(p, contract, nullptr);
}

namespace {

// The facts of divergence i, the path at fault lowered along the ladder.
RootCauseFacts LoweredFacts(const Expectation& contract, const std::vector<PathResult>& results,
                            const Verdict& v, size_t i) {
  RootCauseFacts f = RawFacts(contract, results, v.divergences.at(i));
  // A knob variant that diverges as the path it varies does (same kind, same behaviour) shows that
  // path's fault, not the knob's: it lowers to it, and on along the ladder. (A finding only the
  // variant has stays the variant's.)
  if (const PathRow* row = FindPath(BarePath(f.path)); row && row->variant_of[0] != '\0')
    for (const auto& d : v.divergences) {
      if (d.kind != f.kind) continue;
      RootCauseFacts base = RawFacts(contract, results, d);
      if (BarePath(base.path) == row->variant_of && Unblamed(base.path) == Unblamed(f.path) &&
          base.behaviour == f.behaviour) {
        f.path = base.path;
        break;
      }
    }
  // An unblamed divergence lowers along the ladder among unblamed ones.
  auto rung = [](const std::string& path) { return LadderRank(BarePath(path)); };
  int rank = rung(f.path);
  if (rank <= 0) return f;
  // The lowest stage that diverges the same way (same kind, same behaviour) is where it starts.
  for (const auto& d : v.divergences) {
    if (d.kind != f.kind) continue;
    RootCauseFacts lower = RawFacts(contract, results, d);
    int r = rung(lower.path);
    if (r < 0 || r >= rank || Unblamed(lower.path) != Unblamed(f.path) ||
        lower.behaviour != f.behaviour)
      continue;
    rank = r;
    f.path = lower.path;
  }
  return f;
}

}  // namespace

RootCauseFacts FindingFacts(const Expectation& contract, const std::vector<PathResult>& results,
                            const Verdict& v, size_t i) {
  RootCauseFacts f = LoweredFacts(contract, results, v, i);
  // An unblamed path at fault ("?(p)") names no result: never compiled.
  const PathResult* at_fault = FindResult(results, f.path);
  f.compiled = at_fault && at_fault->traits.compiled;
  const DivergenceKind k = v.divergences[i].kind;
  if (f.compiled &&
      (k == DivergenceKind::kValue || k == DivergenceKind::kDType || k == DivergenceKind::kShape)) {
    FusionFacts fusion = FusedAttention(*at_fault, v.divergences[i]);
    f.fused = fusion.fused;
    if (!fusion.behaviour.empty()) f.behaviour = fusion.behaviour;
    f.precision_only = k == DivergenceKind::kValue && v.divergences[i].rmse_float64 &&
                       v.divergences[i].classification == "precision-only";
    f.addmm_fused =
        k == DivergenceKind::kValue &&
        std::find(at_fault->compile.internals.begin(), at_fault->compile.internals.end(),
                  std::string(kRewritePrefix) + "post_grad.addmm") !=
            at_fault->compile.internals.end();
  } else if (f.compiled && SignsAttentionFusions(contract, k, f.behaviour)) {
    f.fused = FusedAttention(*at_fault, v.divergences[i]).fused;  // raising, after fusing
  }
  if (f.compiled && at_fault->kind == OutcomeKind::kError &&
      (k == DivergenceKind::kErrorBehaviour || k == DivergenceKind::kBackwardError))
    f.error_mark = CompilerErrorMark(at_fault->message);
  return f;
}

namespace {

// The compiler defects an error message names (CompilerErrorMark): a fragment of the message, and
// the mark its root cause is signed with.
struct ErrorMark {
  std::string_view fragment, mark;
};
constexpr ErrorMark kErrorMarks[] = {{"was used before it has been defined", "graph_order"}};

}  // namespace

std::string CompilerErrorMark(const std::string& message) {
  for (const ErrorMark& m : kErrorMarks)
    if (message.find(m.fragment) != std::string::npos) return std::string(m.mark);
  return "";
}

bool KnownCompilerErrorMark(const std::string& mark) {
  return std::any_of(std::begin(kErrorMarks), std::end(kErrorMarks),
                     [&](const ErrorMark& m) { return m.mark == mark; });
}

bool SignsAttentionFusions(const Expectation& contract, DivergenceKind kind,
                           const std::string& behaviour) {
  if (kind == DivergenceKind::kValue || kind == DivergenceKind::kDType ||
      kind == DivergenceKind::kShape)
    return true;
  return !contract.rejects &&
         ((kind == DivergenceKind::kErrorBehaviour && behaviour.rfind("raises:", 0) == 0) ||
          kind == DivergenceKind::kBackwardError);
}

RootCauseFacts ExpectedFacts(const Expectation& contract, DivergenceKind kind,
                             const std::string& blamed, const PathTraits& blamed_traits) {
  RootCauseFacts f;
  f.kind = kind;
  f.path = blamed.empty() ? "?" : blamed;
  f.compiled = !blamed.empty() && blamed_traits.compiled;
  switch (kind) {
    case DivergenceKind::kContract:
      f.path = kEagerPath;
      f.compiled = false;
      f.behaviour = contract.rejects ? "accepts" : "result_type";
      break;
    case DivergenceKind::kMeta:
      f.path = kEagerMetaPath;
      f.compiled = false;
      f.behaviour = contract.rejects ? "accepts" : "result_type";
      break;
    case DivergenceKind::kErrorBehaviour:
      // Eager follows the contract: where it rejects, the path at fault accepts.
      f.behaviour = contract.rejects != (blamed == kEagerPath) ? "accepts" : "raises:?";
      break;
    case DivergenceKind::kErrorClass:
      f.behaviour = "raises:?";
      break;
    case DivergenceKind::kBackwardError:
      f.behaviour = "backward_raises";  // the raising path is the one the contract blames
      break;
    case DivergenceKind::kValue:
      f.behaviour = "values";
      break;
    case DivergenceKind::kIgnoredInput:
      f.behaviour = "reads_ignored";
      break;
    case DivergenceKind::kCrash:
    case DivergenceKind::kTimeout:
      f.behaviour = "stage:?";
      break;
    default:
      f.behaviour = "returns";
      break;
  }
  return f;
}

std::vector<FindingKey> Findings(const Program& p, const Expectation& contract,
                                 const std::vector<PathResult>& results, const Verdict& v) {
  std::vector<FindingKey> out;
  const Folds folds = FoldTargets(contract, v, results);
  const std::vector<size_t>& target = folds.target;
  std::vector<std::string> signatures(v.divergences.size());
  for (size_t i = 0; i < v.divergences.size(); ++i)
    if (target[i] == i)
      signatures[i] = RootCauseSignature(p, contract, FindingFacts(contract, results, v, i));
  auto add_also = [&](FindingKey& k, const Divergence& d) {
    std::string path = d.blamed.empty() ? OtherPath(d) : d.blamed;
    if (path != v.divergences[k.divergence].blamed &&
        std::find(k.also.begin(), k.also.end(), path) == k.also.end())
      k.also.push_back(path);
  };
  std::vector<size_t> finding_of(v.divergences.size(), SIZE_MAX);
  for (size_t i = 0; i < v.divergences.size(); ++i) {
    if (target[i] != i) continue;
    auto same = std::find_if(out.begin(), out.end(),
                             [&](const FindingKey& k) { return k.signature == signatures[i]; });
    if (same != out.end()) {
      finding_of[i] = static_cast<size_t>(same - out.begin());
      add_also(*same, v.divergences[i]);
      continue;
    }
    finding_of[i] = out.size();
    out.push_back({i, signatures[i], {}});
  }
  // The lead of a finding is its lowest ladder stage: its headline and repro name where it starts.
  for (auto& k : out) {
    const RootCauseFacts f = FindingFacts(contract, results, v, k.divergence);
    if (f.path == v.divergences[k.divergence].blamed) continue;
    for (size_t i = 0; i < v.divergences.size(); ++i)
      if (finding_of[i] != SIZE_MAX && out[finding_of[i]].signature == k.signature &&
          v.divergences[i].blamed == f.path) {
        size_t old = k.divergence;
        k.divergence = i;
        add_also(k, v.divergences[old]);
        k.also.erase(std::remove(k.also.begin(), k.also.end(), f.path), k.also.end());
        break;
      }
  }
  // The folded paths that show the finding's fault too are named (FoldTargets).
  for (size_t i = 0; i < v.divergences.size(); ++i)
    if (target[i] != i && finding_of[target[i]] != SIZE_MAX && folds.named[i])
      add_also(out[finding_of[target[i]]], v.divergences[i]);
  return out;
}

}  // namespace mmdiff
