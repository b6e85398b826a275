// `mmdiff replay DIR|FILE...`: replays regression entries and program-fuzzer artifacts on the
// installed torch and says which verdicts changed.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>

#include "mmdiff/build_info.h"
#include "src/cli/cli_support.h"
#include "src/cli/command_registry.h"
#include "src/cli/commands.h"
#include "src/cli/subcommand_help.h"
#include "src/gen/fuzz_input.h"
#include "src/replay/artifact.h"
#include "src/replay/replay.h"
#include "src/support/files.h"

namespace mmdiff::cli {
namespace {

constexpr const char* kDescription =
    "Replay regression entries and fuzzer artifacts; compare the verdicts\n"
    "Replay regression entries (corpus/regression/*.json) on the installed torch: run each entry's "
    "program "
    "through its paths and compare the verdict with the one the entry expects for this torch "
    "version. Prints a "
    "table (entry, torch range, expected, observed, status) and a total. Statuses: match; fixed "
    "(an expected "
    "divergence is gone and nothing new appeared: fixed upstream?); new-behaviour (a divergence "
    "the entry does "
    "not expect, or one where it expects agreement); skipped (no expectation covers this torch "
    "version, or the "
    "entry needs a device or path this machine lacks, e.g. cuda without a GPU: listed with the "
    "reason, never a "
    "failure); invalid (missing file, malformed or truncated JSON, unknown format version, unknown "
    "path: the "
    "replay goes on with the other entries). "
    "Program-fuzzer artifacts (fuzz/program_fuzzer's crash-* files, or any other input of it) are "
    "replayed directly, read exactly as the fuzzer reads them: a case as JSON, else generator "
    "choice "
    "bytes (any bytes are). A file named *.json must be a regression entry or a case "
    "({\"program\", "
    "\"inputs\"}: `mmdiff gen --case` output, a report); anything else is invalid. An artifact "
    "expects \"diverge\" on any torch, on the --paths the fuzzer ran: match (the program still "
    "diverges; its bucket hash and headline are printed) or fixed (the paths agree now).";

constexpr const char* kFooter =
    "Exit codes: 0 every entry that ran matches, i.e. every artifact still diverges (skipped "
    "entries "
    "do not fail the replay); 5 some "
    "verdict changed "
    "in a new way (takes precedence over everything below); 2 some entry or argument is invalid "
    "(bad input: e.g. a *.json file that is neither an entry nor a case); "
    "4 an expected divergence is gone (fixed upstream?), e.g. an artifact no longer diverges; 3 "
    "environment problem (the worker cannot "
    "start, the "
    "--junit file cannot be written).";

struct ReplayArgs {
  std::vector<std::string> inputs;
  std::string junit;
  bool test_paths = false;
  double timeout_s = 300;
  std::string artifact_paths;  // "" = $MMDIFF_FUZZ_PATHS, else the fuzzer's default
};

int ExitCode(const ReplayCounts& n) {
  if (n.new_behaviour > 0) return kExitNewBehaviour;
  if (n.invalid > 0) return kExitUsage;
  if (n.fixed > 0) return kExitFixed;
  return kExitOk;
}

std::string ArtifactPaths(const ReplayArgs& a) {
  if (!a.artifact_paths.empty()) return a.artifact_paths;
  const char* env = std::getenv("MMDIFF_FUZZ_PATHS");  // what the fuzzer ran, when set as for it
  return env && *env ? env : kFuzzDefaultPaths;
}

int RunReplay(const ReplayArgs& a) {
  ArtifactOptions artifacts;
  artifacts.paths = SplitPathList(ArtifactPaths(a));
  if (artifacts.paths.empty()) {
    std::cerr << "mmdiff replay: --paths names no path\n";
    return kExitUsage;
  }
  // Test-only paths as for the fuzzer, when its environment says so.
  const char* fuzz_test_paths = std::getenv("MMDIFF_FUZZ_TEST_PATHS");
  bool test_paths = a.test_paths || (fuzz_test_paths && std::string(fuzz_test_paths) == "1");
  if (int code = CheckOutputFile("replay", "--junit", a.junit); code != kExitOk) return code;
  std::vector<ReplayRow> rows;
  std::vector<std::string> files = CollectReplayFiles(a.inputs, rows);
  std::string torch = build_info::kTorchVersion;
  bool gpu = GpuPresent();
  std::vector<PreparedEntry> entries;
  bool any_pending = false;
  for (const auto& f : files) {
    entries.push_back(PrepareReplayFile(f, torch, gpu, artifacts));
    any_pending |= entries.back().pending;
  }
  if (any_pending) {
    CommonOptions common;
    common.test_paths = test_paths;
    common.timeout_s = a.timeout_s;
    int code = WithWorker("replay", common, [&](Supervisor& sup) {
      if (sup.versions().contains("torch") && sup.versions()["torch"].is_string())
        torch = sup.versions()["torch"];
      ReplayEnvironment env{torch, gpu, sup.paths(), test_paths};
      // An artifact's findings say what the source tree's catalogue makes of them on this torch.
      auto catalogue = LoadKnownCatalogue(KnownCataloguePaths({}, false), torch);
      if (catalogue.ok())
        env.catalogue = &catalogue.value();
      else
        std::cerr << "mmdiff replay: the catalogue is not read: " << catalogue.error() << "\n";
      PathRunner run = RunnerOf(sup);
      size_t done = 0, pending = 0;
      for (const auto& e : entries) pending += e.pending;
      for (auto& e : entries) {
        if (!e.pending) continue;
        RunEntry(e, env, run);
        std::fprintf(stderr, "[%zu/%zu] %s: %s (%.1f s)\n", ++done, pending, e.row.file.c_str(),
                     std::string(ReplayStatusName(e.row.status)).c_str(), e.row.seconds);
      }
      return kExitOk;
    });
    if (code != kExitOk) return code;
  }
  for (const auto& e : entries) rows.push_back(e.row);
  std::cout << FormatReplayTable(rows, torch) << std::flush;
  if (!a.junit.empty()) {
    if (Status s = WriteFileAtomic(a.junit, ReplayJunitXml(rows, torch)); !s.ok()) {
      std::cerr << "mmdiff replay: --junit: " << s.message() << "\n";
      return kExitEnvironment;
    }
    std::cout << "junit: " << a.junit << "\n";
  }
  return ExitCode(CountRows(rows));
}

const CommandRegistrar kRegistrar{
    "replay", [](CLI::App& app) {
      auto args = std::make_shared<ReplayArgs>();
      CLI::App* sub = app.add_subcommand("replay", kDescription);
      sub->footer(WithExample(kFooter, "replay corpus/regression --junit replay.xml"));
      sub->add_option("entries", args->inputs,
                      "Regression entry files, program-fuzzer artifacts, or folders whose *.json "
                      "files and libFuzzer artifacts (crash-*, timeout-*, oom-*, leak-*) are "
                      "replayed in name order")
          ->required();
      sub->add_option(
          "--paths", args->artifact_paths,
          "Comma-separated paths to run artifacts on (entries name their own); default: "
          "$MMDIFF_FUZZ_PATHS if set, else " +
              std::string(kFuzzDefaultPaths) + ", as the program fuzzer");
      sub->add_option("--junit", args->junit,
                      "Also write JUnit XML to this file (one testcase per entry: fixed and "
                      "new-behaviour are failures, "
                      "invalid an error, skipped skipped); written atomically");
      sub->add_flag(
          "--test-paths", args->test_paths,
          "Offer the test-only paths (planted_promote, crash_segv, ...) to entries and "
          "--paths that name them (also when MMDIFF_FUZZ_TEST_PATHS=1, as for the fuzzer)");
      AddStageTimeoutOption(sub, args->timeout_s);
      return std::pair<CLI::App*, std::function<int()>>{sub, [args] { return RunReplay(*args); }};
    }};

}  // namespace
}  // namespace mmdiff::cli
