// Promotion: a report.json turned into a regression entry that expects the report's verdict on the
// torch version the report was made with.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "src/support/status.h"

namespace mmdiff {

struct PromoteOptions {
  std::string source;       // the report's file, recorded in the entry
  std::string title;        // "" = the report's headline
  std::string note;         // "" = "observed on torch V (mmdiff M): <headline>"
  std::string torch_range;  // "" = "==<the report's torch version without its local suffix>"
};

// The entry (format "mmdiff.regression", version 1) for a report's text: its program, input
// recipe and paths, and one expectation with the report's verdict and each divergence's kind and
// blamed path. Errors (not a report, an unknown report version, a bad program, a torch range that
// leaves out the report's own torch) say what is wrong.
// The entry is checked by parsing it back (ParseRegressionEntry) before it is returned.
Result<nlohmann::json> PromoteReport(const std::string& report_text, const PromoteOptions& o);

// "inductor-error_behaviour-<report id>.json": a file name for the entry.
std::string PromotedFileName(const nlohmann::json& entry);

}  // namespace mmdiff
