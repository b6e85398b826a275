// JSON Schema validation for the end-to-end tests.
#include "tests/schema_check.h"

#include "tests/e2e_util.h"

namespace mmdiff::e2e {

namespace {

std::string Quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

}  // namespace

SchemaCheck ValidateJson(const std::vector<std::string>& files, const std::string& schema) {
  std::string command = Quote(VenvPython()) + " " +
                        Quote(std::string(MMDIFF_SOURCE_DIR) + "/reports/schema/validate.py");
  if (!schema.empty()) command += " --schema " + Quote(schema);
  for (const auto& f : files) command += " " + Quote(f);
  CommandResult r = RunShell(command);
  return {r.exit_code, r.output};
}

}  // namespace mmdiff::e2e
