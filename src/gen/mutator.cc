// Program mutation and crossover.
#include "src/gen/mutator.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <set>

#include "src/gen/generator.h"
#include "src/ir/static_types.h"
#include "src/ir/verifier.h"

namespace mmdiff {

namespace {

const std::vector<DType> kFloats = {DType::kFloat64, DType::kFloat32, DType::kFloat16,
                                    DType::kBFloat16};

std::set<std::string> Names(const Program& p) {
  std::set<std::string> s;
  for (const auto& i : p.inputs) s.insert(i.name);
  for (const auto& n : p.nodes) s.insert(n.name);
  return s;
}

std::string FreshName(const std::set<std::string>& taken, const std::string& prefix) {
  for (int i = 0;; ++i) {
    std::string name = prefix + std::to_string(i);
    if (!taken.count(name)) return name;
  }
}

// Same known shape and same dtype: one value may stand in for the other.
bool SameType(const StaticType& a, const StaticType& b) {
  return a.shape && a.shape == b.shape && a.dtype == b.dtype;
}

void Rename(std::vector<std::string>& refs, const std::string& from, const std::string& to) {
  for (auto& r : refs)
    if (r == from) r = to;
}

void RenameEverywhere(Program& p, const std::string& from, const std::string& to) {
  for (auto& n : p.nodes) Rename(n.args, from, to);
  Rename(p.outputs, from, to);
}

// Fixed: an input appended by add_node or crossover is wired to an earlier value of its type with a
// fair coin, so that appended code is as often connected as independent.
constexpr double kConnect = 0.5;

// Another dtype: mostly a float one (policy.p_mutate_float), else any (bool a rare violation).
DType OtherDType(ChoiceSource& c, DType not_this, const GenPolicy& policy) {
  std::vector<DType> others;
  for (DType d : c.Coin(policy.p_mutate_float) ? kFloats : AllDTypes())
    if (d != not_this) others.push_back(d);
  return c.Pick(others);
}

using Attempt =
    std::function<std::optional<std::string>(Program&, ChoiceSource&, const GenPolicy&)>;

std::optional<std::string> ChangeDType(Program& p, ChoiceSource& c, const GenPolicy& policy) {
  if (p.inputs.empty()) return std::nullopt;
  InputSpec& in =
      p.inputs[static_cast<size_t>(c.Int(0, static_cast<int64_t>(p.inputs.size()) - 1))];
  DType before = in.dtype;
  in.dtype = OtherDType(c, before, policy);
  return in.name + ": " + std::string(DTypeName(before)) + " -> " +
         std::string(DTypeName(in.dtype));
}

std::optional<std::string> InsertCast(Program& p, ChoiceSource& c, const GenPolicy& policy) {
  std::vector<size_t> targets;
  for (size_t i = 0; i < p.nodes.size(); ++i)
    if (p.nodes[i].op != OpKind::kCast) targets.push_back(i);
  if (targets.empty() || p.nodes.size() >= kMaxNodes) return std::nullopt;
  size_t at = c.Pick(targets);
  Node& user = p.nodes[at];
  size_t arg = static_cast<size_t>(c.Int(0, static_cast<int64_t>(user.args.size()) - 1));
  Node cast{FreshName(Names(p), "m"),
            OpKind::kCast,
            {user.args[arg]},
            c.Coin(policy.p_mutate_float) ? c.Pick(kFloats) : c.Pick(AllDTypes())};
  user.args[arg] = cast.name;
  std::string detail = cast.name + " = " + cast.args[0] + ".to(" +
                       std::string(DTypeName(*cast.dtype)) + ") before " + user.name;
  p.nodes.insert(p.nodes.begin() + static_cast<long>(at), cast);
  return detail;
}

std::optional<std::string> RemoveCast(Program& p, ChoiceSource& c, const GenPolicy&) {
  std::vector<size_t> casts;
  for (size_t i = 0; i < p.nodes.size(); ++i)
    if (p.nodes[i].op == OpKind::kCast && p.nodes.size() > 1) casts.push_back(i);
  if (casts.empty()) return std::nullopt;
  size_t at = c.Pick(casts);
  Node cast = p.nodes[at];
  p.nodes.erase(p.nodes.begin() + static_cast<long>(at));
  RenameEverywhere(p, cast.name, cast.args[0]);
  return "bypassed " + cast.name;
}

std::optional<std::string> FlipLayout(Program& p, ChoiceSource& c, const GenPolicy&) {
  std::vector<size_t> candidates;
  for (size_t i = 0; i < p.inputs.size(); ++i)
    if (p.inputs[i].shape.size() >= 2) candidates.push_back(i);
  if (candidates.empty()) return std::nullopt;
  InputSpec& in = p.inputs[c.Pick(candidates)];
  in.layout = in.layout == Layout::kContiguous ? Layout::kTransposed : Layout::kContiguous;
  return in.name + " -> " + std::string(LayoutName(in.layout));
}

std::optional<std::string> PerturbDim(Program& p, ChoiceSource& c, const GenPolicy& policy) {
  std::set<int64_t> dims;
  for (const auto& in : p.inputs) dims.insert(in.shape.begin(), in.shape.end());
  if (dims.empty()) return std::nullopt;
  int64_t from = c.Pick(std::vector<int64_t>(dims.begin(), dims.end()));
  int64_t to = c.Pick(policy.dims);
  if (to == from) to = from + 1;
  for (auto& in : p.inputs)
    for (auto& d : in.shape)
      if (d == from) d = to;
  return "size " + std::to_string(from) + " -> " + std::to_string(to) + " everywhere";
}

std::optional<std::string> SwapOp(Program& p, ChoiceSource& c, const GenPolicy&) {
  auto types = InferStaticTypes(p);
  auto rank = [&](const std::string& v) -> int {
    auto it = types.find(v);
    return it == types.end() || !it->second.shape ? -1 : static_cast<int>(it->second.shape->size());
  };
  std::vector<std::pair<size_t, OpKind>> swaps;
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    const Node& n = p.nodes[i];
    if (n.op == OpKind::kMm) swaps.push_back({i, OpKind::kMatmul});
    if (n.op == OpKind::kBmm) swaps.push_back({i, OpKind::kMatmul});
    if (n.op == OpKind::kMatmul && rank(n.args[0]) == 2 && rank(n.args[1]) == 2)
      swaps.push_back({i, OpKind::kMm});
    if (n.op == OpKind::kMatmul && rank(n.args[0]) == 3 && rank(n.args[1]) == 3 &&
        (*types.at(n.args[0]).shape)[0] == (*types.at(n.args[1]).shape)[0])
      swaps.push_back({i, OpKind::kBmm});
  }
  // mm(a, b) / matmul(a, b) with b 2-D is linear(a, b.T); linear(x, w) without bias with x and w
  // 2-D is mm(x, w.T). The transpose is a node of its own in front of the swapped op.
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    const Node& n = p.nodes[i];
    if ((n.op == OpKind::kMm || n.op == OpKind::kMatmul) && rank(n.args[0]) >= 1 &&
        rank(n.args[1]) == 2)
      swaps.push_back({i, OpKind::kLinear});
    if (n.op == OpKind::kLinear && n.args.size() == 2 && rank(n.args[0]) == 2 &&
        rank(n.args[1]) == 2)
      swaps.push_back({i, OpKind::kMm});
  }
  if (swaps.empty() || p.nodes.size() >= kMaxNodes) return std::nullopt;
  auto [at, to] = c.Pick(swaps);
  std::string detail = p.nodes[at].name + ": " + std::string(GetOpSpec(p.nodes[at].op).name) +
                       " -> " + std::string(GetOpSpec(to).name);
  if ((to == OpKind::kLinear) != (p.nodes[at].op == OpKind::kLinear)) {
    Node t{FreshName(Names(p), "t"), OpKind::kTranspose, {p.nodes[at].args[1]}};
    t.ints = {0, 1};
    p.nodes[at].args[1] = t.name;
    detail += " with " + t.name + " = " + t.args[0] + ".transpose(0, 1)";
    p.nodes.insert(p.nodes.begin() + static_cast<long>(at), t);
    ++at;
  }
  p.nodes[at].op = to;
  return detail;
}

