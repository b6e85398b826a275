// ReduceSession: the state of one reduction — the current program and recipe, the budget of
// predicate calls, the cache of candidates already asked about, and the simplicity measure that
// every kept step must improve.
#pragma once

#include <array>
#include <cstdint>
#include <set>
#include <string>

#include "src/reduce/reduce.h"

namespace mmdiff {

// How complex a case is, one count per aspect: nodes, inputs, input elements, sum of input dims,
// dtype ranks (see DTypeRank), values off the cpu, transposed layouts, non-default attributes,
// the recipe's complexity, inputs that require grad, autocast (regions plus nodes inside one), and
// a model's weights. A kept step must lower at least one count and raise none, so that a reduction
// always terminates.
using Complexity = std::array<int64_t, 12>;
Complexity MeasureComplexity(const Program& p, const InputRecipe& r);
// True when a is no larger than b in every count and smaller in one.
bool SimplerThan(const Complexity& a, const Complexity& b);

// The order dtypes are simplified in, simplest first: float32 (torch's default dtype, what most bug
// reports use), float64, float16, bfloat16, then the integers (int64, torch's default integer
// first) and bool.
int DTypeRank(DType d);
// Recipe kinds, simplest first: exact (small integers and powers of two, whose products and short
// sums every correct path computes bit for bit), grid16, uniform, normal.
int RecipeKindRank(const std::string& kind);

class ReduceSession {
 public:
  ReduceSession(const Program& p, const InputRecipe& r, const ReducePredicate& predicate,
                const ReduceOptions& o);

  const Program& program() const { return program_; }
  const InputRecipe& recipe() const { return recipe_; }
  bool exhausted() const { return result_.predicate_calls >= options_.max_predicate_calls; }

  // Offers a candidate (already tidied by the caller). It is asked about only when it passes the
  // verifier, has at least one node, is simpler than the current case, has not been asked about
  // before, and budget remains. Returns true when the predicate said yes; the candidate is then the
  // current case.
  bool Try(const Program& candidate, const InputRecipe& recipe, const std::string& what);
  bool Try(const Program& candidate, const std::string& what) {
    return Try(candidate, recipe_, what);
  }
  // Counts a candidate that a pass rejected by a cheap check of its own.
  void SkipInvalid() { ++result_.skipped_invalid; }

  ReduceResult Finish();

 private:
  Program program_;
  InputRecipe recipe_;
  const ReducePredicate& predicate_;
  const ReduceOptions& options_;
  std::set<std::string> asked_;  // serialised candidates already tried
  ReduceResult result_;
};

}  // namespace mmdiff
