// Backend: one path a program runs through (reference, eager, inductor, ...), inside a worker.
#pragma once

#include <string>

#include "src/ir/input_recipe.h"
#include "src/ir/outcome.h"
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
  // Test-only paths (planted faults, crashers) are hidden unless asked for.
  virtual bool test_only() const { return false; }
  // A variant of another path (a knob setting) run on demand, e.g. to check a mitigation; not part
  // of the default path set.
  virtual bool variant() const { return false; }
  // Left out of the default path set (run only when --paths names it): variants, and paths too slow
  // to run on every case of a campaign (aoti compiles a shared library per program).
  virtual bool on_demand() const { return variant(); }
  // Runs the program on inputs made from the recipe. Never throws: errors are outcomes.
  virtual PathResult Run(const Program& p, const InputRecipe& r, StageReporter& stages) = 0;
};

}  // namespace mmdiff