std::optional<std::string> MoveDevice(Program& p, ChoiceSource& c, const GenPolicy&) {
  if (p.nodes.empty() || p.nodes.size() >= kMaxNodes) return std::nullopt;
  size_t at = static_cast<size_t>(c.Int(0, static_cast<int64_t>(p.nodes.size()) - 1));
  Node& user = p.nodes[at];
  size_t arg = static_cast<size_t>(c.Int(0, static_cast<int64_t>(user.args.size()) - 1));
  static const std::vector<Device> kDevices = {Device::kCpu, Device::kMeta, Device::kCuda};
  Node move{FreshName(Names(p), "d"), OpKind::kToDevice, {user.args[arg]}};
  move.device = c.Pick(kDevices);
  user.args[arg] = move.name;
  std::string detail = move.name + " = " + move.args[0] + ".to(" +
                       std::string(DeviceName(*move.device)) + ") before " + user.name;
  p.nodes.insert(p.nodes.begin() + static_cast<long>(at), move);
  return detail;
}

std::optional<std::string> Autocast(Program& p, ChoiceSource& c, const GenPolicy& policy) {
  if (p.nodes.empty()) return std::nullopt;
  Node& n = p.nodes[static_cast<size_t>(c.Int(0, static_cast<int64_t>(p.nodes.size()) - 1))];
  if (n.autocast) {
    n.autocast = p.autocast[*n.autocast].parent;
    return n.name + " one autocast region out";
  }
  if (p.autocast.size() >= kMaxAutocastRegions) return std::nullopt;
  AutocastRegion r;
  r.device =
      !p.inputs.empty() && p.inputs[0].device == Device::kCuda ? Device::kCuda : Device::kCpu;
  r.dtype = c.Coin(policy.p_autocast_bfloat16) ? DType::kBFloat16 : DType::kFloat16;
  n.autocast = p.autocast.size();
  p.autocast.push_back(r);
  return n.name + " into autocast(" + std::string(DeviceName(r.device)) + ", " +
         std::string(DTypeName(r.dtype)) + ")";
}

