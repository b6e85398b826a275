// Input variants of a program.
#include "src/gen/input_variants.h"

#include <algorithm>
#include <set>

#include "src/gen/choice_source.h"
#include "src/gen/generator.h"
#include "src/ir/python_emitter.h"
#include "src/ir/verifier.h"
#include "src/support/rng.h"

namespace mmdiff {

std::optional<Program> ResizeDimension(const Program& p, int64_t from, int64_t to) {
  Program q = p;
  bool changed = false;
  for (auto& in : q.inputs)
    for (auto& d : in.shape)
      if (d == from) {
        d = to;
        changed = true;
      }
  if (!changed || EmitFunction(q) != EmitFunction(p) || !Verify(q).ok()) return std::nullopt;
  return q;
}

namespace {

// Sizes 0 and 1 are special to torch (broadcasting, empty tensors) and to dynamo (it specialises
// on them), so only sizes >= 2 change, to a size the program does not use yet.
std::optional<Program> NewShapes(const Program& p, Rng& rng, const GenPolicy& policy,
                                 const std::function<bool(const Program&)>& keep) {
  std::set<int64_t> used, weights;
  for (const auto& in : p.inputs) {
    used.insert(in.shape.begin(), in.shape.end());
    if (IsWeight(in)) weights.insert(in.shape.begin(), in.shape.end());
  }
  std::vector<int64_t> from, to;
  // A model's weights keep their sizes, as a deployed model's do while its inputs' change.
  for (int64_t d : used)
    if (d >= 2 && !weights.count(d)) from.push_back(d);
  for (int64_t d : policy.dims)
    if (d >= 2 && !used.count(d)) to.push_back(d);
  if (from.empty() || to.empty()) return std::nullopt;
  // Each size in a random order, each to a random new size.
  for (size_t i = from.size(); i > 1; --i)
    std::swap(from[i - 1], from[rng.UniformInt(0, static_cast<int64_t>(i) - 1)]);
  for (int64_t f : from)
    if (auto q = ResizeDimension(p, f, to[rng.UniformInt(0, static_cast<int64_t>(to.size()) - 1)]))
      if (!keep || keep(*q)) return q;
  return std::nullopt;
}

}  // namespace

InputVariant MakeInputVariant(const Program& p, const InputRecipe& r, uint64_t case_seed, int v,
                              const GenPolicy& policy,
                              const std::function<bool(const Program&)>& keep) {
  if (v == 0) return {p, r, false};
  uint64_t seed =
      SplitMix64(case_seed ^ SplitMix64(0x76617269616e74ull + static_cast<uint64_t>(v)));
  InputVariant out{p, r, false};
  SeededChoices choices(seed);
  out.recipe = GenerateRecipe(choices, policy);
  // A model's weights stay what they were: only its other inputs take new values.
  if (HasWeights(p)) out.recipe = KeepWeights(out.recipe, r);
  if (v == kShapeVariant) {
    Rng rng(seed);
    if (auto q = NewShapes(p, rng, policy, keep)) {
      out.program = std::move(*q);
      out.new_shapes = true;
    }
  }
  return out;
}

}  // namespace mmdiff
