// Static type inference over a program's nodes.
#include "src/ir/static_types.h"

namespace mmdiff {

std::optional<DType> ResultDType(const Node& n, const std::vector<DType>& args) {
  if ((n.op == OpKind::kCast || n.op == OpKind::kSoftmax) && n.dtype) return *n.dtype;
  if (args.empty()) return std::nullopt;
  if (n.op == OpKind::kAdd && args.size() == 2) return PromoteTypes(args[0], args[1]);
  if (HasScalar(n.op) && !IsFloating(args[0])) return DType::kFloat32;
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
    for (const auto& a : n.args) dtypes.push_back(t.at(a).dtype);
    st.dtype = ResultDType(n, dtypes).value_or(dtypes[0]);
    if (shapes.size() == n.args.size()) {
      auto s = InferShape(n.op, shapes, n.ints, n.enable_gqa);
      if (s.ok()) st.shape = s.value();
    }
    t[n.name] = st;
  }
  return t;
}

}  // namespace mmdiff
