// Report assembly and writing.
#include "src/report/report.h"

#include <algorithm>
#include <ctime>
#include <filesystem>

#include "oracles/contract.h"
#include "oracles/judge.h"
#include "oracles/root_cause_fold.h"
#include "src/ir/paths.h"
#include "src/ir/program_json.h"
#include "src/ir/python_emitter.h"
#include "src/ir/recorded_paths.h"
#include "src/ir/verifier.h"
#include "src/report/headline.h"
#include "src/report/known.h"
#include "src/report/regression_entry.h"
#include "src/report/rerun_records_json.h"
#include "src/support/files.h"
#include "src/support/format_version.h"
#include "src/support/hash.h"
#include "src/support/json_guard.h"
#include "src/support/machine_facts.h"

namespace mmdiff {

namespace {

std::string NowIso() {
  std::time_t t = std::time(nullptr);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&t));
  return buf;
}

std::string Field(const nlohmann::json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_string() ? j[key].get<std::string>() : "?";
}

// The paths repro.py can compile the way the campaign did (the knob variants too: it sets their
// settings).
bool ReproCompiledPath(const std::string& p) {
  const PathRow* row = FindPath(p);
  return row && row->repro != ReproKind::kNone;
}
// How ReproOptions::backend names a path: its torch.compile backend, else the path itself
// (torchscript, aoti, and a knob variant, whose row says how to compile it).
std::string ReproBackendOf(const std::string& p) {
  const PathRow* row = FindPath(p);
  return row && row->repro == ReproKind::kTorchCompile && !row->traits.variant ? row->torch_backend
                                                                               : p;
}

// The ablation as the table of a PyTorch issue: one row per stage.
std::vector<std::string> AblationTable(const std::optional<Ablation>& ablation) {
  std::vector<std::string> lines;
  if (!ablation) return lines;
  lines.push_back(
      "Ablation (the same inputs on each stage; the first stage that disagrees with eager: " +
      ablation->first_divergent.value_or("none") + "):");
  lines.push_back("| stage | result | same as eager? |");
  lines.push_back("|---|---|---|");
  for (const auto& s : ablation->stages)
    lines.push_back("| " + s.backend + " | " + s.outcome + " | " +
                    (s.agrees_with_eager ? "yes" : "no") + " |");
  return lines;
}

}  // namespace

namespace {

// The versions with this machine's OS and CPU (what a bug report asks for, and what picks the CPU
// kernels), where the worker did not give them.
nlohmann::json WithMachine(nlohmann::json versions) {
  static const MachineFacts machine = ReadMachineFacts();
  if (!versions.is_object()) return versions;
  if (!versions.contains("os")) versions["os"] = machine.os;
  if (!versions.contains("cpu")) versions["cpu"] = CpuLine(machine);
  return versions;
}

}  // namespace

void AddClassFields(nlohmann::json& j, const RootCauseClass& c) {
  j["class"] = FindingClassName(c.area);
  j["filing"] = FilingName(c.filing);
  if (!c.reason.empty()) j["by_design"] = c.reason;
}

std::optional<RootCauseClass> ClassFromFields(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("filing") || !j["filing"].is_string()) return std::nullopt;
  auto filing = ParseFiling(j["filing"].get<std::string>());
  if (!filing) return std::nullopt;
  RootCauseClass c;
  c.filing = *filing;
  if (j.contains("class") && j["class"].is_string())
    for (FindingClass a : {FindingClass::kCompiledWrongResult, FindingClass::kCompiledRaises,
                           FindingClass::kCompiledAccepts, FindingClass::kEager,
                           FindingClass::kErrorClassOrMeta, FindingClass::kByDesign})
      if (FindingClassName(a) == j["class"].get<std::string>()) c.area = a;
  if (c.filing == Filing::kByDesign && j.contains("by_design") && j["by_design"].is_string())
    c.reason = j["by_design"].get<std::string>();
  return c;
}

