// Subcommand implementations.
#include "src/cli/commands.h"

#include <signal.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <sstream>

#include "mmdiff/build_info.h"
#include "src/campaign/ablation.h"
#include "src/campaign/campaign_start.h"
#include "src/campaign/fuzz_campaign.h"
#include "src/campaign/mitigations.h"
#include "src/campaign/selftest.h"
#include "src/cli/cli_support.h"
#include "src/gen/generator.h"
#include "src/gen/mutator.h"
#include "src/gen/stats.h"
#include "src/ir/paths.h"
#include "src/ir/program_json.h"
#include "src/report/run_case.h"
#include "src/support/files.h"
#include "src/support/hash.h"
#include "src/support/json_limits.h"

namespace mmdiff::cli {

namespace fs = std::filesystem;

namespace {

void PrintTable(const CaseRun& c) {
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
  for (const auto& k : findings)
    std::printf("  %s  %s\n", HashHex(k.signature).c_str(), Headline(WithFinding(c, k)).c_str());
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

}  // namespace

std::string VersionText() {
  return std::string("mmdiff ") + build_info::kMmdiffVersion + "\ntorch " +
         build_info::kTorchVersion + "\npython " + build_info::kPythonVersion + "\nvenv python " +
         build_info::kVenvPython;
}

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
      const InputSpec& in = c.program.inputs[i];
      nlohmann::json list = nlohmann::json::array();
      for (double v : RecipeValues(c.recipe, i, Numel(in.shape), in.dtype)) {
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

namespace {
// A file holding a case (a program, `mmdiff gen --case` output, a report, a regression entry),
// read once: its document and its program. A file naming another format, or a report or entry
// version this mmdiff does not read, is not taken for the program inside it. Errors name the file
// (ReadFile's already do).
struct CaseFile {
  nlohmann::json doc;
  Program program;
};
Result<CaseFile> LoadCaseFile(const std::string& file) {
  auto text = ReadFile(file);
  if (!text.ok()) return text.status();
  auto doc = ParseJsonBounded(text.value());
  if (!doc.ok()) return Status::Error(file + ": " + doc.error());
  if (Status s = CheckCaseFileFormat(doc.value()); !s.ok())
    return Status::Error(file + ": " + s.message());
  auto p = ProgramFromDocument(doc.value());
  if (!p.ok()) return Status::Error(file + ": " + p.error());
  return CaseFile{std::move(doc.value()), std::move(p.value())};
}
Result<Program> LoadProgram(const std::string& file) {
  auto c = LoadCaseFile(file);
  if (!c.ok()) return c.status();
  return c.value().program;
}
}  // namespace

int Mutate(const std::string& program_file, const std::string& cross_with, uint64_t seed,
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

int Selftest(bool json, bool full, int64_t programs, int64_t compiled_programs, uint64_t seed,
             double timeout_s, bool special) {
  CommonOptions o;
  o.test_paths = true;
  o.timeout_s = timeout_s;
  PrivateTempDir tmp("mmdiff-selftest");  // the worker's log: private, removed on return
  if (!tmp.ok()) {
    std::cerr << "mmdiff selftest: " << tmp.error() << "\n";
    return kExitEnvironment;
  }
  std::string log = tmp.File("worker.log");
  Supervisor sup(MakeSupervisorOptions(o, log));
  if (Status s = sup.Hello(); !s.ok()) {
    std::cerr << "mmdiff selftest: " << s.message() << "\n";
    return kExitEnvironment;
  }
  SelftestOptions so;
  so.programs = full ? 20000 : programs;
  so.compiled_programs = full ? 20000 : compiled_programs;
  so.relation_programs = full ? 20000 : std::max<int64_t>(programs / 5, 0);
  so.seed = seed;
  so.special = special;
  if (!sup.Offers(paths::kAotEager)) {
    std::cerr << "mmdiff selftest: aot_eager is not available here; its check is skipped\n";
    so.compiled_programs = 0;
  }
  SelftestResult r = RunSelftest(sup, so);
  nlohmann::json j = SelftestToJson(r);
  j["versions"] = sup.versions();
  std::cout << (json ? j.dump(2) + "\n" : SelftestToText(r));
  return r.Passed() ? kExitOk : kExitDiverged;
}

int Paths(bool json, bool test_paths) {
  CommonOptions o;
  o.test_paths = test_paths;
  PrivateTempDir tmp("mmdiff-paths");  // the worker's log: private, removed on return
  if (!tmp.ok()) {
    std::cerr << "mmdiff paths: " << tmp.error() << "\n";
    return kExitEnvironment;
  }
  std::string log = tmp.File("worker.log");
  Supervisor sup(MakeSupervisorOptions(o, log));
  Status s = sup.Hello();
  if (!s.ok()) {
    std::cerr << "mmdiff paths: " << s.message() << "\n";
    return kExitEnvironment;
  }
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
                p.traits.variant ? "variant, run on demand "
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

int Run(const std::string& program_file, uint64_t input_seed, bool seed_given,
        const CommonOptions& o, bool json, const std::string& out_dir) {
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
  PrivateTempDir tmp("mmdiff-run");  // the worker's log: private, removed on return
  if (!tmp.ok()) {
    std::cerr << "mmdiff run: " << tmp.error() << "\n";
    return kExitEnvironment;
  }
  std::string log = tmp.File("worker.log");
  Supervisor sup(MakeSupervisorOptions(o, log));
  std::vector<std::string> paths;
  if (int code = StartWorker(sup, o, "run", paths); code != kExitOk) return code;
  CaseRun c = RunAndJudge(sup, program, recipe, paths, before);
  c.mitigations = TryMitigations(sup, c);
  c.ablation = RunAblation(sup, c);
  RunContext ctx = WorkerRunContext(sup);
  if (json)
    std::cout << MakeReport(c, ctx).dump(2) << "\n";
  else
    PrintTable(c);
  if (!out_dir.empty()) {
    Status w = WriteFinding(out_dir, c, ctx);
    if (!w.ok()) {
      std::cerr << "mmdiff run: " << w.message() << "\n";
      return kExitEnvironment;
    }
  }
  return c.verdict.diverges() ? kExitDiverged : kExitOk;
}

}  // namespace mmdiff::cli
