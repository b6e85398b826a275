// InputRecipe: how a program's input values are made — a pure function of (recipe, input, element,
// dtype). It is part of every report, and the Python emitter writes its exact twin into repro.py:
// only correctly rounded operations (+, -, *) are used, so C++ and Python agree bit for bit.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "src/ir/dtype.h"
#include "src/support/status.h"

namespace mmdiff {

// Value classes ("kind"):
//   grid16   k/16 with k uniform in [-32, 32] (the first recipe; kept as it was for floating
//   dtypes) exact    small integers in [-4, 4] or ±2^e with e in [-4, 4]: products and short sums
//   are exact,
//            so every correct path agrees bit for bit
//   uniform  lo + (hi - lo) * u with u uniform in [0, 1) (53-bit)
//   normal   mean + std * (u_1 + ... + u_12 - 6): Irwin-Hall, a normal approximation that needs no
//            transcendental function
// For every kind, integer dtypes get integers in [-8, 8] ([0, 16] for uint8, 0/1 for bool); for
// every kind but grid16, floating elements are replaced, at rate `special`, by one of NaN, +inf,
// -inf, -0, a subnormal of the dtype, or ±(the dtype's largest finite value, or half of it). Inputs
// listed in `zeroed` hold +0 (false, for bool) instead: the rerun that checks an input the
// semantics say cannot matter (oracles/ignored_inputs.h).
struct InputRecipe {
  std::string kind = "grid16";
  uint64_t seed = 0;
  double lo = -1, hi = 1;    // uniform
  double mean = 0, std = 1;  // normal
  double special = 0;        // per-element rate of special values, in [0, 1]
  std::vector<int> zeroed;   // input indices replaced by zeros, ascending, each below kMaxZeroed
  bool operator==(const InputRecipe&) const = default;
};

inline constexpr int kMaxZeroed = 4096;

const std::vector<std::string>& RecipeKinds();

// Logical (row-major) values of input number `index` with `numel` elements and dtype `dtype`
// (before the conversion to that dtype, which rounds to nearest even as torch's .to() does).
std::vector<double> RecipeValues(const InputRecipe& r, size_t index, int64_t numel, DType dtype);
nlohmann::json RecipeToJson(const InputRecipe& r);
Result<InputRecipe> RecipeFromJson(const nlohmann::json& j);

}  // namespace mmdiff
