// The addmm-family builders of ProgramBuilder: addmm, addmv, baddbmm and addbmm, each the product
// plus a bias of one of the forms that expand to it, or (a contract violation) one that does not.
#include <algorithm>
#include <vector>

#include "src/gen/program_builder.h"

namespace mmdiff {

// An addmm-family op's bias: one of `forms`, each of which expands to the product's shape `out`;
// or, with the larger of p_shape_violation and p_bias_violation, one that does not (a contract
// violation): `out` with one dim larger, 2 to 5 where the product's is 0 or 1, else one more. Where
// the product has a dim of size 1, that dim is the one made larger 3 times in 4: it is the one
// violation a two-way broadcast takes for the result's shape (pytorch#195579: on 2.11.0 Inductor's
// decomposed one-row addmm returns that sum where eager raises); a larger dim of any other size
// fails every broadcast.
Shape ProgramBuilder::BiasShape(const Shape& out, const std::vector<Shape>& forms) {
  if (!c_.Coin(std::max(p_.p_shape_violation, p_.p_bias_violation))) return c_.Pick(forms);
  std::vector<size_t> ones;
  for (size_t i = 0; i < out.size(); ++i)
    if (out[i] == 1) ones.push_back(i);
  const size_t i = !ones.empty() && c_.Coin(0.75)
                       ? c_.Pick(ones)
                       : static_cast<size_t>(c_.Int(0, static_cast<int64_t>(out.size()) - 1));
  Shape s = out;
  s[i] = s[i] <= 1 ? c_.Int(2, 5) : s[i] + 1;
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
