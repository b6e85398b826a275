// Behaviour features of a judged case: what torch did, as short strings, for the program fuzzer's
// feedback (libFuzzer extra counters) and for measuring how many distinct behaviours a corpus keeps
// (scripts/bench-feedback). Sizes and values never enter a feature.
#pragma once

#include <string>
#include <vector>

#include "src/report/report.h"

namespace mmdiff {

// The behaviour features of a case, sorted and without duplicates: per path its outcome and error
// class; per path and per op of the program, the operand dtype set and device set with that
// outcome; the contract rule; per divergence its kind, blame and class, and for value divergences
// the error band (log2 of error over allowed error).
std::vector<std::string> BehaviourFeatures(const CaseRun& c);

}  // namespace mmdiff
