// What `mmdiff releases` runs across releases: a finding's report (report.json) or a regression
// entry, read into its case, and how a release's judged run of that case relates to it.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "oracles/case_run.h"
#include "src/ir/input_recipe.h"
#include "src/ir/program.h"
#include "src/releases/release_history.h"
#include "src/report/regression_entry.h"
#include "src/support/status.h"

namespace mmdiff {

struct ReleaseFinding {
  std::string file;
  std::string title;  // an entry's title, a report's headline
  Program program;
  InputRecipe recipe;
  std::vector<PriorCall> before;  // the calls before the case (src/ir/call_sequence.h)
  std::vector<std::string> paths;
  std::string bucket;                         // a report's bucket hash
  std::string found_in;                       // a report's torch version ("" when not said)
  std::optional<RegressionEntry> regression;  // set for an entry
  // An entry's finding: the diverging expectation of the newest release run that it expects a
  // divergence in (PickEntryFinding); an entry may expect other divergences in other releases.
  std::optional<VersionExpectation> finding;
};

// Sets f.finding for an entry: the expectation that covers the newest of `releases` (newest first)
// and diverges, else the first diverging expectation of the entry; none when it expects only
// agreement.
void PickEntryFinding(ReleaseFinding& f, const std::vector<std::string>& releases);

// The files the arguments name: a file as given; of a folder, its report.json, the report.json of
// each finding in it (findings/*/, shard-*/findings/*/: a campaign's), and its *.json files that
// are regression entries or reports, in name order. An argument that names nothing of that kind is
// an error naming it.
Result<std::vector<std::string>> CollectReleaseFiles(const std::vector<std::string>& args);

// Reads a report or a regression entry; an error says what is wrong with the file.
Result<ReleaseFinding> LoadReleaseFinding(const std::string& file);

// How a release's judged run relates to the finding: present (a report: its bucket is among the
// run's findings; an entry: the run matches its finding, PickEntryFinding), other (it diverges
// otherwise), or agree. Fills the cell's state, observed verdict, buckets and detail.
void ClassifyReleaseRun(const ReleaseFinding& f, const CaseRun& run, ReleaseCell& cell);

// For an entry: the expectation its file holds for `torch` (a version like "2.11.0+cu130"), as
// DescribeExpectation says it, and whether `run` matches it; nullopt when none covers the release
// or the finding is no entry.
struct ExpectedInRelease {
  std::string expected;
  std::string torch_range;
  bool matches = false;
  std::string difference;  // what differs, "" on a match
  // False when the expectation holds only on a CPU with flags this one lacks (cpu_flags): then
  // it says nothing here.
  bool applies = true;
};
std::optional<ExpectedInRelease> CompareWithEntry(const ReleaseFinding& f, const std::string& torch,
                                                  const Verdict& observed);

// A report's release (the one it was found in) when that release ran its case and did not find it
// (the finding depends on what ran before it in the campaign); "" otherwise.
std::string NotReproducedWhereFound(const ReleaseFinding& f, const std::vector<ReleaseCell>& cells);

}  // namespace mmdiff
