// `mmdiff bench`: how fast each path checks small programs, what compile once, run many saves, and
// the worker's peak memory — measured here, printed as JSON (scripts/bench adds the bare
// torch.compile comparison, a planted fault's time to discovery and the campaign-level gain).
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "src/cli/cli_support.h"
#include "src/cli/command_registry.h"
#include "src/cli/subcommand_help.h"
#include "src/gen/generator.h"
#include "src/gen/input_variants.h"
#include "src/ir/paths.h"
#include "src/ir/program_json.h"
#include "src/ir/python_emitter.h"

namespace mmdiff::cli {
namespace {

struct BenchArgs {
  CommonOptions common;
  int programs = 300;         // per fast path
  int compiled_programs = 8;  // per compiled path, each a new compile
  int aoti_programs = 2;      // AOTInductor compiles a shared library: slow
  int inputs = 100;           // inputs of one program through a reused compiled function
  uint64_t seed = 1;
  std::string sources_out;  // the compiled programs as JSON, for the bare torch.compile timing
  bool verbose = false;
};

// Small programs on cpu: one or two ops, float32/float64/float16, no views or layouts that a bare
// torch.compile script would have to rebuild; only those the contract accepts are used.
GenPolicy SmallPolicy() {
  GenPolicy p;
  p.max_ops = 2;
  p.p_shape_violation = p.p_device_mismatch = p.p_move = p.p_meta = p.p_cuda = 0;
  p.p_mixed_dtype = p.p_transposed = p.p_view = p.p_zero_dim = p.p_large_k = 0;
  p.w_int8 = p.w_uint8 = p.w_int32 = p.w_int64 = p.w_bool = p.w_bfloat16 = 0;
  p.dims = {2, 3, 4, 5, 7, 8, 16};
  p.p_train = 0;     // forward only; the training rows mark the same programs' inputs themselves
  p.p_autocast = 0;  // eager_meta and torchscript cannot run autocast regions: plain programs
  return p;
}

// The same programs training: every floating input requires grad (forward, backward, gradients).
std::vector<GeneratedCase> Training(std::vector<GeneratedCase> cases) {
  for (auto& c : cases)
    for (auto& in : c.program.inputs) in.requires_grad = IsFloating(in.dtype);
  return cases;
}

// The same programs under autocast: every node in one cpu float16 region.
std::vector<GeneratedCase> UnderAutocast(std::vector<GeneratedCase> cases) {
  for (auto& c : cases) {
    c.program.autocast = {{Device::kCpu, DType::kFloat16, true, std::nullopt}};
    for (auto& n : c.program.nodes) n.autocast = 0;
  }
  return cases;
}

double Now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Timing {
  int runs = 0, ok = 0;
  double seconds = 0;
  std::vector<double> each;
  int compiled = 0, reused = 0;
};

bool g_verbose = false;  // --verbose: one line per run on stderr

Timing Time(Supervisor& sup, const std::vector<GeneratedCase>& cases,
            const std::vector<std::string>& paths) {
  Timing t;
  for (const auto& c : cases) {
    double t0 = Now();
    auto results = sup.Run(c.program, c.recipe, paths);
    double dt = Now() - t0;
    t.seconds += dt;
    t.each.push_back(dt);
    ++t.runs;
    bool all_ok = true;
    for (const auto& r : results) {
      all_ok &= r.ok();
      t.compiled += r.compile.compiled;
      t.reused += r.compile.reused && !r.compile.compiled;
    }
    t.ok += all_ok;
    if (g_verbose)
      for (const auto& r : results)
        std::fprintf(stderr, "%s %s %.2f ms %s %s\n", r.path.c_str(), r.ok() ? "ok " : "ERR",
                     dt * 1e3, c.program.Summary().c_str(), r.message.c_str());
  }
  return t;
}

nlohmann::json Rate(const Timing& t) {
  return {{"runs", t.runs},         {"ok", t.ok},
          {"seconds", t.seconds},   {"per_s", t.seconds > 0 ? t.runs / t.seconds : 0.0},
          {"compiled", t.compiled}, {"reused", t.reused}};
}

// The figures into `out`; kExitOk, or the exit code to give up with.
int Bench(Supervisor& sup, const BenchArgs& a, nlohmann::json& out) {
  g_verbose = a.verbose;
  GenPolicy policy = SmallPolicy();
  // Programs the contract accepts: the figures are for programs that compute.
  auto valid = [&](uint64_t seed) {
    for (;; seed += 7919) {
      GeneratedCase c = GenerateCaseFromSeed(seed, policy);
      if (!Expect(c.program).rejects) return c;
    }
  };
  auto make = [&](uint64_t from, int n) {
    std::vector<GeneratedCase> v;
    for (int i = 0; i < n; ++i) v.push_back(valid(from + static_cast<uint64_t>(i)));
    return v;
  };
  out = {{"format", "mmdiff.bench-paths"}, {"version", 1}, {"versions", sup.versions()}};
  nlohmann::json rates = nlohmann::json::object();
  // Warm up: the worker's first run starts Python and imports torch.
  Time(sup, make(a.seed + 1000000, 2), {paths::kReference, paths::kEager, paths::kEagerMeta});
  std::vector<GeneratedCase> small = make(a.seed, a.programs);
  for (const char* path :
       {paths::kReference, paths::kEager, paths::kEagerMeta, paths::kTorchScript})
    if (sup.Offers(path)) rates[path] = Rate(Time(sup, small, {path}));
  rates["reference+eager"] = Rate(Time(sup, small, {paths::kReference, paths::kEager}));
  // Training: the cost of gradients, on the same programs.
  std::vector<GeneratedCase> small_training = Training(small);
  for (const char* path : {paths::kReference, paths::kEager})
    rates[std::string(path) + " (training)"] = Rate(Time(sup, small_training, {path}));
  rates["reference+eager (training)"] =
      Rate(Time(sup, small_training, {paths::kReference, paths::kEager}));
  // Autocast: the cost of a region (eager sets autocast's state per op; the reference runs the
  // lowered program), on the same programs.
  std::vector<GeneratedCase> small_autocast = UnderAutocast(small);
  for (const char* path : {paths::kReference, paths::kEager})
    rates[std::string(path) + " (autocast)"] = Rate(Time(sup, small_autocast, {path}));
  // Compiled paths: each program new, so each run compiles (the caller turns Inductor's FX graph
  // cache off for these figures).
  std::vector<GeneratedCase> fresh = make(a.seed + 500000, a.compiled_programs);
  nlohmann::json sources = nlohmann::json::array();
  for (const char* path : {paths::kInductor, paths::kAotEager,
                           paths::kCompileEager})  // warm up: import each backend's modules
    if (sup.Offers(path)) Time(sup, {valid(a.seed + 2000000)}, {path});
  for (const char* path :
       {paths::kInductor, paths::kAotEager, paths::kCompileEager, paths::kAoti}) {
    if (!sup.Offers(path)) continue;
    std::vector<GeneratedCase> set = fresh;
    if (std::string(path) == paths::kAoti)
      set.resize(std::min<size_t>(set.size(), a.aoti_programs));
    // Another path compiled these programs a moment ago: new seeds keep each compile new.
    for (auto& c : set) c = valid(c.recipe.seed ^ std::hash<std::string>{}(path));
    Timing t = Time(sup, set, {path});
    rates[std::string(path) + " (new compile)"] = Rate(t);
    if (std::string(path) != paths::kAoti) {  // aoti does not train; new seeds again: new compiles
      std::vector<GeneratedCase> training = set;
      for (auto& c : training) c = valid(c.recipe.seed ^ 0x7261696eULL);
      rates[std::string(path) + " (new compile, training)"] =
          Rate(Time(sup, Training(training), {path}));
      std::vector<GeneratedCase> autocast = set;
      for (auto& c : autocast) c = valid(c.recipe.seed ^ 0x6175746fULL);
      rates[std::string(path) + " (new compile, autocast)"] =
          Rate(Time(sup, UnderAutocast(autocast), {path}));
    }
    if (std::string(path) == paths::kInductor) {
      for (size_t i = 0; i < set.size(); ++i) {
        nlohmann::json inputs = nlohmann::json::array();
        for (const auto& in : set[i].program.inputs)
          inputs.push_back({{"shape", in.shape}, {"dtype", DTypeName(in.dtype)}});
        sources.push_back({{"source", EmitFunction(set[i].program)},
                           {"inputs", inputs},
                           {"mmdiff_s", t.each[i]}});
      }
    }
  }
  // Compile once, run many: one program, many inputs, each through the function compiled first.
  if (sup.Offers(paths::kInductor)) {
    GeneratedCase base = valid(a.seed + 900000);
    std::vector<GeneratedCase> variants;
    for (int v = 0; v <= a.inputs; ++v) {
      InputVariant iv =
          MakeInputVariant(base.program, base.recipe, a.seed, v == 0 ? 0 : v + 1, policy);
      variants.push_back({iv.program, iv.recipe});  // (skips the new-sizes variant: values only)
    }
    Time(sup, {variants[0]}, {paths::kInductor});  // the compile
    variants.erase(variants.begin());
    rates["inductor (reused compiled program)"] = Rate(Time(sup, variants, {paths::kInductor}));
  }
  out["paths"] = rates;
  if (!a.sources_out.empty()) {
    std::ofstream f(a.sources_out);
    f << sources.dump(1) << "\n";
    if (!f) {
      std::cerr << "mmdiff bench: cannot write " << a.sources_out << "\n";
      return kExitEnvironment;
    }
  }
  return kExitOk;
}

int RunBench(const BenchArgs& a) {
  nlohmann::json out;
  int code = WithWorker("bench", a.common, [&](Supervisor& sup) { return Bench(sup, a, out); });
  if (code != kExitOk) return code;
  // The worker's peak resident memory: it was this process's only child, reaped when its
  // supervisor went.
  struct rusage ru;
  getrusage(RUSAGE_CHILDREN, &ru);
  out["worker_peak_rss_mb"] = static_cast<double>(ru.ru_maxrss) / 1024.0;
  std::cout << out.dump(2) << "\n";
  return kExitOk;
}

const CommandRegistrar kBench{
    "bench", [](CLI::App& app) {
      auto args = std::make_shared<BenchArgs>();
      auto* c = app.add_subcommand("bench",
                                   "Measure each path's rate and the worker's peak memory\n"
                                   "Each path's rate on small generated cpu programs (fast "
                                   "paths: --programs runs each; compiled "
                                   "paths: --compiled-programs new programs each, one compile per "
                                   "run; inductor reusing one compiled "
                                   "program for --inputs inputs) and the worker's peak memory; "
                                   "print JSON. scripts/bench runs this with "
                                   "Inductor's FX graph cache off and adds the other figures.");
      c->footer(WithExample("", "bench --programs 500 --compiled-programs 5"));
      c->add_option("--programs", args->programs, "Programs per fast path")
          ->check(CLI::PositiveNumber)
          ->capture_default_str();
      c->add_option("--compiled-programs", args->compiled_programs,
                    "New programs per compiled path")
          ->check(CLI::PositiveNumber)
          ->capture_default_str();
      c->add_option("--aoti-programs", args->aoti_programs,
                    "New programs for aoti (at most --compiled-programs)")
          ->check(CLI::NonNegativeNumber)
          ->capture_default_str();
      c->add_option("--inputs", args->inputs, "Inputs through one compiled inductor program")
          ->check(CLI::PositiveNumber)
          ->capture_default_str();
      c->add_option("--seed", args->seed, "Seed of the generated programs")->capture_default_str();
      c->add_option("--sources-out", args->sources_out,
                    "Write the inductor programs (function source, input shapes and dtypes, "
                    "mmdiff's seconds) here");
      AddStageTimeoutOption(c, args->common.timeout_s);
      c->add_flag("--verbose", args->verbose,
                  "One line per run on stderr: path, outcome, milliseconds, program");
      return std::make_pair(c, std::function<int()>([args] { return RunBench(*args); }));
    }};

}  // namespace
}  // namespace mmdiff::cli
