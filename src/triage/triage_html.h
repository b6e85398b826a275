// triage.html: one self-contained page (inline CSS, inline SVG plots, a little inline JS, nothing
// fetched) with the three plots, the ranked bucket table, the campaigns and the skipped files.
#pragma once

#include <string>
#include <vector>

#include "src/triage/triage_bucket.h"

namespace mmdiff::triage {

// `ranked` is RankBuckets(d); links are relative to `out_dir`, where triage.html is written; each
// bucket links up to `max_examples` example reports. Every text from a report is HTML-escaped.
// The script makes the table sortable by a click on a column header, writes the number of drawn
// marks of each plot into its figure's data-marks attribute, and sets data-triage-ready="1" on
// <html> when it has run.
std::string TriageHtml(const TriageData& d, const std::vector<const TriageBucket*>& ranked,
                       const std::string& out_dir, size_t max_examples = 3);

}  // namespace mmdiff::triage