RootCauseClass CaseClass(const CaseRun& c) {
  const FindingKey k = CaseFinding(c);
  const std::string folded = FoldedRootCause(k.signature, c.mitigations);
  const std::string& classification = k.divergence < c.verdict.divergences.size()
                                          ? c.verdict.divergences[k.divergence].classification
                                          : std::string();
  return ClassifyRootCause(folded.empty() ? k.signature : folded, classification);
}

std::string Headline(const CaseRun& c) {
  if (!c.verdict.diverges()) return "all paths agree";
  return FindingHeadline(c.program, c.contract, c.results, c.verdict, CaseFinding(c)) + " " +
         ClassTag(CaseClass(c));
}

nlohmann::json MakeReport(const CaseRun& c, const RunContext& ctx) {
  nlohmann::json program = ProgramToJson(c.program);
  FindingKey finding = CaseFinding(c);
  const std::string& signature = finding.signature;
  nlohmann::json paths = nlohmann::json::array();
  for (const auto& r : c.results) paths.push_back(PathResultToJson(r, /*with_data=*/false));
  nlohmann::json contract = {{"rejects", c.contract.rejects}};
  if (c.contract.rejects) {
    contract["node"] = c.contract.violation.node;
    contract["rule"] = c.contract.violation.rule;
    contract["error_class"] = c.contract.violation.error_class;
    contract["message"] = c.contract.violation.message;
    contract["source"] = c.contract.violation.source;
  }
  nlohmann::json report = {{"format", "mmdiff.report"},
                           {"version", kReportFormatVersion},
                           {"id", HashHex(program.dump() + RecipeToJson(c.recipe).dump())},
                           {"created", NowIso()},
                           {"headline", Headline(c)},
                           {"summary", c.program.Summary()},
                           {"bucket", {{"signature", signature}, {"hash", HashHex(signature)}}},
                           {"finding",
                            {{"divergence", finding.divergence},
                             {"also", finding.also},
                             {"known", c.known.has_value()}}},
                           {"versions", WithMachine(ctx.versions)},
                           {"knobs", ctx.knobs},
                           {"program", program},
                           {"inputs", RecipeToJson(c.recipe)},
                           {"calls_before", PriorCallsToJson(c.before)},
                           {"contract", contract},
                           {"paths", paths},
                           {"verdict", VerdictToJson(c.verdict)},
                           {"repro", "repro.py"}};
  if (c.mitigations) report["mitigations"] = MitigationsToJson(*c.mitigations);
  if (c.ablation) report["ablation"] = AblationToJson(*c.ablation);
  if (c.standalone) report["standalone"] = StandaloneToJson(*c.standalone);
  if (c.known) report["finding"]["catalogue"] = KnownRecordToJson(*c.known);
  if (c.unclaimed) report["finding"]["unclaimed"] = KnownRecordToJson(*c.unclaimed);
  if (c.verdict.diverges()) AddClassFields(report, CaseClass(c));
  return report;
}

Status CheckReportFormat(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("format") || j["format"] != "mmdiff.report")
    return Status::Error("not an mmdiff report: \"format\" must be \"mmdiff.report\"");
  return ReadFormatVersion(j, "report", kOldestReportFormatVersion, kReportFormatVersion).status();
}

namespace {
// A report's program, parsed and verified.
Result<Program> ReportProgram(const nlohmann::json& j) {
  auto program = ProgramFromJson(j.value("program", nlohmann::json()));
  if (!program.ok()) return Status::Error("report: program: " + program.error());
  if (Status v = Verify(program.value()); !v.ok())
    return Status::Error("report: program: " + v.message());
  return program.value();
}
}  // namespace

