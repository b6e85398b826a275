// Severity of divergence kinds and the ranking of merged buckets.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "src/triage/triage_bucket.h"

namespace mmdiff::triage {

// DivergenceSeverity (oracles/verdict.h) of the kind a report names; 0 for an unknown kind.
// A bucket's severity is the highest over its divergences.
int Severity(std::string_view kind);
// One line per level, for --help and the outputs.
std::string_view SeverityLegend();

// The triage order: new root causes first (TriageBucket::IsNew), those a catalogue entry expects
// only on other releases first among them (IsBack), those not reproduced standalone last, then the
// known and baseline ones; new ones by the class of their root cause
// (src/report/finding_class.h: a compiled path's wrong result, raising, accepting; eager's own
// bugs; error classes and meta; by design); then filable, unclassified, precision-only; within that
// the regressions (`mmdiff releases`: present in the newest release run, absent in an older one)
// first, then by count (descending), then severity (descending), then hash (ascending) so that
// ties are stable.
bool RanksBefore(const TriageBucket& a, const TriageBucket& b);
std::vector<const TriageBucket*> RankBuckets(const TriageData& d);

// The ranked buckets in the groups the outputs list: new root causes (in full), new ones not
// reproduced standalone (one line each, with what was tried), known ones (one line each, with the
// catalogue entry's title) and ones a baseline campaign saw (one line each).
struct BucketGroups {
  std::vector<const TriageBucket*> fresh, unreproduced, known, baseline;
};
BucketGroups GroupBuckets(const std::vector<const TriageBucket*>& ranked);
// "3 new root causes, 2 known, 1 in the baseline" (the last two only when there are any).
std::string GroupCounts(const BucketGroups& g);

}  // namespace mmdiff::triage
