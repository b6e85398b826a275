// Backend: one path a program runs through (reference, eager, inductor, ...), inside a worker.
#pragma once

#include <string>

#include "src/ir/input_recipe.h"
#include "src/ir/outcome.h"
#include "src/ir/path_traits.h"
#include "src/ir/program.h"

namespace mmdiff {

// Told each stage before the backend enters it, so that a crash or hang names where it happened.
class StageReporter {
 public:
  virtual ~StageReporter() = default;
  virtual void Stage(const std::string& stage) = 0;
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;
  // "" when the path can run here; otherwise why not (shown by `mmdiff paths`).
  virtual std::string Unavailable() const { return ""; }
  // What kind of path it is (compiled, on demand, a variant, test-only, needs a GPU for cuda
  // programs): published in the worker's hello.
  virtual PathTraits traits() const = 0;
  // Runs the program on inputs made from the recipe. Never throws: errors are outcomes; an
  // unsupported outcome says why (PathResult::unsupported).
  virtual PathResult Run(const Program& p, const InputRecipe& r, StageReporter& stages) = 0;
  // Forgets what earlier calls compiled (a path with PathTraits::keeps_state): the next Run starts
  // as a fresh process would. Called for a request marked fresh, before any of its paths run.
  virtual void Forget() {}
};

}  // namespace mmdiff
