// The triage workflow: load and merge the inputs, rank the buckets, write triage.md and
// triage.html (atomically) into the output folder.
#pragma once

#include <string>
#include <vector>

#include "src/triage/triage_bucket.h"

namespace mmdiff::triage {

struct TriageOptions {
  std::vector<std::string>
      inputs;  // campaign folders, shard folders, report.json or summary.json files
  std::string out_dir = "triage-out";
  size_t max_examples = 3;  // example reports listed per bucket
};

enum class TriageFailure {
  kNone,
  kBadInput,  // a missing input path, a folder without campaigns or reports, nothing readable
  kOutput,    // the output folder cannot be created or written
};

struct TriageOutcome {
  TriageFailure failure = TriageFailure::kNone;
  std::string message;               // what failed, naming the path
  TriageData data;                   // what was read (with the skipped files)
  std::vector<std::string> written;  // the files written
};

TriageOutcome RunTriage(const TriageOptions& o);

}  // namespace mmdiff::triage
