// `mmdiff paths`: the paths this machine can run, and why others cannot.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>

#include "src/cli/cli_support.h"
#include "src/cli/command_registry.h"
#include "src/cli/subcommand_help.h"
#include "src/gen/policy.h"
#include "src/support/files.h"

namespace mmdiff::cli {

namespace {

// The worker's paths as a table or JSON, with this machine's devices.
int ShowPaths(const Supervisor& sup, bool json) {
  // The worker answers without loading CUDA, so GPU presence is probed here from the driver's
  // files.
  bool gpu = GpuPresent();
  if (json) {
    nlohmann::json j = {{"versions", sup.versions()},
                        {"paths", nlohmann::json::array()},
                        {"devices", {{"cpu", true}, {"meta", true}, {"cuda", gpu}}}};
    for (const auto& p : sup.paths())
      j["paths"].push_back({{"name", p.name},
                            {"available", p.available},
                            {"why", p.why},
                            {"test_only", p.traits.test_only},
                            {"variant", p.traits.variant},
                            {"on_demand", p.traits.on_demand},
                            {"compiled", p.traits.compiled},
                            {"needs_gpu", p.traits.needs_gpu},
                            {"keeps_state", p.traits.keeps_state}});
    std::cout << j.dump(2) << "\n";
    return kExitOk;
  }
  std::printf("%-32s %-10s %s\n", "path", "available", "notes");
  for (const auto& p : sup.paths())
    std::printf("%-32s %-10s %s%s%s\n", p.name.c_str(), p.available ? "yes" : "no",
                p.traits.test_only ? "test-only " : "",
                p.traits.variant
                    // A campaign draws the variants its policy weighs (GenPolicy::variant_rate).
                    ? (VariantWeightOf(GenPolicy(), p.name) > 0
                           ? "variant: a share of a campaign's programs, else on demand "
                           : "variant, run on demand ")
                    : p.traits.on_demand
                          ? (p.traits.compiled ? "slow, run on demand " : "run on demand ")
                          : "",
                p.why.c_str());
  std::printf("\ndevices: cpu, meta%s\n",
              gpu ? ", cuda" : "; cuda: no GPU on this machine (cuda programs are skipped)");
  std::printf("torch %s, python %s\n", sup.versions().value("torch", std::string("?")).c_str(),
              sup.versions().value("python", std::string("?")).c_str());
  return kExitOk;
}

int Paths(bool json, bool test_paths) {
  CommonOptions o;
  o.test_paths = test_paths;
  return WithWorker("paths", o, [&](Supervisor& sup) { return ShowPaths(sup, json); });
}

const CommandRegistrar kPaths{
    "paths", [](CLI::App& app) {
      auto json = std::make_shared<bool>(false);
      auto test_paths = std::make_shared<bool>(false);
      auto* paths =
          app.add_subcommand("paths", "List the paths this machine can run, and why others cannot");
      paths->footer(WithExample("", "paths --json"));
      AddJsonFlag(paths, *json, "the paths and why others cannot run");
      paths->add_flag("--test-paths", *test_paths, "Include the test-only paths");
      return std::pair<CLI::App*, std::function<int()>>{
          paths, [json, test_paths] { return Paths(*json, *test_paths); }};
    }};

}  // namespace
}  // namespace mmdiff::cli
