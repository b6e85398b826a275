// Validation of JSON files against the schemas in reports/schema/, with the venv's jsonschema
// package.
#pragma once

#include <string>
#include <vector>

namespace mmdiff::e2e {

struct SchemaCheck {
  int exit_code = -1;  // validate.py: 0 all valid, 1 some file invalid, 2 bad usage (no jsonschema,
                       // unknown schema)
  std::string
      output;  // one line per file: "ok FILE (schema)" or "invalid FILE (schema): at /where: why"
  bool all_valid() const { return exit_code == 0; }
};

// Runs reports/schema/validate.py with the venv python on `files`, against the schema named
// `schema` (e.g. "report.v1"), or, when it is "", against the schema each file's format and
// version name. The Draft 2020-12 validator also checks every schema itself.
SchemaCheck ValidateJson(const std::vector<std::string>& files, const std::string& schema = "");

}  // namespace mmdiff::e2e
