// A file holding a case (a program, `mmdiff gen --case` output, a report, a regression entry), read
// once: its document and its program. `mmdiff run` and `mmdiff mutate` take such files.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "src/ir/program.h"
#include "src/support/status.h"

namespace mmdiff::cli {

struct CaseFile {
  nlohmann::json doc;
  Program program;
};
// A file naming another format, or a report or entry version this mmdiff does not read, is not
// taken for the program inside it. Errors name the file.
Result<CaseFile> LoadCaseFile(const std::string& file);
// Its program alone.
Result<Program> LoadProgram(const std::string& file);

}  // namespace mmdiff::cli
