// Severity of divergence kinds and the ranking of merged buckets.
#pragma once

#include <string_view>
#include <vector>

#include "src/triage/triage_bucket.h"

namespace mmdiff::triage {

// How bad a divergence kind is for a user of torch, higher is worse:
//   5 crash, timeout   (the process dies or hangs)
//   4 error_behaviour  (one path raises, the other silently returns)
//   3 error_class      (both raise, with different exception classes)
//   2 dtype, shape, device, meta  (a wrong result type, or fake tensors that mispredict eager)
//   1 value            (a number beyond what correct floating point allows)
//   0 contract and anything unknown (eager disagrees with mmdiff's contract table: often a gap in
//     the table rather than a bug)
// A bucket's severity is the highest over its divergences.
int Severity(std::string_view kind);
// One line per level, for --help and the outputs.
std::string_view SeverityLegend();

// The triage order: filable, then unclassified, then precision-only buckets; within a class by
// count (descending), then severity (descending), then hash (ascending) so that ties are stable.
bool RanksBefore(const TriageBucket& a, const TriageBucket& b);
std::vector<const TriageBucket*> RankBuckets(const TriageData& d);

}  // namespace mmdiff::triage
