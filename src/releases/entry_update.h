// `mmdiff releases --update`: a regression entry's expected ranges rewritten from what the releases
// did with it, where a release contradicts them or none covers it.
#pragma once

#include <string>
#include <vector>

#include "src/releases/release_table.h"

namespace mmdiff {

struct EntryUpdate {
  bool changed = false;
  std::string refused;  // why the entry is not rewritten ("" when it may be)
  std::string diff;     // "- RANGE: old expectation" and "+ RANGE: new one" lines
  std::string text;     // the entry's file with its new "expected" (set when changed)
};

// The update of the entry `row` ran (its file's text `file_text`, parsed as `entry`): nothing when
// every release that ran matches the expectation covering it. Otherwise the ranges are rebuilt at
// the releases that ran and the bounds of the old ranges: at each, the old expectation where the
// release did not run or matched it (kept whole, note and all), else what the release did (with a
// note saying so and `date`); consecutive points with one expectation make one range, ">=A,<B",
// the last open above. An entry with CPU-specific expectations (cpu_flags) is refused.
EntryUpdate PlanEntryUpdate(const std::string& file_text, const RegressionEntry& entry,
                            const ReleaseRow& row, const std::string& date);

}  // namespace mmdiff
