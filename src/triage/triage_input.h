// Triage inputs: finding campaigns (summary.json) and reports (report.json) under the given paths,
// reading them, and merging their buckets.
#pragma once

#include <string>
#include <vector>

#include "src/support/status.h"
#include "src/triage/triage_bucket.h"

namespace mmdiff::triage {

// Each input is a campaign folder (summary.json + findings/*/report.json), a folder holding several
// (shards: searched recursively), a report.json, or a summary.json. A report belongs to the
// nearest campaign folder above it; its bucket's count comes from that campaign's summary entry,
// or is 1 for a report without a (readable) summary. The same file reached twice counts once.
//
// Bad files (unreadable, malformed or truncated JSON, another format or version, a summary entry
// whose report is missing) are skipped and listed in TriageData::skipped. Errors, where nothing is
// written: an input that does not exist, a folder with neither summary.json nor report.json under
// it, or no input file that could be read at all.
Result<TriageData> LoadTriageInputs(const std::vector<std::string>& inputs);

}  // namespace mmdiff::triage
