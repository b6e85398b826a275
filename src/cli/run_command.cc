// `mmdiff run`: one program (or a report's case) through the paths, its table and verdict.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>

#include "mmdiff/build_info.h"
#include "src/campaign/ablation.h"
#include "src/campaign/campaign_start.h"
#include "src/campaign/mitigations.h"
#include "src/cli/case_file.h"
#include "src/cli/cli_support.h"
#include "src/cli/command_registry.h"
#include "src/cli/subcommand_help.h"
#include "src/ir/call_sequence.h"
#include "src/report/known.h"
#include "src/report/run_case.h"
#include "src/support/files.h"
#include "src/support/hash.h"

namespace mmdiff::cli {

namespace {

struct RunArgs {
  CommonOptions common;
  std::string program_file, out_dir;
  uint64_t input_seed = 0;
  bool json = false;
  bool no_known = false;
};

void PrintTable(const CaseRun& c, const KnownCatalogue* catalogue) {
  std::printf("program: %s\n", c.program.Summary().c_str());
  if (c.contract.rejects)
    std::printf("contract: eager must raise %s (%s at node %s: %s)\n",
                c.contract.violation.error_class.c_str(), c.contract.violation.rule.c_str(),
                c.contract.violation.node.c_str(), c.contract.violation.message.c_str());
  else
    std::printf("contract: eager must succeed\n");
  std::printf("\n%-32s %-12s %8s  %s\n", "path", "outcome", "seconds", "detail");
  for (const auto& r : c.results) {
    std::string detail;
    if (r.kind == OutcomeKind::kOk) {
      for (size_t i = 0; i < r.outputs.size(); ++i)
        detail += (i ? ", " : "") + std::string(DTypeName(r.outputs[i].dtype)) +
                  ShapeString(r.outputs[i].shape) + "@" +
                  std::string(DeviceName(r.outputs[i].device));
    } else if (r.kind == OutcomeKind::kError) {
      detail = r.error_class + ": " + r.message;
    } else {
      detail = (r.stage.empty() ? "" : "stage " + r.stage + ": ") +
               r.message.substr(0, r.message.find('\n'));
    }
    if (detail.size() > 110) detail = detail.substr(0, 107) + "...";
    std::printf("%-32s %-12s %8.2f  %s\n", r.path.c_str(), std::string(OutcomeName(r.kind)).c_str(),
                r.seconds, detail.c_str());
  }
  std::printf("\nverdict: %s\n", c.verdict.diverges() ? "DIVERGE" : "agree");
  for (const auto& d : c.verdict.divergences)
    std::printf("  %s%s: %s\n", std::string(DivergenceKindName(d.kind)).c_str(),
                BlameLabel(d).c_str(), d.detail.c_str());
  for (const auto& n : c.verdict.notes) std::printf("  note: %s\n", n.c_str());
  auto findings = CaseFindings(c);
  if (!findings.empty()) std::printf("findings (one per root cause):\n");
  for (const auto& k : findings) {
    std::printf("  %s  %s\n", HashHex(k.signature).c_str(), Headline(WithFinding(c, k)).c_str());
    if (std::string line = DescribeCatalogueMatch(*catalogue, k.signature, catalogue->torch());
        !line.empty())
      std::printf("    catalogue: %s\n", line.c_str());
  }
  if (c.ablation) {
    std::printf("  ablation (first stage to disagree with eager: %s):\n",
                c.ablation->first_divergent.value_or("none").c_str());
    for (const auto& s : c.ablation->stages)
      std::printf("    %-34s %-3s %s\n", s.path.c_str(),
                  s.agrees_with_eager ? "=" : "!=", s.outcome.substr(0, 120).c_str());
  }
  if (c.mitigations)
    for (const auto& m : *c.mitigations)
      std::printf(
          "  mitigation %s: %s\n", m.knob.c_str(),
          m.removes_divergence ? "removes the divergence" : ("does not help: " + m.detail).c_str());
}

int Run(const std::string& program_file, uint64_t input_seed, bool seed_given,
        const CommonOptions& o, bool json, const std::string& out_dir, bool no_known) {
  auto catalogue = LoadKnownCatalogue(KnownCataloguePaths({}, no_known), build_info::kTorchVersion);
  if (!catalogue.ok()) {
    std::cerr << "mmdiff run: the catalogue: " << catalogue.error() << "\n";
    return kExitUsage;
  }
  auto loaded = LoadCaseFile(program_file);
  if (!loaded.ok()) {
    std::cerr << "mmdiff run: " << loaded.error() << "\n";
    return kExitUsage;
  }
  const nlohmann::json& j = loaded.value().doc;
  const Program& program = loaded.value().program;
  InputRecipe recipe{"grid16", input_seed};
  if (!seed_given && j.is_object() && j.contains("program") && j.contains("inputs")) {
    auto r = RecipeFromJson(j["inputs"]);
    if (!r.ok()) {
      std::cerr << "mmdiff run: " << program_file << ": " << r.error() << "\n";
      return kExitUsage;
    }
    recipe = r.value();
  }
  // A report's or regression entry's calls before the case: made first, as the campaign did.
  std::vector<PriorCall> before;
  if (j.is_object() && j.contains("calls_before")) {
    auto calls = PriorCallsFromJson(j["calls_before"], program);
    if (!calls.ok()) {
      std::cerr << "mmdiff run: " << program_file << ": " << calls.error() << "\n";
      return kExitUsage;
    }
    before = calls.value();
  }
  return WithWorker("run", o, [&](Supervisor& sup) {
    auto paths = SelectPaths(sup.paths(), o.paths, o.test_paths);
    if (!paths.ok()) {
      std::cerr << "mmdiff run: " << paths.error() << "\n";
      return kExitUsage;
    }
    CaseRun c = RunAndJudge(sup, program, recipe, paths.value(), before);
    c.mitigations = TryMitigations(sup, c);
    c.ablation = RunAblation(sup, c);
    RunContext ctx = WorkerRunContext(sup);
    if (c.verdict.diverges()) {
      const std::string sig = CaseFinding(c).signature;
      if (const KnownCause* k = catalogue.value().Find(sig))
        c.known = k->Record(catalogue.value().torch());
      else
        c.unclaimed = catalogue.value().Unclaimed(sig);
    }
    if (json)
      std::cout << MakeReport(c, ctx).dump(2) << "\n";
    else
      PrintTable(c, &catalogue.value());
    if (!out_dir.empty()) {
      Status w = WriteFinding(out_dir, c, ctx);
      if (!w.ok()) {
        std::cerr << "mmdiff run: " << w.message() << "\n";
        return kExitEnvironment;
      }
    }
    return c.verdict.diverges() ? kExitDiverged : kExitOk;
  });
}

const CommandRegistrar kRun{
    "run", [](CLI::App& app) {
      auto a = std::make_shared<RunArgs>();
      auto* run =
          app.add_subcommand("run", "Run one program through every path and print the verdict");
      run->footer(WithExample(
          "",
          "run mmdiff-out/<time>/findings/<hash>/report.json --paths reference,eager,inductor"));
      run->add_option("program", a->program_file,
                      "Program JSON, or a report.json (its program and inputs are used)")
          ->required();
      auto* seed_opt = run->add_option("--input-seed", a->input_seed,
                                       "Seed of the input values (default: the report's, else 0)");
      AddJsonFlag(run, a->json, "the report");
      AddOutFolderOption(run, a->out_dir, "report.json, program.json and repro.py, also written");
      AddCommonOptions(run, a->common);
      run->add_flag("--no-known", a->no_known,
                    "Do not look the findings up in the source tree's corpus/regression (by "
                    "default each finding says which entry claims it on this torch, or matches it "
                    "without expecting it here)");
      return std::pair<CLI::App*, std::function<int()>>{
          run, [a, seed_opt] {
            return Run(a->program_file, a->input_seed, seed_opt->count() > 0, a->common, a->json,
                       a->out_dir, a->no_known);
          }};
    }};

}  // namespace
}  // namespace mmdiff::cli
