// Replay of regression entries (corpus/regression/*.json) and program-fuzzer artifacts
// (artifact.h): run each saved program through its paths, compare the verdict with the one expected
// for the installed torch, and say how it went.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "oracles/verdict.h"
#include "src/exec/supervisor.h"
#include "src/ir/input_recipe.h"
#include "src/ir/outcome.h"
#include "src/ir/program.h"
#include "src/report/known.h"
#include "src/report/regression_entry.h"
#include "src/report/run_case.h"

namespace mmdiff {

enum class ReplayStatus {
  kMatch,         // the verdict is the expected one
  kFixed,         // an expected divergence is gone and nothing new appeared (fixed upstream?)
  kNewBehaviour,  // the verdict changed in another way: a divergence nobody expected
  kSkipped,       // not run: no expectation for this torch, or a device or path is missing here
  kInvalid,       // unreadable: missing file, malformed JSON, unknown version or path
};
// "match", "fixed", "new-behaviour", "skipped", "invalid".
std::string_view ReplayStatusName(ReplayStatus s);

// One line of the replay table.
struct ReplayRow {
  std::string file;   // as found (a folder's entries as folder/name.json)
  std::string title;  // the entry's title, if it was read
  ReplayStatus status = ReplayStatus::kInvalid;
  std::string torch_range;  // the expectation that applied; "" when none did
  std::string expected;     // e.g. "diverge: error_behaviour [inductor]", "agree"
  std::string observed;     // e.g. "diverge: value [eager]"; "" when not run
  std::string detail;       // what differs, why skipped, or why invalid
  std::string note;         // shown for a match too: a reproduced artifact's bucket and headline
  double seconds = 0;       // time spent running the entry's paths
};

// An entry read and checked before anything runs.
struct PreparedEntry {
  ReplayRow row;
  std::optional<RegressionEntry> entry;        // set when the file parsed
  std::optional<VersionExpectation> expected;  // set when an expectation covers the torch version
  bool pending = false;   // still to be run (the row's status is not final yet)
  bool artifact = false;  // a program-fuzzer input with the implicit expectation "diverge"
};

// What the machine offers, as the worker says it.
struct ReplayEnvironment {
  std::string torch_version;  // e.g. "2.15.0+cu132"
  bool has_gpu = false;
  std::vector<PathInfo> paths;  // every path the worker knows
  bool test_paths = false;      // whether the worker was asked for test-only paths
  // Where set, an artifact's findings are looked up in it (DescribeCatalogueMatch) on this torch.
  const KnownCatalogue* catalogue = nullptr;
};

// Runs a program on paths (src/report/run_case.h): an entry's calls before, then its case.
using RunPathsFn = PathRunner;

// The files to replay, in order: each file argument as given; of each folder, its *.json files and
// libFuzzer artifacts (crash-*, timeout-*, oom-*, leak-*), sorted by name. A missing argument, or a
// folder with none of those, becomes an invalid row in `invalid` instead.
std::vector<std::string> CollectReplayFiles(const std::vector<std::string>& args,
                                            std::vector<ReplayRow>& invalid);

// Reads and parses one entry and picks its expectation for `torch_version`. The row is invalid (bad
// file), skipped (no expectation for the version, or it needs a GPU this machine lacks), or
// pending.
PreparedEntry PrepareEntry(const std::string& file, const std::string& torch_version, bool has_gpu);

// Marks a prepared row pending, or skipped when its program needs cuda and this machine has none.
void PendUnlessGpuMissing(PreparedEntry& e, bool has_gpu);

// Runs a pending entry through its paths with `run` (unless a path is unknown: invalid; or
// unavailable here: skipped), judges the results and classifies the verdict; returns the verdict.
// A diverging artifact's row gets its bucket hash and headline as its note.
Verdict RunEntry(PreparedEntry& e, const ReplayEnvironment& env, const RunPathsFn& run);

// How an observed verdict relates to an expectation; the detail says what differs ("" on a match).
std::pair<ReplayStatus, std::string> ClassifyVerdict(const Verdict& observed,
                                                     const VersionExpectation& expected);

// "agree", "diverge: error_behaviour [inductor], value [any path]".
std::string DescribeExpectation(const VersionExpectation& e);
// "agree", "diverge: error_behaviour [inductor], value [eager]"; crash and timeout name their path.
std::string DescribeVerdict(const Verdict& v);

struct ReplayCounts {
  int match = 0, fixed = 0, new_behaviour = 0, skipped = 0, invalid = 0;
  int total() const { return match + fixed + new_behaviour + skipped + invalid; }
};
ReplayCounts CountRows(const std::vector<ReplayRow>& rows);

// The table (entry, torch range, expected, observed, status), a line per non-match with its file
// and detail, a line per match with a note, and a one-line total.
std::string FormatReplayTable(const std::vector<ReplayRow>& rows, const std::string& torch_version);

// JUnit XML: one testcase per row; fixed and new-behaviour rows are failures (the difference as the
// message), invalid rows errors, skipped rows skipped (with the reason); a note goes to system-out.
std::string ReplayJunitXml(const std::vector<ReplayRow>& rows, const std::string& torch_version);

}  // namespace mmdiff
