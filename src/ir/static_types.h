// Static types: the shape and dtype of every value of a program as far as they follow from the
// inputs, without running anything. Tolerates programs that are not (yet) verified.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "src/ir/program.h"

namespace mmdiff {

struct StaticType {
  DType dtype = DType::kFloat32;  // cast: its target; add: the promoted type; else the first argument's
  std::optional<Shape> shape;     // absent where eager rejects the shapes (or an argument's is unknown)
};

// Values whose arguments are undefined are left out.
std::map<std::string, StaticType> InferStaticTypes(const Program& p);

}  // namespace mmdiff
