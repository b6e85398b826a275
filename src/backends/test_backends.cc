// Planted faults and crashers. Only registered when the worker runs with --test-paths.
#include "src/backends/test_backends.h"

#include <signal.h>
#include <unistd.h>

#include <cstdlib>
#include <functional>

#include "src/backends/aten_program.h"

namespace mmdiff {

namespace {

class PlantedPromote : public Backend {
 public:
  std::string name() const override { return "planted_promote"; }
  bool test_only() const override { return true; }
  PathResult Run(const Program& p, const InputRecipe& r, StageReporter& stages) override {
    AtenRunOptions o;
    o.promote_mismatched_dtypes = true;
    return RunAtenPath(p, r, stages, o);
  }
};

// Dies in stage "compile" in the given way.
class Crasher : public Backend {
 public:
  Crasher(std::string name, std::function<void()> die) : name_(std::move(name)), die_(std::move(die)) {}
  std::string name() const override { return name_; }
  bool test_only() const override { return true; }
  PathResult Run(const Program&, const InputRecipe&, StageReporter& stages) override {
    stages.Stage("compile");
    die_();
    return PathResult{name_, OutcomeKind::kOk};
  }

 private:
  std::string name_;
  std::function<void()> die_;
};

}  // namespace

std::vector<std::unique_ptr<Backend>> MakeTestBackends() {
  std::vector<std::unique_ptr<Backend>> v;
  v.push_back(std::make_unique<PlantedPromote>());
  v.push_back(std::make_unique<Crasher>("crash_segv", [] { raise(SIGSEGV); }));
  v.push_back(std::make_unique<Crasher>("crash_abort", [] { std::abort(); }));
  v.push_back(std::make_unique<Crasher>("crash_sigkill", [] { raise(SIGKILL); }));
  v.push_back(std::make_unique<Crasher>("hang", [] {
    volatile unsigned long spin = 0;
    for (;;) spin = spin + 1;  // an endless loop, not a sleep: only a kill ends it
  }));
  return v;
}

}  // namespace mmdiff
