// Static type inference over a program's nodes.
#include "src/ir/static_types.h"

namespace mmdiff {

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
    st.dtype = t.at(n.args[0]).dtype;
    if (n.op == OpKind::kCast && n.dtype) st.dtype = *n.dtype;
    if (n.op == OpKind::kAdd && n.args.size() == 2)
      st.dtype = PromoteTypes(st.dtype, t.at(n.args[1]).dtype).value_or(st.dtype);
    if (shapes.size() == n.args.size()) {
      auto s = InferShape(n.op, shapes, n.ints);
      if (s.ok()) st.shape = s.value();
    }
    t[n.name] = st;
  }
  return t;
}

}  // namespace mmdiff
