// Helpers every subcommand shares: finding the worker, loading a policy, starting workers and
// resolving --paths, the common options.
#include "src/cli/cli_support.h"

#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <optional>

#include "mmdiff/build_info.h"
#include "src/gen/focus.h"
#include "src/support/files.h"
#include "src/support/json_limits.h"

namespace mmdiff::cli {

namespace fs = std::filesystem;

std::string WorkerBinary() {
  if (const char* w = std::getenv("MMDIFF_WORKER")) return w;
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return (self.parent_path() / "mmdiff-worker").string();
}

std::string VersionText() {
  return std::string("mmdiff ") + build_info::kMmdiffVersion + "\ntorch " +
         build_info::kTorchVersion + "\npython " + build_info::kPythonVersion + "\nvenv python " +
         build_info::kVenvPython;
}

std::string VenvPython() {
  const char* python = std::getenv("MMDIFF_PYTHON");
  return python && *python ? python : build_info::kVenvPython;
}

bool GpuPresent() { return fs::exists("/dev/nvidia0") || fs::exists("/dev/nvidiactl"); }

Result<GenPolicy> LoadPolicy(const std::string& file, const std::string& focus) {
  std::optional<size_t> f = FindFocus(focus.empty() ? "as_given" : focus);
  if (!f) return Status::Error("--focus: no focus named " + nlohmann::json(focus).dump());
  if (file.empty()) return Focused(GenPolicy{}, *f);
  auto text = ReadFile(file);
  if (!text.ok()) return text.status();
  auto j = ParseJsonBounded(text.value());
  if (!j.ok()) return Status::Error(file + ": " + j.error());
  auto p = PolicyFromJson(j.value());
  if (!p.ok()) return Status::Error(file + ": " + p.error());
  return Focused(p.value(), *f);
}

SupervisorOptions MakeSupervisorOptions(const CommonOptions& o, const std::string& log_path) {
  SupervisorOptions s;
  s.worker_binary = WorkerBinary();
  if (o.test_paths) s.worker_args.push_back("--test-paths");
  s.stage_timeout_s = o.timeout_s;
  s.log_path = log_path;
  return s;
}

int WithWorker(const char* command, const CommonOptions& o,
               const std::function<int(Supervisor&)>& use) {
  PrivateTempDir tmp(std::string("mmdiff-") + command);  // the worker's log
  if (!tmp.ok()) {
    std::cerr << "mmdiff " << command << ": " << tmp.error() << "\n";
    return kExitEnvironment;
  }
  Supervisor sup(MakeSupervisorOptions(o, tmp.File("worker.log")));
  if (Status s = sup.Hello(); !s.ok()) {
    std::cerr << "mmdiff " << command << ": " << s.message() << "\n";
    return kExitEnvironment;
  }
  const int code = use(sup);
  // A request the worker failed twice had no answer from its paths: what was said without them
  // is no verdict (src/exec/supervisor.h).
  if (sup.Broken()) {
    std::cerr << "mmdiff " << command << ": " << sup.Failure() << "\n";
    return kExitEnvironment;
  }
  if (sup.faults() > 0) {
    std::cerr << "mmdiff " << command << ": the worker failed twice on " << sup.faults()
              << " request(s), whose paths have no result (a worker fault, not a finding): "
              << sup.LastFault() << "\n";
    return kExitEnvironment;
  }
  return code;
}

void AddCommonOptions(CLI::App* app, CommonOptions& o) {
  app->add_option("--paths", o.paths,
                  "Comma-separated paths to run (see `mmdiff paths`); default: every available "
                  "non-test path except those it marks run on demand (variants, aoti)");
  app->add_option("--policy", o.policy_file,
                  "Generation policy JSON (see `mmdiff gen --dump-policy`)")
      ->check(CLI::ExistingFile);
  app->add_flag(
      "--test-paths", o.test_paths,
      "Offer the test-only paths (listed by `mmdiff paths --test-paths`): the "
      "deliberately wrong planted_* paths (e.g. planted_promote accepts mismatched "
      "dtypes, planted_bias_times_beta reads addmm's input when beta = 0), "
      "eager_1thread, and the crashers crash_segv, crash_abort, crash_sigkill, hang, oom");
  AddStageTimeoutOption(app, o.timeout_s);
}

CLI::Option* AddStageTimeoutOption(CLI::App* app, double& timeout_s) {
  return app
      ->add_option("--timeout", timeout_s,
                   "Seconds a path may spend in one stage before its worker is killed")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

CLI::Option* AddJsonFlag(CLI::App* app, bool& json, const std::string& what) {
  return app->add_flag("--json", json, "Print " + what + " as JSON instead of a table");
}

CLI::Option* AddOutFolderOption(CLI::App* app, std::string& dir, const std::string& holds) {
  const CLI::Validator not_a_file(
      [](std::string& given) -> std::string {
        std::error_code ec;
        if (std::filesystem::exists(given, ec) && !std::filesystem::is_directory(given, ec))
          return given + " is a file; give a folder";
        return "";
      },
      "FOLDER");
  return app->add_option("--out", dir, "Folder for " + holds + " (made if missing)")
      ->check(not_a_file);
}

std::vector<std::string> KnownCataloguePaths(const std::vector<std::string>& given, bool none) {
  if (none) return {};
  if (!given.empty()) return given;
  std::filesystem::path corpus = std::filesystem::path(MMDIFF_SOURCE_DIR) / "corpus" / "regression";
  std::error_code ec;
  return std::filesystem::is_directory(corpus, ec) ? std::vector<std::string>{corpus.string()}
                                                   : std::vector<std::string>{};
}

int CheckOutputFile(const char* command, const char* flag, const std::string& file) {
  if (file.empty()) return kExitOk;
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec)) {
    std::cerr << "mmdiff " << command << ": " << flag << " " << file
              << " is a folder; give a file name\n";
    return kExitUsage;
  }
  std::filesystem::path parent = std::filesystem::path(file).parent_path();
  if (Status s = MakeWritableDir(parent.empty() ? "." : parent.string()); !s.ok()) {
    std::cerr << "mmdiff " << command << ": " << flag << ": " << s.message() << "\n";
    return kExitEnvironment;
  }
  return kExitOk;
}

}  // namespace mmdiff::cli
