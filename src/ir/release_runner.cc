// The per-case runner of `mmdiff releases`.
#include "src/ir/release_runner.h"

#include <algorithm>
#include <sstream>

#include "mmdiff/python/release_runner.h"
#include "mmdiff/python/repro_aoti.h"
#include "mmdiff/python/repro_outcome.h"
#include "mmdiff/python/root_cause.h"
#include "src/ir/paths.h"
#include "src/ir/python_emitter.h"

namespace mmdiff {

bool ReleaseRunnerRuns(std::string_view path) {
  const PathRow* row = FindPath(path);
  return row && row->release_runner;
}

std::string EmitReleaseRunner(const Program& p, const InputRecipe& r,
                              const std::vector<std::string>& paths,
                              const std::vector<PriorCall>& before) {
  std::vector<std::string> run;
  for (const auto& path : paths)
    if (ReleaseRunnerRuns(path)) run.push_back(path);  // fixed names: safe between quotes
  auto runs = [&](ReproKind k) {
    return std::any_of(run.begin(), run.end(),
                       [&](const std::string& path) { return FindPath(path)->repro == k; });
  };
  const bool ts = runs(ReproKind::kTorchScript), aoti = runs(ReproKind::kAoti);
  std::ostringstream o;
  o << "#!/usr/bin/env python3\n\"\"\"mmdiff releases: one case through its Python paths in this "
       "torch release; writes\nwhat each path returned to the file named by the first "
       "argument.\"\"\"\n"
       "import math\nimport sys\n\nimport torch\nimport torch._dynamo\n\n"
       "PATHS = [";
  for (size_t i = 0; i < run.size(); ++i) o << (i ? ", " : "") << '"' << run[i] << '"';
  o << "]\n\n";
  if (ts)
    o << "TS_SOURCE = \"\"\"\n"
      << EmitFunction(p, "f", FunctionDialect::kTorchScriptFromPython) << "\"\"\"\n\n\n";
  o << EmitInputBuilder(p, r) << "\n\n"
    << EmitFunction(p, "f") << "\n\n"
    << "REPRODUCER_FAILED = " << kReproFailedExitCode << "\n\n\n"
    << embedded::kRootCausePy << "\n\n"
    << embedded::kReproOutcomePy << "\n\n";
  if (!before.empty()) o << EmitCallsBefore(p, before) << "\n\n";
  if (aoti) o << embedded::kReproAotiPy << "\n\n";
  o << embedded::kReleaseRunnerPy;
  return o.str();
}

}  // namespace mmdiff
