// The triage workflow: load and merge the inputs, rank the buckets, write triage.md and
// triage.html (atomically) into the output folder.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "src/report/known.h"
#include "src/triage/triage_bucket.h"

namespace mmdiff::triage {

struct TriageOptions {
  std::vector<std::string>
      inputs;  // campaign folders, shard folders, report.json or summary.json files
  std::string out_dir = "triage-out";
  size_t max_examples = 3;  // example reports listed per bucket
  // Known behaviours (src/report/known.h): their buckets are listed after the new ones, one line
  // each with the entry's title.
  std::vector<std::string> known_paths;
  // The torch release a bucket whose reports record none is judged on (mmdiff's own).
  std::string torch;
  // Earlier campaigns: a root cause they saw is not new (listed after the new ones, one line each).
  std::vector<std::string> baseline;
};

enum class TriageFailure {
  kNone,
  kBadInput,  // a missing input path, a folder without campaigns or reports, nothing readable; a
              // bad catalogue or baseline
  kOutput,    // the output folder cannot be created or written
};

struct TriageOutcome {
  TriageFailure failure = TriageFailure::kNone;
  std::string message;               // what failed, naming the path
  TriageData data;                   // what was read (with the skipped files)
  std::vector<std::string> written;  // the files written
};

TriageOutcome RunTriage(const TriageOptions& o);

// Marks each bucket known (the catalogue's entry for one of its root causes) and in_baseline (one
// of its root causes is in `baseline`).
void MarkKnown(TriageData& d, const KnownCatalogue& catalogue,
               const std::set<std::string>& baseline);

}  // namespace mmdiff::triage
