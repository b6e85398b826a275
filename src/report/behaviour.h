// Behaviour features of a judged case: what torch did, as short strings, for the program fuzzer's
// feedback (libFuzzer extra counters) and for measuring how many distinct behaviours a corpus keeps
// (scripts/bench-feedback). Sizes and values never enter a feature.
#pragma once

#include <string>
#include <vector>

#include "src/report/report.h"

namespace mmdiff {

enum class FeatureSet {
  // Per path its outcome and error class; per path and per op of the program, the dtype set and
  // device set of ALL the program's inputs with that outcome; the contract rule; per divergence its
  // kind, blame and class, and for value divergences the error band (log2 of error over allowed
  // error); a diverging case's bucket signature. Fine: every new subset of input dtypes is a new
  // feature.
  kFine,
  // Per path its outcome and error class; per node and path, the op, its operands' dtype tuple and
  // device set, with the path's outcome; the contract rule; per divergence its kind and blamed
  // path. No dtype sets over the whole program, no error bands.
  kCoarse,
  // Per path its outcome and error class; the contract rule; per divergence its kind and blamed
  // path; and a diverging case's bucket signature: novelty where the fuzzer's findings are.
  kBuckets,
  // The buckets set, and for a program its contract rejects, the rejection site: rule, violating
  // op (batched or not), its operand dtypes and devices — what a contract bucket names, met whether
  // or not a path disagrees there, so the corpus keeps a way to every place a bucket can be.
  kSites,
};

// The features of a case in `set`, sorted and without duplicates. Every set also names, per
// compiled path, what it reported about its compilation (PathResult::compile: the internals
// Inductor chose, e.g. "compile|inductor|extern:mm", and whether the run compiled or reused).
std::vector<std::string> BehaviourFeatures(const CaseRun& c, FeatureSet set = FeatureSet::kFine);

}  // namespace mmdiff
