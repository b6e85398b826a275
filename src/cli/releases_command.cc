// `mmdiff releases REPORT|ENTRY|DIR...`: runs findings in several torch releases and says since
// when each is there, whether it is still there, and where it was fixed.

#include <algorithm>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <thread>

#include "mmdiff/build_info.h"
#include "oracles/accuracy.h"
#include "oracles/judge.h"
#include "src/cli/cli_support.h"
#include "src/cli/command_registry.h"
#include "src/cli/commands.h"
#include "src/cli/subcommand_help.h"
#include "src/releases/entry_update.h"
#include "src/releases/releases_run.h"
#include "src/report/known.h"
#include "src/report/report.h"
#include "src/support/files.h"
#include "src/support/json_limits.h"
#include "src/support/utf8.h"

namespace mmdiff::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDescription =
    "Run findings in several torch releases: which releases show each one\n"
    "Runs each report (a finding's report.json, or every "
    "finding of a campaign folder) or regression entry (a file, or corpus/regression/) through "
    "its paths in each release, and prints a table release x finding -> present (the finding: the "
    "report's bucket, the divergence the entry expects in the newest release run), other (the "
    "paths diverge otherwise), agree, or - (cannot run, with the reason), and each finding's "
    "history: "
    "\"present in 2.11.0-2.15.0\", \"new in 2.14.1\", \"present in 2.11.0, fixed in 2.12.0\" (the "
    "next release was run), \"present in 2.11.0, absent in 2.15.0\" (the release that fixed it "
    "was not run). No mmdiff build per release is needed: the reference runs in this build, and "
    "the Python paths (eager, eager_meta, inductor, aot_eager, compile_eager, torchscript through "
    "torch.jit, aoti, and inductor's knob variants with their settings patched in) in a generated "
    "runner in each release's venv (scripts/setup's cache); the verdict is judged here, with that "
    "release's contract. Test paths are not run in releases. An entry's cell marked (!) "
    "contradicts what the entry expects for that release; --update shows how its expected "
    "ranges would be rewritten from the measured verdicts, --update --force writes them. Each "
    "report's row is also written as releases.json in its finding folder (unless --no-record), "
    "where `mmdiff triage` shows the history and ranks a regression above a long-standing "
    "behaviour of its class.";

constexpr const char* kFooter =
    "Exit codes: 0 every finding ran and no entry's expectation is contradicted (with --update "
    "--force: the contradicted entries were rewritten, except those with CPU-specific "
    "expectations, which it names); 1 some entry's verdict in some release "
    "differs from its expected ranges (listed under the table; --update shows the rewrite); 2 bad "
    "usage or an unreadable finding, report or entry; 3 environment problem (no venv for a "
    "--torch release, none at all, --setup failed, the worker cannot start, --json cannot be "
    "written).";

struct ReleasesArgs {
  std::vector<std::string> inputs;
  std::string torch;
  bool setup = false;
  std::string json;
  int jobs = 0;
  double timeout_s = 300;
  bool update = false, force = false, no_record = false;
};

std::string Today() {
  std::time_t now = std::time(nullptr);
  char buf[16];
  std::tm tm{};
  gmtime_r(&now, &tm);
  std::strftime(buf, sizeof buf, "%Y-%m-%d", &tm);
  return buf;
}

// --update: each contradicted entry's rewrite as a diff, written with --force. Returns the number
// of rewrites shown and not written, or -1 when one could not be written.
int UpdateEntries(const ReleasesTable& t, const std::vector<ReleaseFinding>& findings, bool force) {
  int pending = 0;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    if (!findings[i].regression) continue;
    auto text = ReadFile(findings[i].file);
    if (!text.ok()) {
      std::cerr << "mmdiff releases: --update: " << text.error() << "\n";
      return -1;
    }
    EntryUpdate u = PlanEntryUpdate(text.value(), *findings[i].regression, t.rows[i], Today());
    if (!u.refused.empty()) {  // said, and left to a person
      std::cout << "\n" << TerminalLine(findings[i].file) << ": not updated: " << u.refused << "\n";
      continue;
    }
    if (!u.changed) continue;
    std::cout << "\n"
              << TerminalLine(findings[i].file) << (force ? ": updated" : ": would update") << "\n"
              << u.diff;
    if (!force) {
      ++pending;
      continue;
    }
    if (Status s = WriteFileAtomic(findings[i].file, u.text); !s.ok()) {
      std::cerr << "mmdiff releases: --update: " << s.message() << "\n";
      return -1;
    }
  }
  if (pending > 0 && !force) std::cout << "\n(--update --force writes these)\n";
  return pending;
}

