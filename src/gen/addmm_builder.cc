// The addmm-family builders of ProgramBuilder: addmm, addmv, baddbmm and addbmm, each the product
// plus a bias of one of the forms that expand to it, or (a contract violation) one that does not.
#include <vector>

#include "src/gen/program_builder.h"

namespace mmdiff {

// An addmm-family op's bias: one of `forms`, each of which expands to the product's shape `out`;
// or with p_shape_violation one that does not (a contract violation), `out` with one dim larger:
// 2 to 5 where the product's is 0 or 1, else one more. Where the product's size is 1, a two-way
// broadcast takes the larger bias for the result's (pytorch#195579: on 2.11.0 Inductor's addmm
// returns that sum where eager raises).
Shape ProgramBuilder::BiasShape(const Shape& out, const std::vector<Shape>& forms) {
  if (!c_.Coin(p_.p_shape_violation)) return c_.Pick(forms);
  Shape s = out;
  int64_t& d = s[static_cast<size_t>(c_.Int(0, static_cast<int64_t>(s.size()) - 1))];
  d = d <= 1 ? c_.Int(2, 5) : d + 1;
  return s;
}

void ProgramBuilder::Addmm(bool chain) {
  Value a = FirstMatrix(chain);
  Value b = Operand(a.dtype, [&] { return Shape{SecondK(a.shape[1]), Dim()}; });
  int64_t m = a.shape[0], n = b.shape[1];
  Value bias =
      Operand(a.dtype, [&] { return BiasShape({m, n}, {{n}, {m, n}, {1, n}, {m, 1}, {}}); });
  EmitScaled(OpKind::kAddmm, {bias, a, b}, {m, n}, a.dtype);
}

void ProgramBuilder::Addmv(bool chain) {
  Value a = FirstMatrix(chain);
  Value v = Operand(a.dtype, [&] { return Shape{SecondK(a.shape[1])}; });
  Value bias = Operand(a.dtype, [&] { return BiasShape({a.shape[0]}, {{a.shape[0]}, {1}, {}}); });
  EmitScaled(OpKind::kAddmv, {bias, a, v}, {a.shape[0]}, a.dtype);
}

void ProgramBuilder::Baddbmm(bool chain) {
  auto [a, b] = BatchedOperands(chain);
  int64_t nb = a.shape[0], n = a.shape[1], p = b.shape[2];
  Value bias = Operand(a.dtype, [&] {
    return BiasShape({nb, n, p}, {{nb, n, p}, {n, p}, {1, n, p}, {p}, {nb, 1, p}, {}});
  });
  EmitScaled(OpKind::kBaddbmm, {bias, a, b}, {nb, n, p}, a.dtype);
}

void ProgramBuilder::Addbmm(bool chain) {
  auto [a, b] = BatchedOperands(chain);
  int64_t n = a.shape[1], p = b.shape[2];
  Value bias = Operand(a.dtype, [&] { return BiasShape({n, p}, {{n, p}, {p}, {n, 1}, {}}); });
  EmitScaled(OpKind::kAddbmm, {bias, a, b}, {n, p}, a.dtype);
}

}  // namespace mmdiff
