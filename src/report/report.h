// Findings: the JSON report of one test case (program, inputs, every path's outcome, the verdict,
// versions and knobs) and the folder mmdiff writes for it (report.json, program.json, repro.py).
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "oracles/case_run.h"
#include "oracles/contract.h"
#include "oracles/root_cause.h"
#include "oracles/verdict.h"
#include "src/ir/input_recipe.h"
#include "src/ir/outcome.h"
#include "src/ir/program.h"
#include "src/report/finding_class.h"
#include "src/support/status.h"

namespace mmdiff {

// 2: one finding per report (the "finding" object), buckets by root cause
// (oracles/root_cause.h). 3: the calls before the case ("calls_before", src/ir/call_sequence.h):
// a version 2 reader would run the case without them. Versions 1 (one bucket for all of a case's
// divergences) and 2 are still read.
inline constexpr int kReportFormatVersion = 3;
inline constexpr int kOldestReportFormatVersion = 1;

struct RunContext {
  nlohmann::json versions;                   // mmdiff, torch, python
  std::map<std::string, std::string> knobs;  // settings in force (env vars, inductor config)
};

nlohmann::json MakeReport(const CaseRun& c, const RunContext& ctx);
// Ok when `j` is a report this mmdiff reads ("format" "mmdiff.report", "version" 1 or 2); otherwise
// an error saying which, e.g. "report format version 3 is not supported (this mmdiff reads versions
// 1 to 2)".
Status CheckReportFormat(const nlohmann::json& j);
// What a report says about its case, read back (for reduce, promote): the program (verified), its
// inputs and the calls before them, the paths it ran on, its bucket hash and knobs (the last two
// "" / empty when absent).
struct ReportCase {
  Program program;
  InputRecipe recipe;
  std::vector<PriorCall> before;  // the calls before the case (none before version 3)
  std::vector<std::string> paths;
  std::string bucket_hash;
  std::map<std::string, std::string> knobs;
  int version = kReportFormatVersion;  // the report's format version
};
// Errors name what is wrong: the format or version (CheckReportFormat), the program, the inputs,
// or a paths list that is missing, empty or has a result without a "path" name.
Result<ReportCase> ReadReportCase(const nlohmann::json& j);

// A report's judged case, read back without running anything (triage, the known catalogue): the
// program, its contract, the path results (without values), the verdict, and the finding the report
// is about (version 2), or -1 for a version 1 report (all of its case's findings).
struct JudgedCase {
  Program program;
  Expectation contract;
  std::vector<PathResult> results;
  Verdict verdict;
  int finding = -1;
  std::optional<std::vector<Mitigation>> mitigations;  // the knob reruns, where it got them
};
Result<JudgedCase> ReadJudgedCase(const nlohmann::json& report);
// The root-cause signatures of the findings a report is about (one for version 2, every finding of
// the case for version 1), signed by the current code, and folded where the finding is one case of
// a documented behaviour (oracles/root_cause_fold.h).
std::vector<std::string> ReportRootCauses(const JudgedCase& j);

// For files that hold a case (a program, `mmdiff gen --case` output, a report or a regression
// entry): ok unless the document names a format other than those, or a version of a report or
// regression entry this mmdiff does not read. The embedded program's own format is checked when it
// is parsed.
Status CheckCaseFileFormat(const nlohmann::json& j);
// Writes a root cause's class into a report or a summary's bucket: "class" (FindingClassName),
// "filing" (FilingName) and, for a by-design one, "by_design" (its reason).
void AddClassFields(nlohmann::json& j, const RootCauseClass& c);
// What AddClassFields wrote, read from an untrusted document; none where "filing" is missing or
// not a filing name (an older report).
std::optional<RootCauseClass> ClassFromFields(const nlohmann::json& j);
// The class of c.finding's root cause (src/report/finding_class.h): signed as a campaign signs it,
// folded where c's mitigation reruns fold it (oracles/root_cause_fold.h).
RootCauseClass CaseClass(const CaseRun& c);
// One line about c.finding, leading with the path at fault (FindingHeadline) and ending with its
// class's tag (CaseClass), e.g. "inductor accepts addmm(float64, float32, float32) that eager
// rejects (dtype_match) [filable]".
std::string Headline(const CaseRun& c);
// The repro.py for the case's finding: compares eager with the compiled backend at fault.
std::string MakeRepro(const CaseRun& c, const RunContext& ctx);
// Whether MakeRepro's script can show the finding at all: not where the path at fault is one that
// repro.py cannot build (a test-only path other than the planted torch.compile backends), which it
// would stand in for with inductor.
bool ReproCanShow(const CaseRun& c);

// Writes DIR/report.json, DIR/program.json and DIR/repro.py atomically.
Status WriteFinding(const std::string& dir, const CaseRun& c, const RunContext& ctx);

}  // namespace mmdiff