// Appends the program `extra` to `p` under fresh names; returns the renamed extra inputs in order.
std::vector<std::string> Append(Program& p, Program extra) {
  std::set<std::string> taken = Names(p);
  std::vector<std::string> new_inputs;
  for (auto& in : extra.inputs) {
    std::string fresh = FreshName(taken, "y");
    taken.insert(fresh);
    RenameEverywhere(extra, in.name, fresh);
    in.name = fresh;
    new_inputs.push_back(fresh);
  }
  for (auto& n : extra.nodes) {
    std::string fresh = FreshName(taken, "w");
    taken.insert(fresh);
    RenameEverywhere(extra, n.name, fresh);
    n.name = fresh;
  }
  // extra's autocast regions follow p's, renumbered (or are dropped where they would not fit).
  const size_t offset = p.autocast.size();
  const bool fits = offset + extra.autocast.size() <= kMaxAutocastRegions;
  for (auto& r : extra.autocast) {
    if (r.parent) *r.parent += offset;
    if (fits) p.autocast.push_back(r);
  }
  for (auto& n : extra.nodes) {
    if (n.autocast && fits)
      *n.autocast += offset;
    else
      n.autocast.reset();
  }
  p.inputs.insert(p.inputs.end(), extra.inputs.begin(), extra.inputs.end());
  p.nodes.insert(p.nodes.end(), extra.nodes.begin(), extra.nodes.end());
  p.outputs.insert(p.outputs.end(), extra.outputs.begin(), extra.outputs.end());
  return new_inputs;
}

