// The traits of paths named in files: a report's path results and a regression entry's paths and
// blamed paths record names only, and are read back where no worker is asked (triage, the known
// catalogue). Live results carry the traits their worker published (PathResult::traits); these are
// the same traits, for mmdiff's own paths, read from the path catalogue (src/ir/paths.h):
// SupervisorE2E.PublishedTraitsAreTheRecordedOnes checks every path of the worker against it.
#pragma once

#include <string>
#include <vector>

#include "src/ir/outcome.h"
#include "src/ir/path_traits.h"

namespace mmdiff {

// The traits mmdiff's worker publishes for the path `name`; default traits (nothing compiled, on
// demand or needing a GPU) for a name it has no path of.
PathTraits RecordedPathTraits(const std::string& name);

// Each result with the recorded traits of its path (results read back from a report).
void SetRecordedTraits(std::vector<PathResult>& results);

}  // namespace mmdiff
