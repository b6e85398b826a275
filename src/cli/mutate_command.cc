// `mmdiff mutate`: one mutation of a program, or its crossover with another.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "src/cli/case_file.h"
#include "src/cli/cli_support.h"
#include "src/cli/command_registry.h"
#include "src/cli/subcommand_help.h"
#include "src/gen/choice_source.h"
#include "src/gen/mutator.h"
#include "src/ir/program_json.h"

namespace mmdiff::cli {

namespace {

struct MutateArgs {
  std::string program_file, cross_with, policy_file;
  uint64_t seed = 1;
};

int MutateProgram(const std::string& program_file, const std::string& cross_with, uint64_t seed,
                  const std::string& policy_file) {
  auto policy = LoadPolicy(policy_file);
  auto program = LoadProgram(program_file);
  if (!policy.ok() || !program.ok()) {
    std::cerr << "mmdiff mutate: " << (policy.ok() ? program.error() : policy.error()) << "\n";
    return kExitUsage;
  }
  SeededChoices choices(seed);
  Program out;
  if (!cross_with.empty()) {
    auto other = LoadProgram(cross_with);
    if (!other.ok()) {
      std::cerr << "mmdiff mutate: " << other.error() << "\n";
      return kExitUsage;
    }
    out = CrossOver(program.value(), other.value(), choices);
    std::cerr << "crossover of " << program_file << " and " << cross_with << "\n";
  } else {
    Mutation m = Mutate(program.value(), choices, policy.value());
    std::cerr << MutationName(m.kind) << ": " << m.detail << "\n";
    out = m.program;
  }
  std::cout << ProgramToJson(out).dump(2) << "\n";
  return kExitOk;
}

const CommandRegistrar kMutate{
    "mutate", [](CLI::App& app) {
      auto a = std::make_shared<MutateArgs>();
      auto* mutate = app.add_subcommand(
          "mutate", "Print one mutation of a program (or its crossover with another)");
      mutate->footer(
          WithExample("", "mutate p.json --seed 3   (p.json from mmdiff gen --seed 7 > p.json)"));
      mutate
          ->add_option("program", a->program_file, "Program JSON (or a report or regression entry)")
          ->required();
      mutate->add_option("--seed", a->seed, "Mutation seed: the same seed gives the same mutation")
          ->capture_default_str();
      mutate->add_option("--cross", a->cross_with,
                         "Cross over with this second program instead of mutating");
      mutate
          ->add_option("--policy", a->policy_file,
                       "Generation policy JSON (for added nodes, and p_mutate_float for new "
                       "dtypes)")
          ->check(CLI::ExistingFile);
      return std::pair<CLI::App*, std::function<int()>>{
          mutate,
          [a] { return MutateProgram(a->program_file, a->cross_with, a->seed, a->policy_file); }};
    }};

}  // namespace
}  // namespace mmdiff::cli
