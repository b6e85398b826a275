// Static type inference over a program's nodes.
#include "src/ir/static_types.h"

namespace mmdiff {

namespace {
int Category(DType d) { return d == DType::kBool ? 0 : IsFloating(d) ? 2 : 1; }
}  // namespace

std::optional<DType> PromoteOperands(DType a, bool a_zero_dim, DType b, bool b_zero_dim) {
  if (a_zero_dim != b_zero_dim) {
    const DType dim = a_zero_dim ? b : a, zero = a_zero_dim ? a : b;
    if (Category(zero) <= Category(dim)) return dim;
  }
  return PromoteTypes(a, b);
}

std::optional<DType> ResultDType(const Node& n, const std::vector<DType>& args,
                                 const std::vector<bool>& zero_dim) {
  if ((n.op == OpKind::kCast || n.op == OpKind::kSoftmax || n.op == OpKind::kFull) && n.dtype)
    return *n.dtype;
  if (args.empty()) return std::nullopt;
  auto zero = [&](size_t i) { return i < zero_dim.size() && zero_dim[i]; };
  if (IsBinaryPromoting(n.op) && args.size() == 2) {
    auto d = PromoteOperands(args[0], zero(0), args[1], zero(1));
    if (d && n.op == OpKind::kDiv && !IsFloating(*d)) return DType::kFloat32;
    return d;
  }
  if (n.op == OpKind::kWhere && args.size() == 3)
    return PromoteOperands(args[1], zero(1), args[2], zero(2));
  if (n.op == OpKind::kEqScalar) return DType::kBool;
  // sigmoid and tanh of an integer or bool are float32; clamp of bool by integer bounds is int64.
  if ((n.op == OpKind::kSigmoid || n.op == OpKind::kTanh) && !IsFloating(args[0]))
    return DType::kFloat32;
  if (n.op == OpKind::kClamp && args[0] == DType::kBool) return DType::kInt64;
  if ((n.op == OpKind::kMulScalar || n.op == OpKind::kDivScalar) && !IsFloating(args[0]))
    return DType::kFloat32;
  if (GetOpSpec(n.op).has_alpha_beta && args.size() == 3)
    return args[1];  // the first matrix, not the bias
  return args[0];
}

std::map<std::string, StaticType> InferStaticTypes(const Program& p) {
  std::map<std::string, StaticType> t;
  for (const auto& in : p.inputs) t[in.name] = {in.dtype, in.shape};
  for (const auto& n : p.nodes) {
    std::vector<Shape> shapes;
    bool known = !n.args.empty();
    for (const auto& a : n.args) {
      auto it = t.find(a);
      if (it == t.end()) {
        known = false;
        break;
      }
      if (it->second.shape) shapes.push_back(*it->second.shape);
    }
    if (!known) continue;
    StaticType st;
    std::vector<DType> dtypes;
    std::vector<bool> zero_dim;
    for (const auto& a : n.args) {
      dtypes.push_back(t.at(a).dtype);
      zero_dim.push_back(t.at(a).shape && t.at(a).shape->empty());
    }
    st.dtype = ResultDType(n, dtypes, zero_dim).value_or(dtypes[0]);
    if (shapes.size() == n.args.size()) {
      auto s = InferShape(n.op, shapes, n.ints, n.enable_gqa);
      if (s.ok()) st.shape = s.value();
    }
    t[n.name] = st;
  }
  return t;
}

}  // namespace mmdiff
