// Input recipe values.
#include "src/ir/input_recipe.h"

#include <algorithm>
#include <cmath>

#include "src/support/json_guard.h"
#include "src/support/rng.h"

namespace mmdiff {

namespace {

// Mirrored by _mmdiff_values() in src/ir/python/repro_inputs.py: keep the two in step.
double Unit(uint64_t x) { return static_cast<double>(x >> 11) * 0x1p-53; }

double SpecialValue(DType d, uint64_t pick, uint64_t sign_bits) {
  double sign = (sign_bits >> 63) ? -1.0 : 1.0;
  switch (pick % 6) {
    case 0:
      return NAN;
    case 1:
      return INFINITY;
    case 2:
      return -INFINITY;
    case 3:
      return -0.0;
    case 4:
      return sign * MinSubnormal(d) * static_cast<double>(1 + 2 * (sign_bits % 4));
    default:
      return sign * MaxFinite(d) * ((sign_bits & 16) ? 0.5 : 1.0);
  }
}

}  // namespace

const std::vector<std::string>& RecipeKinds() {
  static const std::vector<std::string> kKinds = {"grid16", "exact", "uniform", "normal"};
  return kKinds;
}

std::vector<double> RecipeValues(const InputRecipe& r, size_t index, int64_t numel, DType dtype) {
  uint64_t base = SplitMix64(r.seed ^ (static_cast<uint64_t>(index) * 0xD1B54A32D192ED03ULL));
  std::vector<double> v(static_cast<size_t>(numel));
  if (std::binary_search(r.zeroed.begin(), r.zeroed.end(), static_cast<int>(index))) return v;
  enum class Kind { kGrid16, kExact, kUniform, kNormal };
  const Kind kind = r.kind == "grid16"    ? Kind::kGrid16
                    : r.kind == "exact"   ? Kind::kExact
                    : r.kind == "uniform" ? Kind::kUniform
                                          : Kind::kNormal;
  const bool floating = IsFloating(dtype);
  for (int64_t j = 0; j < numel; ++j) {
    double& out = v[static_cast<size_t>(j)];
    // Up to 16 draws per element: draw(k) = SplitMix64(base + 16 j + k).
    auto draw = [&](uint64_t k) { return SplitMix64(base + 16 * static_cast<uint64_t>(j) + k); };
    if (!floating) {  // every kind: a negative value would not survive .to(uint8)
      uint64_t x = draw(3) >> 11;
      out = dtype == DType::kBool    ? static_cast<double>(x % 2)
            : dtype == DType::kUInt8 ? static_cast<double>(x % 17)
                                     : static_cast<double>(static_cast<int64_t>(x % 17) - 8);
      continue;
    }
    if (kind == Kind::kGrid16) {
      uint64_t u = SplitMix64(base + static_cast<uint64_t>(j));
      out = static_cast<double>(static_cast<int64_t>((u >> 11) % 65) - 32) / 16.0;
      continue;
    }
    if (r.special > 0 && Unit(draw(0)) < r.special) {
      out = SpecialValue(dtype, draw(1) >> 11, draw(2));
      continue;
    }
    if (kind == Kind::kExact) {
      uint64_t x = draw(4) >> 11;
      if (x % 2 == 0) {
        out = static_cast<double>(static_cast<int64_t>((x >> 1) % 9) - 4);
      } else {
        double sign = (x >> 1) % 2 ? -1.0 : 1.0;
        out = sign * std::ldexp(1.0, static_cast<int>((x >> 2) % 9) - 4);
      }
    } else if (kind == Kind::kUniform) {
      out = r.lo + (r.hi - r.lo) * Unit(draw(4));
    } else {  // normal
      double s = 0;
      for (uint64_t k = 0; k < 12; ++k) s += Unit(draw(4 + k));
      out = r.mean + r.std * (s - 6.0);
    }
  }
  return v;
}

InputRecipe WeightRecipe(const InputRecipe& r) {
  if (r.weights.empty()) return r;
  InputRecipe w = r.weights.front();
  w.zeroed = r.zeroed;
  w.weights.clear();
  return w;
}

std::vector<double> InputValues(const Program& p, const InputRecipe& r, size_t index) {
  const InputSpec& in = p.inputs[index];
  return RecipeValues(IsWeight(in) ? WeightRecipe(r) : r, index, Numel(in.shape), in.dtype);
}

InputRecipe KeepWeights(InputRecipe next, const InputRecipe& first) {
  InputRecipe w = WeightRecipe(first);
  w.zeroed.clear();
  next.weights = {w};
  return next;
}

nlohmann::json RecipeToJson(const InputRecipe& r) {
  nlohmann::json j = {{"kind", r.kind}, {"seed", r.seed}};
  if (r.kind == "uniform") {
    j["lo"] = r.lo;
    j["hi"] = r.hi;
  }
  if (r.kind == "normal") {
    j["mean"] = r.mean;
    j["std"] = r.std;
  }
  if (r.kind != "grid16") j["special"] = r.special;
  if (!r.zeroed.empty()) j["zeroed"] = r.zeroed;
  if (!r.weights.empty()) j["weights"] = RecipeToJson(r.weights.front());
  return j;
}

namespace {
Result<InputRecipe> RecipeFromJsonUnguarded(const nlohmann::json& j) {
  if (!j.is_object()) return Status::Error("input recipe must be an object");
  InputRecipe r;
  const auto& kinds = RecipeKinds();
  if (!j.contains("kind") || !j["kind"].is_string() ||
      std::find(kinds.begin(), kinds.end(), j["kind"].get<std::string>()) == kinds.end())
    return Status::Error("input recipe: \"kind\" must be one of grid16, exact, uniform, normal");
  r.kind = j["kind"].get<std::string>();
  if (!j.contains("seed") || !j["seed"].is_number_unsigned())
    return Status::Error("input recipe: \"seed\" must be a non-negative integer");
  r.seed = j["seed"].get<uint64_t>();
  for (const auto& [key, field] :
       std::vector<std::pair<std::string, double*>>{{"lo", &r.lo},
                                                    {"hi", &r.hi},
                                                    {"mean", &r.mean},
                                                    {"std", &r.std},
                                                    {"special", &r.special}}) {
    if (!j.contains(key)) continue;
    if (!j[key].is_number() || !std::isfinite(j[key].get<double>()))
      return Status::Error("input recipe: \"" + key + "\" must be a finite number");
    *field = j[key].get<double>();
  }
  if (!(r.lo <= r.hi)) return Status::Error("input recipe: \"lo\" must not exceed \"hi\"");
  if (!(r.special >= 0 && r.special <= 1))
    return Status::Error("input recipe: \"special\" must be in [0, 1]");
  if (!(r.std >= 0)) return Status::Error("input recipe: \"std\" must be non-negative");
  if (j.contains("zeroed")) {
    const auto& z = j["zeroed"];
    if (!z.is_array() || z.size() > static_cast<size_t>(kMaxZeroed))
      return Status::Error("input recipe: \"zeroed\" must be an array of input indices");
    for (const auto& e : z) {
      if (!e.is_number_integer() || e.get<int64_t>() < 0 || e.get<int64_t>() >= kMaxZeroed)
        return Status::Error("input recipe: \"zeroed\" holds input indices below " +
                             std::to_string(kMaxZeroed));
      int i = static_cast<int>(e.get<int64_t>());
      if (!r.zeroed.empty() && i <= r.zeroed.back())
        return Status::Error("input recipe: \"zeroed\" must be strictly ascending");
      r.zeroed.push_back(i);
    }
  }
  if (j.contains("weights")) {
    const auto& w = j["weights"];
    if (!w.is_object() || w.contains("weights") || w.contains("zeroed"))
      return Status::Error(
          "input recipe: \"weights\" must be a recipe of its own, without \"weights\" or "
          "\"zeroed\"");
    Result<InputRecipe> weights = RecipeFromJsonUnguarded(w);
    if (!weights.ok()) return Status::Error("weights: " + weights.status().message());
    r.weights = {weights.value()};
  }
  return r;
}
}  // namespace

Result<InputRecipe> RecipeFromJson(const nlohmann::json& j) {
  return GuardJson("inputs", [&] { return RecipeFromJsonUnguarded(j); });
}

}  // namespace mmdiff
