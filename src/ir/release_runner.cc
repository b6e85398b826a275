// The per-case runner of `mmdiff releases`.
#include "src/ir/release_runner.h"

#include <algorithm>
#include <sstream>

#include "mmdiff/python/knob_variants.h"
#include "mmdiff/python/release_runner.h"
#include "mmdiff/python/repro_aoti.h"
#include "mmdiff/python/repro_module.h"
#include "mmdiff/python/repro_outcome.h"
#include "mmdiff/python/root_cause.h"
#include "src/ir/paths.h"
#include "src/ir/python_emitter.h"

namespace mmdiff {

bool ReleaseRunnerRuns(std::string_view path) {
  const PathRow* row = FindPath(path);
  return row && row->release_runner;
}

namespace {

// How the runner runs a path, from its row (release_runner.py's _rr_path): f called as it is, f
// called on meta copies of the inputs, torch.compile with the row's backend, TorchScript's
// CompilationUnit, or an AOTInductor package; "" for a kind it has no action for.
const char* RunnerAction(const PathRow& row) {
  switch (row.kind) {
    case PathKind::kEager:
      return "call";
    case PathKind::kEagerMeta:
      return "call_on_meta";
    case PathKind::kTorchCompile:
      return "torch_compile";
    case PathKind::kTorchScript:
      return "jit_compilation_unit";
    case PathKind::kAoti:
      return "aoti_package";
    default:
      return "";
  }
}

}  // namespace

std::string EmitReleaseRunner(const Program& p, const InputRecipe& r,
                              const std::vector<std::string>& paths,
                              const std::vector<PriorCall>& before) {
  std::vector<const PathRow*> run;
  for (const auto& path : paths)
    if (const PathRow* row = FindPath(path); row && row->release_runner && *RunnerAction(*row))
      run.push_back(row);
  auto runs = [&](ReproKind k) {
    return std::any_of(run.begin(), run.end(), [&](const PathRow* row) { return row->repro == k; });
  };
  const bool ts = runs(ReproKind::kTorchScript), aoti = runs(ReproKind::kAoti);
  std::ostringstream o;
  o << "#!/usr/bin/env python3\n\"\"\"mmdiff releases: one case through its Python paths in this "
       "torch release; writes\nwhat each path returned to the file named by the first "
       "argument.\"\"\"\n"
       "import math\nimport sys\n\nimport torch\nimport torch._dynamo\n\n"
       "PATHS = [";  // (path, how the runner runs it, torch.compile's backend): the catalogue's
                     // fixed names, safe between quotes
  for (size_t i = 0; i < run.size(); ++i)
    o << (i ? ", " : "") << "(\"" << run[i]->name << "\", \"" << RunnerAction(*run[i]) << "\", \""
      << run[i]->torch_backend << "\")";
  o << "]\n";
  // The knob variants' settings (catalogue literals), dynamic=True and torch.no_grad().
  std::string variants;
  for (const PathRow* row : run) {
    if (row->variant_of[0] == '\0') continue;
    std::string settings;
    for (const KnobSetting& k : row->settings)
      settings += (settings.empty() ? "" : ", ") + std::string("'") + k.name + "': " + k.value;
    variants += (variants.empty() ? "" : ", ") + std::string("\"") + row->name + "\": ({" +
                settings + "}, " + (std::string_view(row->knob) == "dynamic" ? "True" : "False") +
                ", " + (row->no_grad ? "True" : "False") + ")";
  }
  if (!variants.empty()) o << "VARIANTS = {" << variants << "}\n";
  o << "\n";
  if (ts)
    o << "TS_SOURCE = \"\"\"\n"
      << EmitFunction(p, "f", FunctionDialect::kTorchScriptFromPython) << "\"\"\"\n\n\n";
  o << EmitInputBuilder(p, r) << "\n\n" << EmitFunction(p, "f") << "\n\n";
  if (HasWeights(p)) o << EmitModule(p) << "\n\n" << embedded::kReproModulePy << "\n\n";
  o << "REPRODUCER_FAILED = " << kReproFailedExitCode << "\n\n\n"
    << embedded::kRootCausePy << "\n\n"
    << embedded::kReproOutcomePy << "\n\n";
  if (!variants.empty()) o << embedded::kKnobVariantsPy << "\n\n";
  if (!before.empty()) o << EmitCallsBefore(p, before) << "\n\n";
  if (aoti) o << embedded::kReproAotiPy << "\n\n";
  o << embedded::kReleaseRunnerPy;
  return o.str();
}

}  // namespace mmdiff
