// InputRecipe: how a program's input values are made — a pure function of (recipe, input, element).
// It is part of every report, and the Python emitter writes its exact twin into repro.py.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "src/support/status.h"

namespace mmdiff {

// kind "grid16": each element is k/16 with k uniform in [-32, 32]. Such values are exact in every
// floating dtype, so all paths start from identical inputs and small products are exact.
struct InputRecipe {
  std::string kind = "grid16";
  uint64_t seed = 0;
  bool operator==(const InputRecipe&) const = default;
};

// Logical (row-major) values of input number `index` with `numel` elements.
std::vector<double> RecipeValues(const InputRecipe& r, size_t index, int64_t numel);
nlohmann::json RecipeToJson(const InputRecipe& r);
Result<InputRecipe> RecipeFromJson(const nlohmann::json& j);

}  // namespace mmdiff
