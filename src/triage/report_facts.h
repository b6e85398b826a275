// Reading one report.json for triage: format and version checks, and the facts triage ranks and
// plots (bucket, class, severity, ops, dtypes, error samples against K).
#pragma once

#include <nlohmann/json.hpp>

#include "src/support/status.h"
#include "src/triage/triage_bucket.h"

namespace mmdiff::triage {

// Checks that `report` is an mmdiff report this version reads ("format": "mmdiff.report",
// "version": kReportFormatVersion) with a bucket {hash, signature} and a verdict with a list of
// divergences; the error names the first field that is wrong. Program facts and error samples are
// best effort: a program that does not parse only costs the K of its samples (counted in
// unplotted_errors).
Result<ReportFacts> ReadReportFacts(const nlohmann::json& report);

}  // namespace mmdiff::triage
