// Input variants: compile once, run many. A generated program is checked on several inputs in a row
// so that each compiled path reuses the function it compiled for the first: new values (another
// value class and seed, special values in some), and for one variant new sizes of one dimension,
// which a compiled path meets through dynamic shapes (the function's source stays the same). A
// model's weights keep their values and sizes (InputRecipe::weights), as a deployed model's do.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>

#include "src/gen/policy.h"
#include "src/ir/input_recipe.h"
#include "src/ir/program.h"

namespace mmdiff {

struct InputVariant {
  Program program;
  InputRecipe recipe;
  bool new_shapes = false;  // the program's sizes changed (its function did not)
};

// The variant tried for the new-sizes variant (see MakeInputVariant).
inline constexpr int kShapeVariant = 1;

// Variant v of a case (v = 0 is the case itself). Variant kShapeVariant gives one dimension size a
// new value everywhere in the inputs' shapes, when some size can change without changing the
// emitted function (sizes written into views cannot), the program stays Verify()-clean and
// `keep` (if given) accepts it — the campaign keeps the contract's verdict, so that new sizes
// never turn a valid program into a violation or back; otherwise it gets new values like every
// other variant. Deterministic in (case_seed, v).
InputVariant MakeInputVariant(const Program& p, const InputRecipe& r, uint64_t case_seed, int v,
                              const GenPolicy& policy,
                              const std::function<bool(const Program&)>& keep = nullptr);

// The program with every input size equal to `from` set to `to`, if its function's source stays the
// same and it verifies; nullopt otherwise.
std::optional<Program> ResizeDimension(const Program& p, int64_t from, int64_t to);

}  // namespace mmdiff
