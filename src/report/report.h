// Findings: the JSON report of one test case (program, inputs, every path's outcome, the verdict,
// versions and knobs) and the folder mmdiff writes for it (report.json, program.json, repro.py).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "oracles/contract.h"
#include "oracles/verdict.h"
#include "src/ir/input_recipe.h"
#include "src/ir/outcome.h"
#include "src/ir/program.h"
#include "src/support/status.h"

namespace mmdiff {

inline constexpr int kReportFormatVersion = 1;

struct CaseRun {
  Program program;
  InputRecipe recipe;
  Expectation contract;
  std::vector<PathResult> results;
  Verdict verdict;
  // Reruns with mitigation knobs for compiled value findings (src/campaign/mitigations.h); null when
  // none were tried.
  nlohmann::json mitigations;
  // The case rerun on torch.compile's stages (src/campaign/ablation.h); null when not run.
  nlohmann::json ablation;
};

struct RunContext {
  nlohmann::json versions;                     // mmdiff, torch, python
  std::map<std::string, std::string> knobs;    // settings in force (env vars, inductor config)
};

// The paths and verdict judged for a program: runs nothing, just assembles.
CaseRun MakeCaseRun(const Program& p, const InputRecipe& r, std::vector<PathResult> results);

nlohmann::json MakeReport(const CaseRun& c, const RunContext& ctx);
// Ok when `j` is a report this mmdiff reads ("format" "mmdiff.report", "version" kReportFormatVersion);
// otherwise an error saying which, e.g. "report format version 2 is not supported (this mmdiff reads version 1)".
Status CheckReportFormat(const nlohmann::json& j);
// What a report says about its case, read back (for reduce, promote): the program (verified), its
// inputs, the paths it ran on, its bucket hash and knobs (the last two "" / empty when absent).
struct ReportCase {
  Program program;
  InputRecipe recipe;
  std::vector<std::string> paths;
  std::string bucket_hash;
  std::map<std::string, std::string> knobs;
};
// Errors name what is wrong: the format or version (CheckReportFormat), the program, the inputs,
// or a paths list that is missing, empty or has a result without a "path" name.
Result<ReportCase> ReadReportCase(const nlohmann::json& j);

// For files that hold a case (a program, `mmdiff gen --case` output, a report or a regression entry):
// ok unless the document names a format other than those, or a version of a report or regression
// entry this mmdiff does not read. The embedded program's own format is checked when it is parsed.
Status CheckCaseFileFormat(const nlohmann::json& j);
// One-line description of the main divergence, e.g. "inductor returns float32[...] where eager raises RuntimeError".
std::string Headline(const CaseRun& c);
// The repro.py for the case: compares eager with the compiled backend the verdict implicates.
std::string MakeRepro(const CaseRun& c, const RunContext& ctx);

// Writes DIR/report.json, DIR/program.json and DIR/repro.py atomically.
Status WriteFinding(const std::string& dir, const CaseRun& c, const RunContext& ctx);

}  // namespace mmdiff
