// Running findings across torch releases: every (finding, release) pair on a few threads, each
// through a ReleaseRunner, judged with that release's contract into a cell of the table.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "src/ir/outcome.h"
#include "src/releases/release_finding.h"
#include "src/releases/release_run.h"
#include "src/releases/release_table.h"
#include "src/releases/release_venvs.h"

namespace mmdiff {

struct ReleasesRunOptions {
  std::vector<ReleaseVenv> venvs;  // the table's columns, newest first
  ReleaseRunSettings settings;
  int jobs = 1;  // runners at once
  // Called (under a lock) with one line per finished cell.
  std::function<void(const std::string&)> progress;
};

// The table for `findings`; references[i] holds this build's reference and reference_float64
// results of findings[i]'s case.
// An entry's finding is picked for these releases (PickEntryFinding).
ReleasesTable RunAcrossReleases(std::vector<ReleaseFinding> findings,
                                const std::vector<std::vector<PathResult>>& references,
                                const ReleasesRunOptions& o);

}  // namespace mmdiff
