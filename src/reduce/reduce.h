// Reduce: delta debugging of a program and its input recipe against an injected "is this still the
// same finding?" predicate — drop nodes, shrink dimensions, simplify dtypes, devices, layouts,
// attributes and values — until no single simplification keeps the predicate true, or the budget
// of predicate calls is spent. Deterministic: the same program, recipe and predicate answers give
// the same reduction.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "src/ir/input_recipe.h"
#include "src/ir/program.h"

namespace mmdiff {

// True when the candidate still shows the behaviour being reduced (for mmdiff: the same bucket).
// Only called on candidates that pass the verifier; never called on the original.
using ReducePredicate = std::function<bool(const Program&, const InputRecipe&)>;

struct ReduceOptions {
  int64_t max_predicate_calls = 300;  // the budget; candidates answered from the cache are free
  int max_rounds = 20;  // full rounds of every pass, stopping earlier at a fixed point
  // Called with a one-line description of every kept step (for logs); may be empty.
  std::function<void(const std::string&)> on_step;
};

struct ReduceResult {
  Program program;  // verifier-clean; the original when nothing could be removed
  InputRecipe recipe;
  int64_t predicate_calls = 0;  // the steps tried
  int64_t steps_kept = 0;       // the calls that answered true
  int64_t skipped_invalid =
      0;  // candidates the verifier (or a cheap pre-check) rejected, never asked
  bool budget_exhausted = false;
  std::vector<std::string> steps;  // what each kept step did, in order
};

// Reduces (p, r), which the caller knows to be interesting (the predicate is not asked about it).
// p must pass the verifier.
ReduceResult Reduce(const Program& p, const InputRecipe& r,
                    const ReducePredicate& still_interesting, const ReduceOptions& options = {});

}  // namespace mmdiff
