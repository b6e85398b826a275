// Report assembly and writing.
#include "src/report/report.h"

#include <ctime>
#include <filesystem>

#include "oracles/judge.h"
#include "src/ir/program_json.h"
#include "src/ir/python_emitter.h"
#include "src/ir/verifier.h"
#include "src/report/bucket.h"
#include "src/report/regression_entry.h"
#include "src/support/files.h"
#include "src/support/hash.h"
#include "src/support/json_guard.h"

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

bool IsCompiledPath(const std::string& p) {
  return p == "inductor" || p == "aot_eager" || p == "compile_eager" || p == "torchscript" || p == "aoti";
}
std::string TorchBackendOf(const std::string& p) { return p == "compile_eager" ? "eager" : p; }

// The ablation as the table of a PyTorch issue: one row per stage.
std::vector<std::string> AblationTable(const nlohmann::json& ablation) {
  std::vector<std::string> lines;
  if (!ablation.is_object() || !ablation.contains("stages")) return lines;
  lines.push_back("Ablation (the same inputs on each stage; the first stage that disagrees with eager: " +
                  (ablation["first_divergent"].is_string() ? ablation["first_divergent"].get<std::string>()
                                                           : std::string("none")) + "):");
  lines.push_back("| stage | result | same as eager? |");
  lines.push_back("|---|---|---|");
  for (const auto& s : ablation["stages"])
    lines.push_back("| " + s.value("backend", "") + " | " + s.value("outcome", "") + " | " +
                    (s.value("agrees_with_eager", false) ? "yes" : "no") + " |");
  return lines;
}

}  // namespace

CaseRun MakeCaseRun(const Program& p, const InputRecipe& r, std::vector<PathResult> results) {
  CaseRun c{p, r, Expect(p), std::move(results), {}};
  c.verdict = Judge(c.contract, c.results);
  return c;
}

std::string Headline(const CaseRun& c) {
  if (!c.verdict.diverges()) return "all paths agree";
  const Divergence& d = c.verdict.divergences.front();
  std::string who = BlameLabel(d);
  std::string detail = d.detail.size() > 300 ? d.detail.substr(0, 300) + "..." : d.detail;
  return std::string(DivergenceKindName(d.kind)) + who + ": " + detail;
}

nlohmann::json MakeReport(const CaseRun& c, const RunContext& ctx) {
  nlohmann::json program = ProgramToJson(c.program);
  std::string signature = BucketSignature(c.program, c.contract, c.results, c.verdict);
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
          {"versions", ctx.versions},
          {"knobs", ctx.knobs},
          {"program", program},
          {"inputs", RecipeToJson(c.recipe)},
          {"contract", contract},
          {"paths", paths},
          {"verdict", VerdictToJson(c.verdict)},
          {"repro", "repro.py"}};
  if (!c.mitigations.is_null()) report["mitigations"] = c.mitigations;
  if (!c.ablation.is_null()) report["ablation"] = c.ablation;
  return report;
}

Status CheckReportFormat(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("format") || j["format"] != "mmdiff.report")
    return Status::Error("not an mmdiff report: \"format\" must be \"mmdiff.report\"");
  if (!j.contains("version") || !j["version"].is_number_integer())
    return Status::Error("report: \"version\" must be an integer");
  if (j["version"] != kReportFormatVersion)
    return Status::Error("report format version " + j["version"].dump() + " is not supported (this mmdiff reads version " +
                         std::to_string(kReportFormatVersion) + ")");
  return Status::Ok();
}

namespace {
Status CheckCaseFileFormatUnguarded(const nlohmann::json& j) {
  if (!j.is_object() || !j.contains("format")) return Status::Ok();  // e.g. `mmdiff gen --case` output
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
    auto program = ProgramFromJson(j.value("program", nlohmann::json()));
    if (!program.ok()) return Status::Error("report: program: " + program.error());
    if (Status v = Verify(program.value()); !v.ok()) return Status::Error("report: program: " + v.message());
    out.program = program.value();
    auto recipe = RecipeFromJson(j.value("inputs", nlohmann::json()));
    if (!recipe.ok()) return Status::Error("report: inputs: " + recipe.error());
    out.recipe = recipe.value();
    if (!j.contains("paths") || !j["paths"].is_array() || j["paths"].empty())
      return Status::Error("report: \"paths\" must be a non-empty array of path results");
    for (const auto& r : j["paths"]) {
      if (!r.is_object() || !r.contains("path") || !r["path"].is_string() || r["path"] == "")
        return Status::Error("report: every path result needs a \"path\" name");
      out.paths.push_back(r["path"].get<std::string>());
    }
    if (j.contains("bucket") && j["bucket"].is_object() && j["bucket"].contains("hash") && j["bucket"]["hash"].is_string())
      out.bucket_hash = j["bucket"]["hash"].get<std::string>();
    if (j.contains("knobs") && j["knobs"].is_object())
      for (const auto& [k, v] : j["knobs"].items())
        if (v.is_string()) out.knobs[k] = v.get<std::string>();
    return out;
  });
}

Status CheckCaseFileFormat(const nlohmann::json& j) { return GuardJson("case file", [&] { return CheckCaseFileFormatUnguarded(j); }); }

std::string MakeRepro(const CaseRun& c, const RunContext& ctx) {
  ReproOptions o;
  o.title = "mmdiff reproducer: " + Headline(c).substr(0, 160);
  std::string compiled;
  for (const auto& d : c.verdict.divergences) {
    if (IsCompiledPath(d.blamed)) {
      compiled = d.blamed;
      break;
    }
    for (const auto& p : d.paths)
      if (compiled.empty() && IsCompiledPath(p)) compiled = p;
  }
  if (compiled.empty()) {
    compiled = "inductor";
    o.notes.push_back("No torch.compile path is implicated (the divergence involves " +
                      (c.verdict.divergences.empty() ? std::string("no path")
                                                     : c.verdict.divergences.front().paths.back()) +
                      "); this script compares eager with inductor.");
  }
  o.backend = TorchBackendOf(compiled);
  for (const auto& d : c.verdict.divergences) {
    o.notes.push_back("- " + std::string(DivergenceKindName(d.kind)) + ": " + d.detail);
    if (d.kind == DivergenceKind::kValue && d.paths.back() == compiled) o.value_atol = 2 * d.allowed;
  }
  if (c.contract.rejects)
    o.notes.push_back("Contract: eager must raise " + c.contract.violation.error_class + " (" +
                      c.contract.violation.rule + ": " + c.contract.violation.message + "). Source: " +
                      c.contract.violation.source);
  for (const auto& line : AblationTable(c.ablation)) o.notes.push_back(line);
  o.notes.push_back("Found with mmdiff " + Field(ctx.versions, "mmdiff") + " on torch " +
                    Field(ctx.versions, "torch") + ", Python " + Field(ctx.versions, "python") + ".");
  return EmitRepro(c.program, c.recipe, o);
}

Status WriteFinding(const std::string& dir, const CaseRun& c, const RunContext& ctx) {
  Status s = MakeWritableDir(dir);
  if (!s.ok()) return s;
  namespace fs = std::filesystem;
  // The report goes last, so a folder with report.json is always complete.
  s = WriteFileAtomic((fs::path(dir) / "program.json").string(), ProgramToJson(c.program).dump(2) + "\n");
  if (s.ok()) s = WriteFileAtomic((fs::path(dir) / "repro.py").string(), MakeRepro(c, ctx));
  if (s.ok()) s = WriteFileAtomic((fs::path(dir) / "report.json").string(), MakeReport(c, ctx).dump(2) + "\n");
  return s;
}

}  // namespace mmdiff
