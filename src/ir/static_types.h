// Static types: the shape and dtype of every value of a program as far as they follow from the
// inputs, without running anything. Tolerates programs that are not (yet) verified.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "src/ir/program.h"

namespace mmdiff {

// The dtype of a node's result from its arguments' dtypes, when eager accepts it: cast and softmax
// with a dtype give that dtype; add, mul and div promote (nullopt where torch gives a dtype mmdiff
// does not model: int8 + uint8), where an operand that is 0-d (zero_dim[i]; none when empty) takes
// part only when its category (bool, integer, floating) is higher than the other's, and true
// division of integers gives float32; where promotes x and y the same way; mul and div by a Python
// float give float32 (the default dtype) for integer and bool tensors; eq gives bool; full gives
// its dtype, else its argument's; the addmm family keeps its first matrix's dtype; everything else
// keeps the first argument's dtype.
std::optional<DType> ResultDType(const Node& n, const std::vector<DType>& args,
                                 const std::vector<bool>& zero_dim = {});
// Two operands' result dtype under torch's rules for dimensioned and 0-d tensors (see above).
std::optional<DType> PromoteOperands(DType a, bool a_zero_dim, DType b, bool b_zero_dim);

struct StaticType {
  DType dtype = DType::kFloat32;  // ResultDType, or the first argument's where that has none
  std::optional<Shape>
      shape;  // absent where eager rejects the shapes (or an argument's is unknown)
};

// Values whose arguments are undefined are left out.
std::map<std::string, StaticType> InferStaticTypes(const Program& p);

}  // namespace mmdiff
