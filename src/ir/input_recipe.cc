// Input recipe values.
#include "src/ir/input_recipe.h"

#include "src/support/rng.h"

namespace mmdiff {

std::vector<double> RecipeValues(const InputRecipe& r, size_t index, int64_t numel) {
  // Mirrored by _mmdiff_values() in python_emitter.cc: keep the two in step.
  uint64_t base = SplitMix64(r.seed ^ (static_cast<uint64_t>(index) * 0xD1B54A32D192ED03ULL));
  std::vector<double> v(static_cast<size_t>(numel));
  for (int64_t j = 0; j < numel; ++j) {
    uint64_t u = SplitMix64(base + static_cast<uint64_t>(j));
    v[static_cast<size_t>(j)] = static_cast<double>(static_cast<int64_t>((u >> 11) % 65) - 32) / 16.0;
  }
  return v;
}

nlohmann::json RecipeToJson(const InputRecipe& r) { return {{"kind", r.kind}, {"seed", r.seed}}; }

Result<InputRecipe> RecipeFromJson(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Error("input recipe must be an object");
  InputRecipe r;
  if (!j.contains("kind") || !j["kind"].is_string() || j["kind"] != "grid16")
    return Status::Error("input recipe: \"kind\" must be \"grid16\"");
  if (!j.contains("seed") || !j["seed"].is_number_unsigned())
    return Status::Error("input recipe: \"seed\" must be a non-negative integer");
  r.seed = j["seed"].get<uint64_t>();
  return r;
}

}  // namespace mmdiff
