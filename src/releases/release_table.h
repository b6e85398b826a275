// `mmdiff releases`'s table: release × finding → what the release did with it, and each
// finding's history across the releases; as text and as JSON (reports/schema/releases.v1).
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "src/releases/release_finding.h"
#include "src/releases/release_history.h"

namespace mmdiff {

inline constexpr int kReleasesFormatVersion = 1;

struct ReleaseColumn {
  std::string release;  // as set up, e.g. "2.11.0"
  std::string torch;    // torch.__version__ as a runner printed it ("" until one ran)
};

struct ReleaseRow {
  std::string file, title;
  bool entry = false;              // a regression entry (else a report)
  std::string bucket;              // a report's bucket hash
  std::vector<ReleaseCell> cells;  // one per column, in column order
  // An entry's expectation per column (nullopt: none covers that release, or not an entry).
  std::vector<std::optional<ExpectedInRelease>> expected;
  ReleaseHistory history;
};

struct ReleasesTable {
  std::vector<ReleaseColumn> releases;  // newest first
  std::vector<ReleaseRow> rows;
};

// Cells of entries whose observed verdict differs from what the entry expects for that release
// (only expectations that apply on this CPU).
int CountUnexpected(const ReleasesTable& t);

// The table (a column per release, newest first, and the history), then a line per cell worth a
// word: why a release could not run a finding, the headline of another bucket, an entry's
// expectation that the run contradicts.
std::string FormatReleasesTable(const ReleasesTable& t);

nlohmann::json ReleasesTableToJson(const ReleasesTable& t);
// The table with only row `i`: what `mmdiff releases` writes next to a report (releases.json in
// its finding folder), where triage reads it.
nlohmann::json FindingReleasesJson(const ReleasesTable& t, size_t i);
// The history of the first finding of a releases document (a finding folder's releases.json); an
// error names what is wrong (another format or version, no finding, a bad history).
Result<ReleaseHistory> FirstFindingHistory(const nlohmann::json& j);

}  // namespace mmdiff
