// Helpers every subcommand shares: finding the worker, loading a policy, starting workers and
// resolving --paths, the common options (--paths, --policy, --test-paths, --timeout).
#pragma once

#include <CLI/CLI.hpp>
#include <functional>
#include <string>
#include <vector>

#include "src/cli/commands.h"
#include "src/exec/supervisor.h"
#include "src/gen/policy.h"
#include "src/report/report.h"

namespace mmdiff::cli {

// The mmdiff-worker next to this executable ($MMDIFF_WORKER overrides).
std::string WorkerBinary();
// The Python of the venv the workers embed ($MMDIFF_PYTHON overrides): repro.py's and the rewrite
// catalogue's interpreter.
std::string VenvPython();
// Whether this machine has an NVIDIA GPU, from the driver's device files (without loading CUDA).
bool GpuPresent();
// The default policy for "", else the file's (errors name the file).
// ... with `focus`'s overlay (src/gen/focus.h; "": none).
Result<GenPolicy> LoadPolicy(const std::string& file, const std::string& focus = "");
// The known-behaviour catalogue a command reads: `given` (--known), else the source tree's
// corpus/regression when it is there; none with --no-known.
std::vector<std::string> KnownCataloguePaths(const std::vector<std::string>& given, bool none);
SupervisorOptions MakeSupervisorOptions(const CommonOptions& o, const std::string& log_path);
// Runs `use` with a started worker for `command` (options `o`), its log in a private temporary
// folder removed on return; kExitEnvironment, said on stderr, when the folder or the worker cannot
// be made, or when the worker failed a request twice (a worker fault) or cannot work at all
// (Supervisor::Broken). Otherwise returns what `use` returns.
int WithWorker(const char* command, const CommonOptions& o,
               const std::function<int(Supervisor&)>& use);
void AddCommonOptions(CLI::App* app, CommonOptions& o);
// --timeout as every command that runs paths declares it: seconds a path may spend in one stage.
CLI::Option* AddStageTimeoutOption(CLI::App* app, double& timeout_s);
// --json as every command that prints a table declares it: print `what` as JSON instead.
CLI::Option* AddJsonFlag(CLI::App* app, bool& json, const std::string& what);
// --out as every command that writes a folder declares it: the folder `holds` go into, made if
// missing. One that names an existing file is bad usage (exit 2) before anything runs.
CLI::Option* AddOutFolderOption(CLI::App* app, std::string& dir, const std::string& holds);
// Before minutes of running: an output file option (`flag` FILE) that names a folder is bad usage
// (kExitUsage), one whose folder cannot be made or written an environment problem
// (kExitEnvironment); both said on stderr as `command`'s. kExitOk for "" (not asked for).
int CheckOutputFile(const char* command, const char* flag, const std::string& file);

}  // namespace mmdiff::cli