// For each report's release where the finding is present, what the source tree's catalogue makes
// of it on that release (known there, a known bug back, or not claimed): the same rule as a
// campaign's, release by release.
void PrintCatalogueWords(const ReleasesTable& t) {
  auto catalogue = LoadKnownCatalogue(KnownCataloguePaths({}, false), build_info::kTorchVersion);
  if (!catalogue.ok()) {
    std::cerr << "mmdiff releases: the catalogue is not read: " << catalogue.error() << "\n";
    return;
  }
  for (const auto& row : t.rows) {
    if (row.entry) continue;
    auto text = ReadFile(row.file);
    auto j = text.ok() ? ParseJsonBounded(text.value()) : Result<nlohmann::json>(text.status());
    auto judged = j.ok() ? ReadJudgedCase(j.value()) : Result<JudgedCase>(j.status());
    if (!judged.ok()) continue;
    const std::vector<std::string> causes = ReportRootCauses(judged.value());
    if (causes.empty()) continue;
    for (const auto& cell : row.cells) {
      if (cell.state != ReleaseState::kPresent) continue;
      const std::string word = DescribeCatalogueMatch(
          catalogue.value(), causes.front(), cell.torch.empty() ? cell.release : cell.torch);
      if (!word.empty())
        std::cout << row.bucket << " on " << cell.release << ": catalogue: " << word << "\n";
    }
  }
}

// Each report's row, as releases.json next to it (where triage reads it); returns how many.
Result<int> RecordReports(const ReleasesTable& t) {
  int written = 0;
  for (size_t i = 0; i < t.rows.size(); ++i) {
    const fs::path report(t.rows[i].file);
    if (t.rows[i].entry || report.filename() != "report.json") continue;
    const fs::path out = report.parent_path() / "releases.json";
    if (Status s = WriteFileAtomic(out.string(), FindingReleasesJson(t, i).dump(2) + "\n"); !s.ok())
      return s;
    ++written;
  }
  return written;
}

int RunReleases(const ReleasesArgs& a) {
  if (a.force && !a.update) {
    std::cerr << "mmdiff releases: --force goes with --update (it writes the rewritten entries)\n";
    return kExitUsage;
  }
  for (const auto& v : SplitPathList(a.torch))
    if (!IsReleaseName(v)) {
      std::cerr << "mmdiff releases: --torch: '" << TerminalLine(v)
                << "' is not a release such as 2.11.0\n";
      return kExitUsage;
    }
  auto files = CollectReleaseFiles(a.inputs);
  if (!files.ok()) {
    std::cerr << "mmdiff releases: " << files.status().message() << "\n";
    return kExitUsage;
  }
  std::vector<ReleaseFinding> findings;
  for (const auto& f : files.value()) {
    auto finding = LoadReleaseFinding(f);
    if (!finding.ok()) {
      std::cerr << "mmdiff releases: " << finding.status().message() << "\n";
      return kExitUsage;
    }
    findings.push_back(std::move(finding.value()));
  }
  if (int code = CheckOutputFile("releases", "--json", a.json); code != kExitOk) return code;
  const std::string cache = VenvCacheDir(), py = PythonMajorMinor(build_info::kPythonVersion);
  // --setup creates a missing venv with the source tree's scripts/setup.
  auto venvs =
      ResolveReleaseVenvs(cache, py, SplitPathList(a.torch),
                          a.setup ? std::string(MMDIFF_SOURCE_DIR) + "/scripts/setup" : "");
  if (!venvs.ok()) {
    std::cerr << "mmdiff releases: " << venvs.status().message() << "\n";
    return kExitEnvironment;
  }
  PrivateTempDir tmp("mmdiff-releases");  // runners, their outputs and Inductor's caches
  if (!tmp.ok()) {
    std::cerr << "mmdiff releases: " << tmp.error() << "\n";
    return kExitEnvironment;
  }
  CommonOptions common;
  common.timeout_s = a.timeout_s;
  Supervisor sup(MakeSupervisorOptions(common, tmp.File("worker.log")));
  if (Status s = sup.Hello(); !s.ok()) {
    std::cerr << "mmdiff releases: " << s.message() << "\n";
    return kExitEnvironment;
  }
  std::vector<std::vector<PathResult>> references;
  for (const auto& f : findings) {
    for (const auto& path : f.paths) {
      bool known = std::any_of(sup.paths().begin(), sup.paths().end(),
                               [&](const PathInfo& i) { return i.name == path; });
      if (!known) {
        std::cerr << "mmdiff releases: " << f.file << ": unknown path '" << path << "'\n";
        return kExitUsage;
      }
    }
    references.push_back(sup.Run(f.program, f.recipe, {kReferencePath, kReferenceFloat64Path}));
  }
  ReleasesRunOptions o;
  o.venvs = venvs.value();
  o.settings.work_dir = tmp.path();
  o.settings.timeout_s = a.timeout_s;
  o.settings.has_gpu = GpuPresent();
  o.settings.paths = sup.paths();
  o.jobs = a.jobs > 0 ? a.jobs : std::max(1u, std::min(4u, std::thread::hardware_concurrency()));
  o.progress = [](const std::string& line) { std::cerr << line << "\n"; };
  std::string names;
  for (const auto& v : o.venvs) names += (names.empty() ? "" : ", ") + v.torch;
  std::cerr << "mmdiff releases: " << findings.size() << " finding(s) in torch " << names << " ("
            << o.jobs << " at once)\n";
  ReleasesTable table = RunAcrossReleases(findings, references, o);
  std::cout << FormatReleasesTable(table);
  PrintCatalogueWords(table);
  std::cout << std::flush;
  if (!a.json.empty()) {
    if (Status s = WriteFileAtomic(a.json, ReleasesTableToJson(table).dump(2) + "\n"); !s.ok()) {
      std::cerr << "mmdiff releases: --json: " << s.message() << "\n";
      return kExitEnvironment;
    }
    std::cout << "json: " << a.json << "\n";
  }
  if (!a.no_record) {
    auto recorded = RecordReports(table);
    if (!recorded.ok()) {
      std::cerr << "mmdiff releases: " << recorded.status().message() << "\n";
      return kExitEnvironment;
    }
    if (recorded.value() > 0)
      std::cout << "recorded: releases.json in " << recorded.value() << " finding folder(s)\n";
  }
  if (a.update) {
    int pending = UpdateEntries(table, findings, a.force);
    if (pending < 0) return kExitEnvironment;
    if (a.force) return kExitOk;
  }
  return CountUnexpected(table) > 0 ? kExitDiverged : kExitOk;
}

}  // namespace