// Replaces some of `candidates` (inputs of p) by values named in `earlier` (defined before any user
// of the candidates) that have the same shape and dtype.
int Connect(Program& p, const std::vector<std::string>& candidates,
            const std::set<std::string>& earlier, ChoiceSource& c, double probability) {
  auto types = InferStaticTypes(p);
  int connected = 0;
  for (const auto& in_name : candidates) {
    if (!c.Coin(probability)) continue;
    const StaticType& want = types.at(in_name);
    std::vector<std::string> matches;
    for (const auto& [name, t] : types)
      if (earlier.count(name) && SameType(t, want)) matches.push_back(name);
    if (matches.empty()) continue;
    RenameEverywhere(p, in_name, c.Pick(matches));
    ++connected;
  }
  return connected;
}

std::optional<std::string> AddNode(Program& p, ChoiceSource& c, const GenPolicy& policy) {
  if (p.nodes.size() + 4 > kMaxNodes) return std::nullopt;
  GenPolicy one = policy;
  one.max_ops = 1;
  Program extra = Generate(c, one);
  std::set<std::string> earlier = Names(p);
  std::vector<std::string> fresh_inputs = Append(p, extra);
  int connected = Connect(p, fresh_inputs, earlier, c, kConnect);
  return "appended " + extra.Summary() + " (" + std::to_string(connected) + " input(s) connected)";
}

std::optional<std::string> RemoveNode(Program& p, ChoiceSource& c, const GenPolicy&) {
  if (p.nodes.size() < 2) return std::nullopt;
  auto types = InferStaticTypes(p);
  size_t at = static_cast<size_t>(c.Int(0, static_cast<int64_t>(p.nodes.size()) - 1));
  Node gone = p.nodes[at];
  p.nodes.erase(p.nodes.begin() + static_cast<long>(at));
  std::erase(p.outputs, gone.name);
  // Rewire users to an earlier value of the same shape and dtype when there is one.
  std::string replacement;
  if (auto it = types.find(gone.name); it != types.end()) {
    for (const auto& in : p.inputs)
      if (SameType(types.at(in.name), it->second)) replacement = in.name;
    for (size_t i = 0; i < at && i < p.nodes.size(); ++i) {
      auto t = types.find(p.nodes[i].name);
      if (t != types.end() && SameType(t->second, it->second)) replacement = p.nodes[i].name;
    }
  }
  if (!replacement.empty()) RenameEverywhere(p, gone.name, replacement);
  return "removed " + gone.name +
         (replacement.empty() ? "" : " (uses now read " + replacement + ")");
}

