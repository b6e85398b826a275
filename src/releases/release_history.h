// A finding across torch releases: what each release did with it (a cell of `mmdiff releases`'s
// table), and what that says (present since when, new in, fixed in).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "src/report/regression_entry.h"
#include "src/support/status.h"

namespace mmdiff {

enum class ReleaseState {
  kPresent,    // the finding: its bucket (a report) or its expected divergence (an entry)
  kOther,      // the paths diverge, but otherwise
  kAgree,      // every path agrees
  kCannotRun,  // nothing was compared in this release (why: the cell's detail)
};
// "present", "other", "agree", "cannot-run".
std::string_view ReleaseStateName(ReleaseState s);
Result<ReleaseState> ParseReleaseState(std::string_view name);

struct ReleaseCell {
  std::string release;  // as set up, e.g. "2.11.0"
  std::string torch;    // torch.__version__ there, e.g. "2.11.0+cu130"
  ReleaseState state = ReleaseState::kCannotRun;
  std::string observed;  // the verdict, e.g. "diverge: error_behaviour [inductor]"
  std::string buckets;   // the observed findings' bucket hashes, comma-separated
  std::string detail;    // why it cannot run; the headline of another bucket
  double seconds = 0;
  // The verdict as an entry's expectation says it (kind and blamed path of each divergence, each
  // once), for `mmdiff releases --update`.
  bool diverges = false;
  std::vector<ExpectedDivergence> divergences;
};

enum class ReleaseLabel {
  kUnknown,       // no release could run it
  kAbsent,        // present in none of the releases that ran
  kLongStanding,  // present in the oldest and the newest release that ran
  kRegression,    // present in the newest, absent in an older one
  kFixed,         // present in an older release, absent in the newest
  kIntermittent,  // present, then absent, then present again
};
// "unknown", "absent", "long-standing", "regression", "fixed", "intermittent".
std::string_view ReleaseLabelName(ReleaseLabel l);
Result<ReleaseLabel> ParseReleaseLabel(std::string_view name);

struct ReleaseHistory {
  ReleaseLabel label = ReleaseLabel::kUnknown;
  // One line: "present in 2.11.0–2.15.0", "new in 2.14.1", "present in 2.11.0, fixed in 2.12.0",
  // "present in 2.11.0, absent in 2.15.0" (the release that fixed it is not known: the next one
  // was not run), "absent in 2.11.0–2.15.0".
  std::string summary;
  std::string first_present, last_present;  // "" when never present
  std::string fixed_in;  // the release after the last present one, when it is the next release
  std::string new_in;    // the first present one, when the release before it ran and lacked it
};

// Whether b is the release right after a (the next minor of the same major, or the same minor):
// with both run, a change between them happened in b.
bool NextRelease(const std::string& a, const std::string& b);

// What the cells say, in release order (they may come in any order).
ReleaseHistory SummarizeReleases(std::vector<ReleaseCell> cells);

nlohmann::json ReleaseHistoryToJson(const ReleaseHistory& h);
// An error names the field that is wrong.
Result<ReleaseHistory> ReleaseHistoryFromJson(const nlohmann::json& j);

}  // namespace mmdiff
