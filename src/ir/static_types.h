// Static types: the shape and dtype of every value of a program as far as they follow from the
// inputs, without running anything. Tolerates programs that are not (yet) verified.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "src/ir/program.h"

namespace mmdiff {

// The dtype of a node's result from its arguments' dtypes, when eager accepts it: cast and softmax
// with a dtype give that dtype; add promotes (nullopt where torch gives a dtype mmdiff does not
// model: int8 + uint8); mul by a Python float gives float32 (the default dtype) for integer and
// bool tensors; the addmm family keeps its first matrix's dtype; everything else keeps the first
// argument's dtype.
std::optional<DType> ResultDType(const Node& n, const std::vector<DType>& args);

struct StaticType {
  DType dtype = DType::kFloat32;  // ResultDType, or the first argument's where that has none
  std::optional<Shape>
      shape;  // absent where eager rejects the shapes (or an argument's is unknown)
};

// Values whose arguments are undefined are left out.
std::map<std::string, StaticType> InferStaticTypes(const Program& p);

}  // namespace mmdiff