// The spellings Respell switches between, for node i of p (see MutationKind::kRespell).
std::vector<std::function<std::string(Program&)>> Respellings(
    const Program& p, size_t i, const std::map<std::string, StaticType>& types) {
  std::vector<std::function<std::string(Program&)>> out;
  const Node& n = p.nodes[i];
  const std::string name = n.name;
  auto shape = [&](const std::string& v) -> std::optional<Shape> {
    auto it = types.find(v);
    return it == types.end() ? std::nullopt : it->second.shape;
  };
  if ((n.op == OpKind::kMulScalar || n.op == OpKind::kDivScalar) && n.alpha != 0) {
    out.push_back([i, name](Program& q) {  // x * s <-> x / (1 / s)
      Node& m = q.nodes[i];
      m.op = m.op == OpKind::kMulScalar ? OpKind::kDivScalar : OpKind::kMulScalar;
      m.alpha = 1.0 / m.alpha;
      return name + ": as " + std::string(GetOpSpec(m.op).name);
    });
    out.push_back([i, name](Program& q) {  // the scale as torch.full([], s, like x)
      Node full{FreshName(Names(q), "s"), OpKind::kFull, {q.nodes[i].args[0]}};
      full.alpha = q.nodes[i].alpha;
      Node& m = q.nodes[i];
      m.op = m.op == OpKind::kMulScalar ? OpKind::kMul : OpKind::kDiv;
      m.alpha = 1.0;
      m.args.push_back(full.name);
      q.nodes.insert(q.nodes.begin() + static_cast<long>(i), full);
      return name + ": its scale as a 0-d tensor";
    });
  }
  if (n.op == OpKind::kMul || n.op == OpKind::kDiv) {
    const Node* s = p.FindNode(n.args[1]);
    if (s && s->op == OpKind::kFull && s->ints.empty() && !s->dtype && std::isfinite(s->alpha) &&
        s->alpha != 0)
      out.push_back([i, name, v = s->alpha](Program& q) {  // back to a Python float
        Node& m = q.nodes[i];
        m.op = m.op == OpKind::kMul ? OpKind::kMulScalar : OpKind::kDivScalar;
        m.alpha = v;
        m.args.resize(1);
        return name + ": its scale as a Python float";
      });
  }
  if (n.op == OpKind::kMaskedFill) {
    const DType d = types.count(name) ? types.at(name).dtype : DType::kFloat32;
    for (double v :
         {-std::numeric_limits<double>::infinity(), IsFloating(d) ? -MaxFinite(d) : 0.0, -1e4, 0.0})
      if (v != n.alpha)
        out.push_back([i, name, v](Program& q) {
          q.nodes[i].alpha = v;
          return name + ": fills " + std::to_string(v);
        });
  }
  const std::optional<Shape> in = n.args.empty() ? std::nullopt : shape(n.args[0]);
  const int64_t rank = in ? static_cast<int64_t>(in->size()) : -1;
  auto last_two = [&](const std::vector<int64_t>& d) {
    std::vector<int64_t> swap;
    for (int64_t k = 0; k < rank; ++k) swap.push_back(k);
    if (rank >= 2) std::swap(swap[rank - 2], swap[rank - 1]);
    return d == swap;
  };
  if (n.op == OpKind::kTranspose && rank >= 2 &&
      ((n.ints == std::vector<int64_t>{rank - 2, rank - 1}) ||
       (n.ints == std::vector<int64_t>{-2, -1})))
    out.push_back([i, name, rank](Program& q) {
      Node& m = q.nodes[i];
      m.op = OpKind::kPermute;
      m.ints.clear();
      for (int64_t k = 0; k < rank; ++k) m.ints.push_back(k);
      std::swap(m.ints[rank - 2], m.ints[rank - 1]);
      return name + ": a permute";
    });
  if (n.op == OpKind::kPermute && rank >= 2 && last_two(n.ints))
    out.push_back([i, name](Program& q) {
      q.nodes[i].op = OpKind::kTranspose;
      q.nodes[i].ints = {-2, -1};
      return name + ": a transpose";
    });
  return out;
}

std::optional<std::string> Respell(Program& p, ChoiceSource& c, const GenPolicy&) {
  if (p.nodes.size() >= kMaxNodes) return std::nullopt;
  const auto types = InferStaticTypes(p);
  std::vector<std::function<std::string(Program&)>> all;
  for (size_t i = 0; i < p.nodes.size(); ++i)
    for (auto& r : Respellings(p, i, types)) all.push_back(std::move(r));
  if (all.empty()) return std::nullopt;
  return c.Pick(all)(p);
}

// A weight operand (WeightOperandInputs) into one of the model's weights (a buffer with
// p_buffer where it does not train), or a weight back into an argument of its forward.
std::optional<std::string> ToggleWeight(Program& p, ChoiceSource& c, const GenPolicy& policy) {
  std::vector<size_t> can = WeightOperandInputs(p);
  for (size_t i = 0; i < p.inputs.size(); ++i)
    if (IsWeight(p.inputs[i]) && std::find(can.begin(), can.end(), i) == can.end())
      can.push_back(i);
  if (can.empty()) return std::nullopt;
  InputSpec& in = p.inputs[c.Pick(can)];
  const InputRole before = in.role;
  in.role = IsWeight(in)                                   ? InputRole::kInput
            : !in.requires_grad && c.Coin(policy.p_buffer) ? InputRole::kBuffer
                                                           : InputRole::kParameter;
  return in.name + ": " + std::string(InputRoleName(before)) + " -> " +
         std::string(InputRoleName(in.role));
}

}  // namespace

