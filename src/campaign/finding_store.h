// A campaign's finding folders: written whole or not at all (a temporary folder renamed into
// place), with the case that produced them recorded, so that a resumed campaign can adopt folders
// written after its last checkpoint instead of losing or duplicating them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "src/campaign/reduce_finding.h"
#include "src/report/report.h"

namespace mmdiff {

// What a finding folder records about its case (DIR/findings/<folder>/case.json).
struct FindingCase {
  std::string hash;       // the bucket: the hash of the case's unreduced signature
  std::string signature;  // ... and that signature
  // The folder's name: the hash of the root cause (the reduced case's signature, or the unreduced
  // one where reduction kept nothing or did not run). Buckets that reduce to one root cause share
  // it; it holds the smallest case of them all.
  std::string folder;
  std::string root_cause;  // the signature the folder is named after
  std::string headline;
  int64_t index = -1;
  uint64_t seed = 0;
  double found_s = 0;
  std::optional<KnownRecord> known;  // the catalogue entry of a known root cause; none when new
  // The entry that matches a new root cause without claiming it on this torch (CaseRun::unclaimed).
  std::optional<KnownRecord> unclaimed;
  // The new root cause's standalone check (the folder's report records it too); none for a known
  // one.
  std::optional<StandaloneRecord> standalone;
  // The class of the folder's lead case (CaseClass), as case.json records it; none in an older one.
  std::optional<RootCauseClass> root_class;
  // In a steered campaign: the focus the case generated with and the rewrites its compiled runs
  // reached, which a resumed campaign's steering adopts with the case. "" and none otherwise.
  std::string focus;
  std::vector<std::string> rewrites;
};

// Writes out_dir/findings/<folder>/ with report.json, program.json, repro.py and case.json (and,
// given a reduction that kept steps, reduced/ with the reduced case), replacing an earlier folder
// for the same root cause atomically.
Status StoreFinding(const std::string& out_dir, const FindingCase& fc, const CaseRun& c,
                    const RunContext& ctx, const ReducedFinding* reduced = nullptr);

// Finishes or removes what a kill left behind (temporary and replaced folders) and lists every
// complete finding folder with its case.
std::vector<FindingCase> RecoverFindings(const std::string& out_dir);

// Removes out_dir/findings/<folder>/ (a root cause no bucket leads to any more) atomically: renamed
// to a temporary name first, which RecoverFindings removes after a kill.
void DropFinding(const std::string& out_dir, const std::string& folder);

}  // namespace mmdiff
