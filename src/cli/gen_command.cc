// `mmdiff gen`: the program (or whole case) generated from a seed, the policy, or statistics of
// many programs.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>

#include "src/cli/cli_support.h"
#include "src/cli/command_registry.h"
#include "src/cli/subcommand_help.h"
#include "src/gen/focus.h"
#include "src/gen/generator.h"
#include "src/gen/stats.h"
#include "src/ir/program_json.h"
#include "src/support/utf8.h"

namespace mmdiff::cli {

namespace {

struct GenArgs {
  uint64_t seed = 1;
  std::string policy_file;
  std::string focus;
  bool dump_policy = false;
  int64_t stats = 0;
  bool json = false;
  bool whole_case = false;
  bool values = false;
};

int Gen(uint64_t seed, const std::string& policy_file, const std::string& focus, bool dump_policy,
        bool whole_case, bool values) {
  auto policy = LoadPolicy(policy_file, focus);
  if (!policy.ok()) {
    std::cerr << "mmdiff gen: " << policy.error() << "\n";
    return kExitUsage;
  }
  if (dump_policy) {
    std::cout << PolicyToJson(policy.value()).dump(2) << "\n";
    return kExitOk;
  }
  GeneratedCase c = GenerateCaseFromSeed(seed, policy.value());
  nlohmann::json j = ProgramToJson(c.program);
  if (whole_case) j = {{"program", j}, {"inputs", RecipeToJson(c.recipe)}};
  if (values) {
    j["values"] = nlohmann::json::array();
    for (size_t i = 0; i < c.program.inputs.size(); ++i) {
      nlohmann::json list = nlohmann::json::array();
      for (double v : InputValues(c.program, c.recipe, i)) {
        char buf[40];
        std::snprintf(buf, sizeof(buf), "%a", v);
        list.push_back(buf);
      }
      j["values"].push_back(list);
    }
  }
  std::cout << j.dump(2) << "\n";
  return kExitOk;
}

int GenStats(uint64_t seed, int64_t count, const std::string& policy_file, const std::string& focus,
             bool json) {
  auto policy = LoadPolicy(policy_file, focus);
  if (!policy.ok()) {
    std::cerr << "mmdiff gen: " << policy.error() << "\n";
    return kExitUsage;
  }
  mmdiff::GenStats s = CollectStats(policy.value(), seed, count);
  std::cout << (json ? StatsToJson(s).dump(2) + "\n" : StatsToText(s));
  return kExitOk;
}

const CommandRegistrar kGen{
    "gen", [](CLI::App& app) {
      auto a = std::make_shared<GenArgs>();
      auto* gen = app.add_subcommand("gen", "Print the program generated from a seed, as JSON");
      gen->footer(WithExample("", "gen --seed 7 --case > case.json; mmdiff run case.json"));
      gen->add_option("--seed", a->seed, "Generator seed")->capture_default_str();
      gen->add_option("--policy", a->policy_file, "Generation policy JSON")
          ->check(CLI::ExistingFile);
      gen->add_flag("--dump-policy", a->dump_policy,
                    "Print the (default or loaded) policy instead of a program");
      gen->add_option("--focus", a->focus,
                      "Generate with a focus's overlay on the policy, as a steered campaign's case "
                      "did (its finding's case.json and summary bucket name it): " +
                          BroadFocusNames() +
                          ", or target + the name of an attention fusion (one focus per fusion "
                          "variant, e.g. target_sfdp_pattern_14_half_training), or target_ + a "
                          "lowering or freezing pass as `mmdiff rewrites` names it (e.g. "
                          "target_lowering:mkldnn._linear_pointwise.default:sigmoid)")
          ->type_name("NAME")
          ->check(
              [](const std::string& name) {
                return FindFocus(name) ? std::string() : "not a focus: " + TerminalLine(name);
              },
              "a focus");
      gen->add_option("--stats", a->stats,
                      "Instead of a program: how often each op, dtype, dtype pairing, device, "
                      "layout feature, value class, training feature and autocast region appears "
                      "in this many programs (seeds from --seed on)");
      AddJsonFlag(gen, a->json, "the statistics of --stats");
      gen->add_flag("--case", a->whole_case,
                    "Print the whole test case: {\"program\", \"inputs\"} (the input recipe); "
                    "`mmdiff run` takes it");
      gen->add_flag("--values", a->values,
                    "With the case, print every input's values (before the conversion to its "
                    "dtype) as hex floats");
      return std::pair<CLI::App*, std::function<int()>>{
          gen, [a] {
            if (a->stats > 0) return GenStats(a->seed, a->stats, a->policy_file, a->focus, a->json);
            return Gen(a->seed, a->policy_file, a->focus, a->dump_policy,
                       a->whole_case || a->values, a->values);
          }};
    }};

}  // namespace
}  // namespace mmdiff::cli