Result<JudgedCase> ReadJudgedCase(const nlohmann::json& j) {
  if (Status s = CheckReportFormat(j); !s.ok()) return s;
  return GuardJson("report", [&]() -> Result<JudgedCase> {
    JudgedCase out;
    auto program = ReportProgram(j);
    if (!program.ok()) return program.status();
    out.program = program.value();
    out.contract = Expect(out.program);
    if (!j.contains("paths") || !j["paths"].is_array())
      return Status::Error("report: \"paths\" must be an array of path results");
    for (const auto& r : j["paths"]) {
      auto pr = PathResultFromJson(r);
      if (!pr.ok()) return Status::Error("report: paths: " + pr.error());
      out.results.push_back(pr.value());
    }
    SetRecordedTraits(out.results);  // a report records each path's name only
    auto verdict = VerdictFromJson(j.value("verdict", nlohmann::json()));
    if (!verdict.ok()) return Status::Error("report: " + verdict.error());
    out.verdict = verdict.value();
    if (j.contains("mitigations")) {
      auto m = MitigationsFromJson(j["mitigations"]);
      if (!m.ok()) return Status::Error("report: " + m.error());
      out.mitigations = m.value();
    }
    if (j["version"] >= 2) {  // one finding per report since version 2
      const auto& f = j.value("finding", nlohmann::json());
      if (!f.is_object() || !f.contains("divergence") || !f["divergence"].is_number_unsigned() ||
          f["divergence"].get<uint64_t>() >= out.verdict.divergences.size())
        return Status::Error("report: \"finding\" must name one of the verdict's divergences");
      out.finding = static_cast<int>(f["divergence"].get<uint64_t>());
    }
    return out;
  });
}

std::vector<std::string> ReportRootCauses(const JudgedCase& j) {
  std::vector<std::string> out;
  for (const auto& k : Findings(j.program, j.contract, j.results, j.verdict))
    if (j.finding < 0 || k.divergence == static_cast<size_t>(j.finding)) out.push_back(k.signature);
  if (out.empty() && j.finding >= 0)  // a folded divergence: sign it on its own
    out.push_back(RootCauseSignature(
        j.program, j.contract,
        FindingFacts(j.contract, j.results, j.verdict, static_cast<size_t>(j.finding))));
  for (auto& s : out)
    if (std::string folded = FoldedRootCause(s, j.mitigations); !folded.empty()) s = folded;
  return out;
}

namespace {
Status CheckCaseFileFormatUnguarded(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("format"))
    return Status::Ok();  // e.g. `mmdiff gen --case` output
  if (j["format"] == "mmdiff.report") return CheckReportFormat(j);
  if (j["format"] == "mmdiff.regression") return CheckRegressionEntryFormat(j);
  if (j["format"] == "mmdiff.program") return Status::Ok();
  return Status::Error("unknown format " + j["format"].dump() +
                       ": expected an mmdiff program, report or regression entry");
}
}  // namespace

Result<ReportCase> ReadReportCase(const nlohmann::json& j) {
  if (Status s = CheckReportFormat(j); !s.ok()) return s;
  return GuardJson("report", [&]() -> Result<ReportCase> {
    ReportCase out;
    auto program = ReportProgram(j);
    if (!program.ok()) return program.status();
    out.program = program.value();
    auto recipe = RecipeFromJson(j.value("inputs", nlohmann::json()));
    if (!recipe.ok()) return Status::Error("report: inputs: " + recipe.error());
    out.recipe = recipe.value();
    auto before = PriorCallsFromJson(
        j.contains("calls_before") ? j["calls_before"] : nlohmann::json(), out.program);
    if (!before.ok()) return Status::Error("report: " + before.error());
    out.before = before.value();
    if (!j.contains("paths") || !j["paths"].is_array() || j["paths"].empty())
      return Status::Error("report: \"paths\" must be a non-empty array of path results");
    for (const auto& r : j["paths"]) {
      if (!r.is_object() || !r.contains("path") || !r["path"].is_string() || r["path"] == "")
        return Status::Error("report: every path result needs a \"path\" name");
      out.paths.push_back(r["path"].get<std::string>());
    }
    out.version = j["version"].get<int>();
    if (j.contains("bucket") && j["bucket"].is_object() && j["bucket"].contains("hash") &&
        j["bucket"]["hash"].is_string())
      out.bucket_hash = j["bucket"]["hash"].get<std::string>();
    if (j.contains("knobs") && j["knobs"].is_object())
      for (const auto& [k, v] : j["knobs"].items())
        if (v.is_string()) out.knobs[k] = v.get<std::string>();
    return out;
  });
}

Status CheckCaseFileFormat(const nlohmann::json& j) {
  return GuardJson("case file", [&] { return CheckCaseFileFormatUnguarded(j); });
}

