// Planted faults and crashers. Only registered when the worker runs with --test-paths.
#include "src/backends/test_backends.h"

#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <memory>

#include "src/backends/aten_program.h"

namespace mmdiff {

namespace {

// Eager with one of the planted faults of PlantedFault, or eager with another thread count.
class AtenVariant : public Backend {
 public:
  AtenVariant(std::string name, AtenRunOptions o) : name_(std::move(name)), o_(o) {}
  std::string name() const override { return name_; }
  PathTraits traits() const override { return {.test_only = true, .needs_gpu = true}; }
  PathResult Run(const Program& p, const InputRecipe& r, StageReporter& stages) override {
    return RunAtenPath(p, r, stages, o_);
  }

 private:
  std::string name_;
  AtenRunOptions o_;
};

// Dies in stage "compile" in the given way.
class Crasher : public Backend {
 public:
  Crasher(std::string name, std::function<void()> die)
      : name_(std::move(name)), die_(std::move(die)) {}
  std::string name() const override { return name_; }
  PathTraits traits() const override { return {.test_only = true}; }
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
  auto planted = [&](const char* name, PlantedFault f) {
    AtenRunOptions o;
    o.fault = f;
    v.push_back(std::make_unique<AtenVariant>(name, o));
  };
  planted("planted_promote", PlantedFault::kPromote);
  planted("planted_drop_k", PlantedFault::kDropK);
  planted("planted_half_accumulate", PlantedFault::kHalfAccumulate);
  planted("planted_wrong_dtype", PlantedFault::kWrongDType);
  planted("planted_nan_to_number", PlantedFault::kNanToNumber);
  planted("planted_inf_times_zero", PlantedFault::kInfTimesZero);
  planted("planted_spread_nan", PlantedFault::kSpreadNan);
  planted("planted_bias_times_beta", PlantedFault::kBiasTimesBeta);
  planted("planted_drop_grad_term", PlantedFault::kDropGradTerm);
  planted("planted_ignore_autocast", PlantedFault::kIgnoreAutocast);
  planted("planted_wide_intermediates", PlantedFault::kWideIntermediates);
  AtenRunOptions one_thread;
  one_thread.threads = 1;
  v.push_back(std::make_unique<AtenVariant>("eager_1thread", one_thread));
  v.push_back(std::make_unique<Crasher>("crash_segv", [] { raise(SIGSEGV); }));
  v.push_back(std::make_unique<Crasher>("crash_abort", [] { std::abort(); }));
  v.push_back(std::make_unique<Crasher>("crash_sigkill", [] { raise(SIGKILL); }));
  v.push_back(std::make_unique<Crasher>("oom", [] {
    // Takes memory until an allocation fails (with a memory limit, the uncaught std::bad_alloc ends
    // the worker). Without a limit it would take the machine's memory: it refuses.
    struct rlimit rl;
    if (getrlimit(RLIMIT_DATA, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) {
      std::fprintf(stderr, "oom: refusing to run without a worker memory limit\n");
      std::abort();
    }
    std::vector<std::unique_ptr<char[]>> held;
    for (;;) {
      held.emplace_back(new char[64 << 20]);
      std::memset(held.back().get(), 1, 64 << 20);
    }
  }));
  v.push_back(std::make_unique<Crasher>("hang", [] {
    volatile unsigned long spin = 0;
    for (;;) spin = spin + 1;  // an endless loop, not a sleep: only a kill ends it
  }));
  return v;
}

}  // namespace mmdiff