int RunReleasesOn(const std::vector<std::string>& findings, const std::string& torch) {
  ReleasesArgs a;
  a.inputs = findings;
  a.torch = torch;
  return RunReleases(a);
}

namespace {

const CommandRegistrar kRegistrar{
    "releases", [](CLI::App& app) {
      auto args = std::make_shared<ReleasesArgs>();
      CLI::App* sub = app.add_subcommand("releases", kDescription);
      sub->footer(WithExample(kFooter, "releases mmdiff-out/<time> --torch 2.11.0,2.15.0"));
      sub->add_option("findings", args->inputs,
                      "Reports (report.json), regression entries, or folders: a finding folder, a "
                      "campaign (its findings/*/report.json, shard-*/findings/*/report.json), or "
                      "a folder of entries such as corpus/regression")
          ->required();
      sub->add_option("--torch", args->torch,
                      "Comma-separated torch releases, e.g. 2.11.0,2.12.0,2.15.0 (default: every "
                      "torch venv set up on this machine, newest first)");
      sub->add_flag("--setup", args->setup,
                    "Create the venv of each --torch release that is missing, through "
                    "scripts/setup --venv-only (a few GB from PyPI each; no mmdiff build)");
      sub->add_option("--json", args->json,
                      "Also write the table as JSON to this file (atomically)");
      sub->add_flag("--update", args->update,
                    "Show how each entry whose expected ranges a release contradicts (or does "
                    "not cover) would be rewritten from the measured verdicts, as a diff");
      sub->add_flag("--force", args->force,
                    "With --update: write the rewritten entries (atomically)");
      sub->add_flag("--no-record", args->no_record,
                    "Do not write releases.json next to each report (triage reads it)");
      sub->add_option("--jobs", args->jobs,
                      "Runners at once (default: the number of cores, at most 4)")
          ->check(CLI::Range(1, 64));
      sub->add_option("--timeout", args->timeout_s,
                      "Seconds one finding may run in one release before its runner is killed")
          ->check(CLI::PositiveNumber)
          ->capture_default_str();
      return std::pair<CLI::App*, std::function<int()>>{sub, [args] { return RunReleases(*args); }};
    }};

}  // namespace
}  // namespace mmdiff::cli