bool ReproCanShow(const CaseRun& c) {
  if (c.finding >= c.verdict.divergences.size()) return false;
  const Divergence& d = c.verdict.divergences[c.finding];
  std::string at_fault = d.blamed;
  for (const auto& p : d.paths)
    if (at_fault.empty() && p != kEagerPath && p != kReferencePath) at_fault = p;
  return at_fault.empty() || at_fault == kEagerPath || at_fault == kEagerMetaPath ||
         at_fault == kReferencePath || ReproCompiledPath(at_fault) ||
         !RecordedPathTraits(at_fault).test_only;
}

std::string MakeRepro(const CaseRun& c, const RunContext& ctx) {
  ReproOptions o;
  // The headline cut to one line, its class whole: the class is what a reader decides by.
  std::string what = c.verdict.diverges() ? FindingHeadline(c.program, c.contract, c.results,
                                                            c.verdict, CaseFinding(c))
                                          : "all paths agree";
  if (what.size() > 160) what = what.substr(0, 157) + "...";
  o.title = "mmdiff reproducer: " + what +
            (c.verdict.diverges() ? " " + ClassTag(CaseClass(c)) : std::string());
  // The finding's own divergence first: the path at fault is the one this script compiles.
  std::vector<const Divergence*> order;
  if (c.finding < c.verdict.divergences.size()) order.push_back(&c.verdict.divergences[c.finding]);
  for (const auto& d : c.verdict.divergences)
    if (order.empty() || &d != order[0]) order.push_back(&d);
  std::string compiled;
  for (const Divergence* d : order) {
    if (ReproCompiledPath(d->blamed)) {
      compiled = d->blamed;
      break;
    }
    for (const auto& p : d->paths)
      if (compiled.empty() && ReproCompiledPath(p)) compiled = p;
    if (!compiled.empty()) break;
  }
  const bool none_compiled = compiled.empty();
  if (none_compiled) compiled = AblationRungs().back()->name;  // inductor
  o.backend = ReproBackendOf(compiled);
  for (const Divergence* d : order) {
    o.notes.push_back("- " + std::string(DivergenceKindName(d->kind)) + ": " + d->detail);
    if (d->kind == DivergenceKind::kValue && d->paths.back() == compiled)
      o.value_atol = 2 * d->allowed;
  }
  // What the script checks: the finding's own claim. A finding no compiled path is at fault for is
  // shown without one: eager on meta against eager on cpu, eager against the contract, or eager's
  // value against the reference.
  if (!order.empty()) {
    const Divergence& d = *order[0];
    bool meta_program = std::any_of(c.program.inputs.begin(), c.program.inputs.end(),
                                    [](const InputSpec& in) { return in.device == Device::kMeta; });
    if (d.kind == DivergenceKind::kMeta && !meta_program) {
      o.check = ReproOptions::Check::kMetaVsCpu;
    } else if (d.kind == DivergenceKind::kContract ||
               (d.kind == DivergenceKind::kMeta && meta_program) ||
               // Eager raising in a backward the reference differentiates: eager must return the
               // outputs and gradients the contract types.
               (d.kind == DivergenceKind::kBackwardError && d.blamed == kEagerPath &&
                !ReproCompiledPath(d.paths.back()))) {
      o.check = ReproOptions::Check::kEagerVsContract;
      o.contract_rejects = c.contract.rejects;
      o.contract_error_class = c.contract.violation.error_class;
      for (const auto& t : c.contract.outputs)
        o.contract_types.push_back({t.dtype, t.shape, t.device});
    } else if (d.kind == DivergenceKind::kValue && d.blamed == kEagerPath) {
      o.check = ReproOptions::Check::kEagerValue;
    } else if (d.kind == DivergenceKind::kIgnoredInput) {
      // The blamed path run twice: with the inputs as given, and with those the run that found it
      // zeroed. Eager where repro.py cannot build the path.
      o.check = ReproOptions::Check::kIgnoredInput;
      o.zeroed = c.rerun_zeroed;
      if (!ReproCompiledPath(d.blamed)) o.backend = "";
    }
    if (d.kind == DivergenceKind::kValue && d.output >= 0 && d.element >= 0 &&
        (o.check == ReproOptions::Check::kEagerValue || d.paths.back() == compiled))
      o.worst = {d.output, d.element, d.expected, d.allowed};
  }
  // Whether the compared path failed to compile f in mmdiff's run: then the script's own compile
  // error is the finding; else a compile error means the script does not rebuild what mmdiff ran.
  const PathRow* compiled_row = FindPath(compiled);
  const ReproKind repro = compiled_row ? compiled_row->repro : ReproKind::kNone;
  if (const PathResult* r = FindResult(c.results, compiled);
      r && repro == ReproKind::kTorchScript) {
    o.compile_error_is_finding =
        r->kind == OutcomeKind::kError && r->error_type == "torch::jit::ErrorReport";
  } else if (r && repro == ReproKind::kAoti) {
    // aoti's errors name their step (export, aoti-compile, aoti-load; aoti-run once loaded); an
    // error without one (an older report) leaves it unknown.
    if (r->kind != OutcomeKind::kError || r->stage == "aoti-run")
      o.compile_error_is_finding = false;
    else if (!r->stage.empty())
      o.compile_error_is_finding = true;
  }
  if (none_compiled && o.check == ReproOptions::Check::kCompiledVsEager)
    o.notes.push_back("No torch.compile path is implicated (the divergence involves " +
                      (order.empty() ? std::string("no path") : order[0]->paths.back()) +
                      "); this script compares eager with inductor.");
  if (c.contract.rejects) {
    o.notes.push_back("Contract: eager must raise " + c.contract.violation.error_class + " (" +
                      c.contract.violation.rule + ": " + c.contract.violation.message +
                      "). Source: " + c.contract.violation.source);
    // Where eager breaks the rule, why the rule and not eager is taken as right.
    if (const ContractRule* d = FindContractRule(c.contract.violation.eager_deviation))
      o.notes.push_back("Eager breaks the rule here (" + d->id + "): " + d->requirement +
                        ". Why the rule holds: " + d->source);
  }
  o.before = c.before;
  // A finding that showed only some of the time when checked standalone: more attempts, and the
  // rate it showed at.
  if (c.standalone && StandaloneStatusOf(*c.standalone) == StandaloneStatus::kFlaky) {
    const StandaloneRecord& s = *c.standalone;
    o.attempts = 5;
    o.notes.push_back("Shows only some of the time: in " +
                      std::to_string(s.worker_hits + s.repro_hits) + " of " +
                      std::to_string(s.worker_runs + s.repro_attempts) +
                      " runs when mmdiff checked it; the script tries up to 5 times before it "
                      "concludes that the finding is gone.");
  }
  if (!c.before.empty())
    o.notes.push_back("Calls before: the compiled function was called on " +
                      std::to_string(c.before.size()) +
                      " other input set(s) first (CALLS_BEFORE: its first compile, then new "
                      "sizes), and the finding shows only after them; the script makes them "
                      "first.");
  for (const auto& line : AblationTable(c.ablation)) o.notes.push_back(line);
  o.notes.push_back("Found with mmdiff " + Field(ctx.versions, "mmdiff") + " on torch " +
                    Field(ctx.versions, "torch") + ", Python " + Field(ctx.versions, "python") +
                    ".");
  return EmitRepro(c.program, c.recipe, o);
}

Status WriteFinding(const std::string& dir, const CaseRun& c, const RunContext& ctx) {
  Status s = MakeWritableDir(dir);
  if (!s.ok()) return s;
  namespace fs = std::filesystem;
  // The report goes last, so a folder with report.json is always complete.
  s = WriteFileAtomic((fs::path(dir) / "program.json").string(),
                      ProgramToJson(c.program).dump(2) + "\n");
  if (s.ok()) s = WriteFileAtomic((fs::path(dir) / "repro.py").string(), MakeRepro(c, ctx));
  if (s.ok())
    s = WriteFileAtomic((fs::path(dir) / "report.json").string(),
                        MakeReport(c, ctx).dump(2) + "\n");
  return s;
}

}  // namespace mmdiff
