// Call sequences. A compiled path keeps what it compiled for a program's function from one call to
// the next (PathTraits::keeps_state), so the calls it made before a case's own can decide what the
// case's call does: a campaign checks a program on several inputs in a row, and a new size makes
// Dynamo recompile with symbolic sizes (seen on torch 2.15.0: addmm(bias[1, N], x[0, K], w[K, N])
// with bias and w requiring grad, called once, then with other K and N: the recompiled backward
// raises NameError: name 's0' is not defined). A case records those earlier calls: the same
// function on other input sizes and values. Running a case replays them first, from a fresh start,
// on the paths that keep state.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "src/ir/input_recipe.h"
#include "src/ir/program.h"
#include "src/support/status.h"

namespace mmdiff {

// One call before the case's: the case's function on inputs of these shapes (one per input, in
// input order) made by this recipe.
struct PriorCall {
  std::vector<Shape> shapes;
  InputRecipe recipe;
  bool operator==(const PriorCall&) const = default;
};

// The most calls a case records (a campaign records the inputs a compiled path compiled for: the
// first, and the new sizes).
inline constexpr size_t kMaxPriorCalls = 16;

// The call of `p`'s function on `p`'s own inputs made by `r`.
PriorCall PriorCallOf(const Program& p, const InputRecipe& r);

// The program the call runs: `p` with the call's input shapes (its function stays p's). An error
// when they do not fit `p` (another number of inputs, a rank that differs) or when the program
// does not verify (a negative or too large size).
Result<Program> PriorCallProgram(const Program& p, const PriorCall& c);

// [{"shapes": [[...], ...], "inputs": recipe}, ...] (a report's and a regression entry's
// "calls_before").
nlohmann::json PriorCallsToJson(const std::vector<PriorCall>& calls);
// The calls a document records for the case `p` (absent: none). Errors name the call and what is
// wrong: not an array, more than kMaxPriorCalls, a malformed recipe, or shapes that do not fit `p`
// (PriorCallProgram).
Result<std::vector<PriorCall>> PriorCallsFromJson(const nlohmann::json& j, const Program& p);

// Reduction: the calls before `candidate` (a smaller case made from `original`) that stand to it as
// `before` stands to `original`: each call's sizes, as a map from the original's input sizes to the
// call's, applied to the candidate's input sizes (a size the map does not hold stays). Nullopt when
// a call's sizes are no such map of the original's (one size becomes two), or when a carried call
// does not fit the candidate (PriorCallProgram).
std::optional<std::vector<PriorCall>> CarryPriorCalls(const Program& original,
                                                      const std::vector<PriorCall>& before,
                                                      const Program& candidate);

}  // namespace mmdiff
