// InputRecipe: how a program's input values are made — a pure function of (recipe, input, element,
// dtype). It is part of every report, and the Python emitter writes its exact twin into repro.py:
// only correctly rounded operations (+, -, *) are used, so C++ and Python agree bit for bit.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "src/ir/dtype.h"
#include "src/ir/program.h"
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
  // Where it holds one, the program's weights (src/ir/program.h, InputRole) take their values from
  // that recipe rather than from this one: a case's later inputs and its calls before keep the
  // recipe of its first call there, so that the module's weights stay what they were while its
  // other inputs change. Its own `zeroed` and `weights` are empty; this recipe's `zeroed` applies
  // to the weights too. Empty: the weights are made like every other input.
  std::vector<InputRecipe> weights;
  bool operator==(const InputRecipe&) const = default;
};

// The recipe a weight's values come from (see InputRecipe::weights).
InputRecipe WeightRecipe(const InputRecipe& r);
// The values of `p`'s input number `index` (a weight's from WeightRecipe(r)): RecipeValues.
std::vector<double> InputValues(const Program& p, const InputRecipe& r, size_t index);
// `next` with the weights of `first`: the recipe of a later call of the case whose first call
// `first` made.
InputRecipe KeepWeights(InputRecipe next, const InputRecipe& first);

inline constexpr int kMaxZeroed = 4096;

const std::vector<std::string>& RecipeKinds();

// Logical (row-major) values of input number `index` with `numel` elements and dtype `dtype`
// (before the conversion to that dtype, which rounds to nearest even as torch's .to() does).
std::vector<double> RecipeValues(const InputRecipe& r, size_t index, int64_t numel, DType dtype);
nlohmann::json RecipeToJson(const InputRecipe& r);
Result<InputRecipe> RecipeFromJson(const nlohmann::json& j);

}  // namespace mmdiff
