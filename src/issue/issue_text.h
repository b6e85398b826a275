// The text a person files upstream for a new root cause (issue.md beside repro.py), in the shape of
// PyTorch's bug report: a title a maintainer would search for; what happens and what was expected;
// the reduced repro.py inline; torch.compile's stages (the ablation); the versions collect_env
// would give that matter here (torch, Python, OS, the CPU and its AVX-512/AMX flags); whether it is
// a regression (`mmdiff releases`); the upstream issues the catalogue relates it to.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "src/report/known.h"
#include "src/support/status.h"

namespace mmdiff {

struct IssueSources {
  nlohmann::json report;  // report.json of the case to file (the reduced one where there is one)
  std::string repro;      // its repro.py
  // releases.json next to the report (`mmdiff releases`), where it was run; none otherwise.
  std::optional<nlohmann::json> releases;
  std::string report_path;  // as the text names it
};

// The issue's markdown. Every fact comes from the report (its headline, class, verdict, ablation,
// versions and catalogue match) or the releases record; what the report lacks (an older report's
// OS and CPU) is said to be unknown. An error where the report is not one this mmdiff reads or
// does not diverge.
Result<std::string> IssueMarkdown(const IssueSources& s);

// Where the report records no catalogue match (`mmdiff run` does not look): the catalogue's entry
// for its root cause on the report's torch, claiming it ("catalogue") or not ("unclaimed"), put
// into s.report's "finding" for the text's related issues.
void AddCatalogueMatch(IssueSources& s, const KnownCatalogue& catalogue);

// Reads DIR (a finding folder) or a report.json: the reduced case where the folder has one
// (reduced/report.json), its repro.py and releases.json (the folder's, else the report's own).
Result<IssueSources> ReadIssueSources(const std::string& path);

}  // namespace mmdiff