std::string_view MutationName(MutationKind k) {
  static constexpr std::array<std::string_view, 12> kNames = {
      "change_dtype", "insert_cast", "remove_cast", "flip_layout", "perturb_dim", "swap_op",
      "add_node",     "remove_node", "move_device", "autocast",    "respell",     "weight"};
  return kNames[static_cast<size_t>(k)];
}

Program Legalize(Program p) {
  std::set<std::string> defined;
  for (auto& in : p.inputs) {
    if (in.shape.size() < 2) in.layout = Layout::kContiguous;
    defined.insert(in.name);
  }
  std::vector<Node> kept;
  for (const auto& n : p.nodes) {
    const OpSpec& spec = GetOpSpec(n.op);
    int nargs = static_cast<int>(n.args.size());
    bool ok = nargs >= spec.min_arity && nargs <= spec.arity && !defined.count(n.name) &&
              kept.size() < kMaxNodes;
    for (const auto& a : n.args) ok = ok && defined.count(a);
    if (!ok) continue;
    kept.push_back(n);
    defined.insert(n.name);
  }
  p.nodes = kept;
  // view's contract needs a contiguous operand (see the verifier); reshape has the same shape rule.
  for (auto& n : p.nodes) {
    if (n.op != OpKind::kView) continue;
    const InputSpec* in = p.FindInput(n.args[0]);
    const Node* src = p.FindNode(n.args[0]);
    if (!(in && in->layout == Layout::kContiguous) && !(src && src->op == OpKind::kContiguous))
      n.op = OpKind::kReshape;
  }
  std::vector<std::string> outputs;
  for (const auto& o : p.outputs)
    if (defined.count(o) && std::find(outputs.begin(), outputs.end(), o) == outputs.end())
      outputs.push_back(o);
  if (outputs.empty() && !p.nodes.empty()) outputs.push_back(p.nodes.back().name);
  p.outputs = outputs;
  // Inputs nothing reads are dropped, so that a mutated program stays minimal.
  std::set<std::string> used(p.outputs.begin(), p.outputs.end());
  for (const auto& n : p.nodes) used.insert(n.args.begin(), n.args.end());
  std::erase_if(p.inputs, [&](const InputSpec& in) { return !used.count(in.name); });
  return p;
}

Mutation Mutate(const Program& p, ChoiceSource& choices, const GenPolicy& policy) {
  static const std::array<Attempt, 12> kAttempts = {
      ChangeDType, InsertCast, RemoveCast, FlipLayout, PerturbDim, SwapOp,
      AddNode,     RemoveNode, MoveDevice, Autocast,   Respell,    ToggleWeight};
  size_t first = static_cast<size_t>(choices.Int(0, static_cast<int64_t>(kAttempts.size()) - 1));
  for (size_t k = 0; k < kAttempts.size(); ++k) {
    size_t which = (first + k) % kAttempts.size();
    Program candidate = p;
    auto detail = kAttempts[which](candidate, choices, policy);
    if (!detail) continue;
    candidate = Legalize(std::move(candidate));
    if (candidate.nodes.empty() || !Verify(candidate).ok()) continue;
    return {candidate, static_cast<MutationKind>(which), *detail};
  }
  return {p, MutationKind::kChangeDType, "no mutation applied"};
}

Program CrossOver(const Program& a, const Program& b, ChoiceSource& choices) {
  Program out = a;
  std::vector<std::string> b_inputs = Append(out, b);
  Connect(out, b_inputs, Names(a), choices, kConnect);
  out = Legalize(std::move(out));
  if (!Verify(out).ok()) return a;
  return out;
}

}  // namespace mmdiff
