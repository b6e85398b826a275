// `mmdiff rewrites [CAMPAIGN...]`: the matmul/attention-family rewrites of the installed torch's
// Inductor that the campaigns' programs never reached (pass coverage, docs/campaigns.md).
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "src/campaign/rewrite_catalogue.h"
#include "src/cli/cli_support.h"
#include "src/cli/command_registry.h"
#include "src/cli/commands.h"
#include "src/triage/triage_input.h"

namespace mmdiff::cli {
namespace {

constexpr const char* kDescription =
    "List the matmul-family Inductor rewrites campaigns never reached\n"
    "The family: the installed torch's attention fusions, addmm fusions, small-matmul "
    "decompositions, and cast and view eliminations.";

constexpr const char* kFooter =
    "The rewrites are listed by the build's venv Python ($MMDIFF_PYTHON overrides it): it imports "
    "torch, compiles two tiny programs so that Inductor registers its lazy passes, and names every "
    "pattern-matcher entry and matmul decomposition as the worker names those that fire while a "
    "program compiles (src/ir/python/inductor_rewrites.py). A campaign's summary.json counts the "
    "programs that reached each one (\"rewrites\"); inputs are campaign folders, folders of shards "
    "(searched for summary.json) or summary.json files, and their counts add up. With no input, "
    "every family rewrite is listed as never reached.\n\n"
    "Example: mmdiff rewrites mmdiff-out\n\n"
    "Exit codes: 0 listed; 2 an input is missing or not a readable summary.json; 3 the Python "
    "could not list the rewrites.";

struct Args {
  std::vector<std::string> inputs;
  bool all = false, json = false;
  double timeout_s = 600;
};

// The campaigns' rewrites and programs, read as triage reads campaigns and shards; a summary it
// cannot read is an error here, not a file to skip.
Result<RewriteCoverage> ReachedBy(const std::vector<std::string>& inputs, int64_t& programs) {
  programs = 0;
  if (inputs.empty()) return RewriteCoverage{};
  auto data = triage::LoadTriageInputs(inputs);
  if (!data.ok()) return data.status();
  for (const auto& s : data.value().skipped)
    if (std::filesystem::path(s.path).filename() == "summary.json")
      return Status::Error(s.path + ": " + s.reason);
  for (const auto& c : data.value().campaigns) programs += c.has_summary ? c.cases : 0;
  return data.value().rewrites;
}

int RunRewrites(const Args& a) {
  int64_t programs = 0;
  auto reached = ReachedBy(a.inputs, programs);
  if (!reached.ok()) {
    std::cerr << "mmdiff rewrites: " << reached.error() << "\n";
    return kExitUsage;
  }
  auto catalogue = ListInstalledRewrites(VenvPython(), a.timeout_s);
  if (!catalogue.ok()) {
    std::cerr << "mmdiff rewrites: " << catalogue.error() << "\n";
    return kExitEnvironment;
  }
  if (!a.json) {
    std::cout << UnreachedReport(catalogue.value(), reached.value(), programs, a.all);
    return kExitOk;
  }
  nlohmann::json out = nlohmann::json::array();
  for (const CatalogueRewrite& r : catalogue.value()) {
    if (!r.family && !a.all) continue;
    auto it = reached.value().rewrites.find(r.name);
    out.push_back({{"name", r.name},
                   {"kind", r.kind},
                   {"family", r.family},
                   {"ops", r.ops},
                   {"note", r.note},
                   {"programs", it == reached.value().rewrites.end() ? 0 : it->second.programs}});
  }
  std::cout << out.dump(2) << "\n";
  return kExitOk;
}

const CommandRegistrar kRegistrar{
    "rewrites", [](CLI::App& app) {
      auto args = std::make_shared<Args>();
      CLI::App* sub = app.add_subcommand("rewrites", kDescription);
      sub->footer(kFooter);
      sub->add_option("inputs", args->inputs,
                      "Campaign folders, folders of shards, or summary.json files");
      sub->add_flag("--all", args->all,
                    "Also list the reached rewrites with their programs (with --json: every "
                    "rewrite, not only the family's)");
      AddJsonFlag(sub, args->json,
                  "the family's rewrites ([{name, kind, family, ops, note, programs}])");
      sub->add_option("--timeout", args->timeout_s,
                      "Seconds the Python may take to list the rewrites")
          ->check(CLI::PositiveNumber)
          ->capture_default_str();
      return std::pair<CLI::App*, std::function<int()>>{sub, [args] { return RunRewrites(*args); }};
    }};

}  // namespace
}  // namespace mmdiff::cli
