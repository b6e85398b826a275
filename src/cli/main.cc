// mmdiff: command-line entry point.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>

#include "src/cli/cli_support.h"
#include "src/cli/command_registry.h"
#include "src/cli/commands.h"
#include "src/cli/subcommand_help.h"
#include "src/gen/focus.h"

namespace {

constexpr const char* kExitCodes =
    "`mmdiff SUBCOMMAND --help` explains a subcommand, with an example.\n"
    "Exit codes: 0 success (run: all paths agree); 1 run: the paths diverge; 2 bad usage or\n"
    "invalid input file; 3 environment problem (worker cannot start, output folder not\n"
    "writable); 4 replay: an expected divergence is gone (fixed upstream?); 5 replay: a verdict\n"
    "changed in another way (new behaviour).";

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "mmdiff: a differential fuzzer for PyTorch's matrix-multiplication family.\n"
      "Runs random programs through a reference engine, LibTorch eager and compiled paths\n"
      "(torch.compile, AOTInductor, TorchScript) in isolated worker processes, and reports where\n"
      "they disagree on errors, result types or values."};
  app.footer(kExitCodes);
  app.set_version_flag("--version", mmdiff::cli::VersionText());
  app.require_subcommand(1);

  uint64_t seed = 1;
  std::string policy_file;
  bool dump_policy = false;
  auto* gen = app.add_subcommand("gen", "Print the program generated from a seed, as JSON");
  gen->footer(
      mmdiff::cli::WithExample("", "gen --seed 7 --case > case.json; mmdiff run case.json"));
  gen->add_option("--seed", seed, "Generator seed")->capture_default_str();
  gen->add_option("--policy", policy_file, "Generation policy JSON")->check(CLI::ExistingFile);
  gen->add_flag("--dump-policy", dump_policy,
                "Print the (default or loaded) policy instead of a program");
  std::string focus;
  gen->add_option("--focus", focus,
                  "Generate with a focus's overlay on the policy, as a steered campaign's case "
                  "did (its finding's case.json and summary bucket name it)")
      ->check(CLI::IsMember(mmdiff::FocusNames()));
  int64_t stats = 0;
  bool stats_json = false;
  gen->add_option("--stats", stats,
                  "Instead of a program: how often each op, dtype, dtype pairing, device, layout "
                  "feature, value class, training feature and autocast region appears in this "
                  "many programs (seeds from --seed on)");
  gen->add_flag("--json", stats_json, "With --stats: print JSON");
  bool gen_case = false, gen_values = false;
  gen->add_flag("--case", gen_case,
                "Print the whole test case: {\"program\", \"inputs\"} (the input recipe); `mmdiff "
                "run` takes it");
  gen->add_flag("--values", gen_values,
                "With the case, print every input's values (before the conversion to its dtype) as "
                "hex floats");

  std::string mutate_file, cross_file, mutate_policy;
  uint64_t mutate_seed = 1;
  auto* mutate = app.add_subcommand(
      "mutate", "Print one mutation of a program (or its crossover with another)");
  mutate->footer(mmdiff::cli::WithExample(
      "", "mutate p.json --seed 3   (p.json from mmdiff gen --seed 7 > p.json)"));
  mutate->add_option("program", mutate_file, "Program JSON (or a report or regression entry)")
      ->required();
  mutate->add_option("--seed", mutate_seed, "Mutation seed: the same seed gives the same mutation")
      ->capture_default_str();
  mutate->add_option("--cross", cross_file,
                     "Cross over with this second program instead of mutating");
  mutate
      ->add_option("--policy", mutate_policy,
                   "Generation policy JSON (for added nodes, and p_mutate_float for new dtypes)")
      ->check(CLI::ExistingFile);

  mmdiff::cli::CommonOptions run_opts;
  std::string program_file, run_out;
  uint64_t input_seed = 0;
  bool json = false;
  auto* run = app.add_subcommand("run", "Run one program through every path and print the verdict");
  run->footer(mmdiff::cli::WithExample(
      "", "run mmdiff-out/<time>/findings/<hash>/report.json --paths reference,eager,inductor"));
  run->add_option("program", program_file,
                  "Program JSON, or a report.json (its program and inputs are used)")
      ->required();
  auto* seed_opt = run->add_option("--input-seed", input_seed,
                                   "Seed of the input values (default: the report's, else 0)");
  run->add_flag("--json", json, "Print the report JSON instead of a table");
  run->add_option("--out", run_out,
                  "Also write report.json, program.json and repro.py to this folder");
  mmdiff::cli::AddCommonOptions(run, run_opts);

  bool paths_json = false, paths_test = false;
  auto* paths =
      app.add_subcommand("paths", "List the paths this machine can run, and why others cannot");
  paths->footer(mmdiff::cli::WithExample("", "paths --json"));
  paths->add_flag("--json", paths_json, "Machine-readable output");
  paths->add_flag("--test-paths", paths_test, "Include the test-only paths");

  bool selftest_json = false, selftest_full = false, selftest_special = false;
  int64_t selftest_programs = 5000, selftest_compiled = 300;
  uint64_t selftest_seed = 1;
  double selftest_timeout = 300;
  auto* selftest =
      app.add_subcommand("selftest",
                         "Check the oracle on the installed torch: faults caught, no false alarm\n"
                         "Planted faults (a path that "
                         "drops a k-term, one that accumulates "
                         "float32 in float16, one with a wrong result dtype, one that accepts a "
                         "dtype mismatch, one that turns NaN "
                         "into a number, one that counts inf * 0 as 0, one that spreads a NaN to "
                         "the next column, one whose mm backward drops a term of dB) must be "
                         "caught and "
                         "blamed; eager vs reference, vs eager on one thread and vs aot_eager must "
                         "raise no numeric finding over random valid programs (a third of them "
                         "training, gradients judged like outputs; half of them with "
                         "exact values, where one-op programs "
                         "must also agree bit for bit). Exit 0 when all holds, 1 otherwise");
  selftest->footer(mmdiff::cli::WithExample("", "selftest --programs 1000 --compiled-programs 50"));
  selftest->add_flag("--json", selftest_json, "Print JSON instead of a table");
  selftest->add_flag("--full", selftest_full, "20,000 programs for every check");
  selftest->add_flag(
      "--special", selftest_special,
      "Every program's inputs carry special values (NaN, ±inf, -0, subnormals, near-max) at a 10 % "
      "rate, exact value mode included: the IEEE rules the reference judges them by must raise no "
      "false finding");
  selftest
      ->add_option("--programs", selftest_programs,
                   "Programs for eager vs reference and vs eager on one thread")
      ->capture_default_str();
  selftest
      ->add_option("--compiled-programs", selftest_compiled,
                   "Programs for eager vs aot_eager (0: skip)")
      ->capture_default_str();
  selftest->add_option("--seed", selftest_seed, "First program seed")->capture_default_str();
  selftest->add_option("--timeout", selftest_timeout, "Seconds a path may spend in one stage")
      ->capture_default_str();

  // Subcommands from their own *_command.cc files, in name order.
  std::vector<std::pair<CLI::App*, std::function<int()>>> registered;
  auto& registry = mmdiff::cli::CommandRegistry();
  std::sort(registry.begin(), registry.end(),
            [](const auto& a, const auto& b) { return a.name < b.name; });
  for (auto& c : registry) registered.push_back(c.add(app));
  mmdiff::cli::UseOneLineSubcommandList(app);
  if (int code = mmdiff::cli::CheckSubcommandName(app, argc, argv, std::cerr); code != 0)
    return code;

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? 0 : mmdiff::kExitUsage;
  }
  if (*gen && stats > 0) return mmdiff::cli::GenStats(seed, stats, policy_file, focus, stats_json);
  if (*gen)
    return mmdiff::cli::Gen(seed, policy_file, focus, dump_policy, gen_case || gen_values,
                            gen_values);
  if (*mutate) return mmdiff::cli::Mutate(mutate_file, cross_file, mutate_seed, mutate_policy);
  if (*run)
    return mmdiff::cli::Run(program_file, input_seed, seed_opt->count() > 0, run_opts, json,
                            run_out);
  if (*paths) return mmdiff::cli::Paths(paths_json, paths_test);
  if (*selftest)
    return mmdiff::cli::Selftest(selftest_json, selftest_full, selftest_programs, selftest_compiled,
                                 selftest_seed, selftest_timeout, selftest_special);
  for (auto& [sub, action] : registered)
    if (*sub) return action();
  return mmdiff::kExitUsage;
}
