// Lossless JSON form of a Program ("format": "mmdiff.program", "version": 1).
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "src/ir/program.h"
#include "src/support/status.h"

namespace mmdiff {

inline constexpr int kProgramFormatVersion = 1;

nlohmann::json ProgramToJson(const Program& p);
// Parses and checks field types; an error names the offending field or node. Does not verify
// the program's semantics: call Verify() on the result.
Result<Program> ProgramFromJson(const nlohmann::json& j);
// The program a parsed document holds (itself, or the one a report, regression entry or case
// embeds under "program"): ProgramFromJson, then Verify.
Result<Program> ProgramFromDocument(const nlohmann::json& j);
// Parses text (within the limits of ParseJsonBounded), then ProgramFromDocument.
Result<Program> ParseProgramText(const std::string& text);

}  // namespace mmdiff
