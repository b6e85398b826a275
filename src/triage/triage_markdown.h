// triage.md: the ranked bucket table, per-bucket details, the campaigns read and the files skipped.
#pragma once

#include <string>
#include <vector>

#include "src/triage/triage_bucket.h"

namespace mmdiff::triage {

// `ranked` is RankBuckets(d); links are relative to `out_dir`, where triage.md is written; each
// bucket lists up to `max_examples` example reports.
std::string TriageMarkdown(const TriageData& d, const std::vector<const TriageBucket*>& ranked,
                           const std::string& out_dir, size_t max_examples);

// The explanation of the ranking order, shared by the outputs and --help.
std::string RankingExplanation();

}  // namespace mmdiff::triage
