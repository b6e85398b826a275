// Reading a case file: its format checked, then its program.
#include "src/cli/case_file.h"

#include "src/ir/program_json.h"
#include "src/report/report.h"
#include "src/support/files.h"
#include "src/support/json_limits.h"

namespace mmdiff::cli {

Result<CaseFile> LoadCaseFile(const std::string& file) {
  auto text = ReadFile(file);
  if (!text.ok()) return text.status();
  auto doc = ParseJsonBounded(text.value());
  if (!doc.ok()) return Status::Error(file + ": " + doc.error());
  if (Status s = CheckCaseFileFormat(doc.value()); !s.ok())
    return Status::Error(file + ": " + s.message());
  auto p = ProgramFromDocument(doc.value());
  if (!p.ok()) return Status::Error(file + ": " + p.error());
  return CaseFile{std::move(doc.value()), std::move(p.value())};
}

Result<Program> LoadProgram(const std::string& file) {
  auto c = LoadCaseFile(file);
  if (!c.ok()) return c.status();
  return c.value().program;
}

}  // namespace mmdiff::cli
