// `mmdiff reduce REPORT`: re-run a report's case, shrink it while it stays in the same bucket, and
// write the reduced report, program, repro.py and reduction.json.
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "oracles/root_cause.h"
#include "src/campaign/reduce_finding.h"
#include "src/cli/cli_support.h"
#include "src/cli/command_registry.h"
#include "src/cli/commands.h"
#include "src/cli/subcommand_help.h"
#include "src/report/run_case.h"
#include "src/support/files.h"
#include "src/support/hash.h"
#include "src/support/json_limits.h"

namespace mmdiff::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kFooter =
    "The report's case (program and input recipe) is first re-run on the report's paths (or "
    "--paths); it must "
    "still land in the report's bucket (with --paths: diverge at all; its bucket becomes the "
    "target). Each "
    "candidate (nodes dropped, sizes shrunk, dtypes, devices, layouts, attributes and values "
    "simplified) is run "
    "through those of the paths its finding is about (the reference, eager, the divergence's "
    "paths; torch.compile's lower stages only where it keeps the bucket without them) and kept "
    "when its bucket signature is the same. Output, in --out: "
    "report.json, "
    "program.json and repro.py of the reduced case, and reduction.json (sizes before and after, "
    "the steps kept).\n\n"
    "Exit codes: 0 reduced (or already minimal) and written; 1 the case no longer diverges, or "
    "diverges in "
    "another bucket; 2 bad usage, or the report is missing, malformed or not an mmdiff report, or "
    "names a path "
    "the worker does not offer; 3 environment problem (worker cannot start, a path is unavailable "
    "here, the "
    "output folder is not writable).";

struct ReduceArgs {
  std::string report_file;
  std::string out_dir;
  int64_t budget = ReduceOptions{}.max_predicate_calls;
  CommonOptions common;
};

Result<ReportCase> LoadReport(const std::string& file) {
  auto text = ReadFile(file);
  if (!text.ok()) return text.status();
  auto j = ParseJsonBounded(text.value());
  if (!j.ok()) return Status::Error(file + ": " + j.error());
  auto c = ReadReportCase(j.value());
  if (!c.ok()) return Status::Error(file + ": " + c.error());
  return c;
}

// Whether `dir` is a writable folder, or could be made as one: its nearest existing ancestor is a
// writable folder.
Status CanMakeDir(const std::string& dir) {
  std::error_code ec;
  fs::path p = fs::absolute(dir, ec);
  while (!p.empty() && !fs::exists(p, ec) && p != p.parent_path()) p = p.parent_path();
  if (!fs::is_directory(p, ec))
    return Status::Error("cannot create folder " + dir + ": " + p.string() + " is not a folder");
  if (access(p.c_str(), W_OK) != 0)
    return Status::Error("cannot create folder " + dir + ": " + p.string() + " is not writable");
  return Status::Ok();
}

// Every path must be one the worker knows (else exit 2) and can run here (else exit 3).
int CheckPaths(const Supervisor& sup, const std::vector<std::string>& paths, bool test_paths) {
  for (const auto& name : paths) {
    const PathInfo* info = nullptr;
    for (const auto& p : sup.paths())
      if (p.name == name) info = &p;
    if (!info) {
      std::cerr << "mmdiff reduce: unknown path \"" << name << "\""
                << (test_paths ? ""
                               : " (test-only paths such as planted_promote need --test-paths)")
                << "\n";
      return kExitUsage;
    }
    if (!info->available) {
      std::cerr << "mmdiff reduce: path \"" << name << "\" is not available here: " << info->why
                << "\n";
      return kExitEnvironment;
    }
  }
  return kExitOk;
}

// The report's case run again on `paths`: kExitOk with `original` and its bucket's `signature`
// when it still diverges in that bucket (or in any, with `paths_given`), else kExitDiverged, said.
int RunOriginal(Supervisor& sup, const ReportCase& rep, const std::vector<std::string>& paths,
                bool paths_given, CaseRun& original, std::string& signature) {
  original = RunAndJudge(sup, rep.program, rep.recipe, paths, rep.before);
  // The report's finding: the one in its bucket (a version 1 report's bucket hash names no root
  // cause: its lead finding), else the lead.
  auto findings = CaseFindings(original);
  if (!findings.empty()) original.finding = findings[0].divergence;
  for (const auto& k : findings)
    if (HashHex(k.signature) == rep.bucket_hash) original.finding = k.divergence;
  signature = original.verdict.diverges() ? CaseFinding(original).signature : "";
  if (!original.verdict.diverges()) {
    std::string joined;
    for (const auto& p : paths) joined += (joined.empty() ? "" : ",") + p;
    std::cerr << "mmdiff reduce: the case no longer diverges on " << joined
              << ": all paths agree, nothing to reduce (fixed upstream, or made with other paths "
                 "or versions?)\n";
    return kExitDiverged;
  }
  if (!paths_given && rep.version >= 2 && !rep.bucket_hash.empty() &&
      HashHex(signature) != rep.bucket_hash) {
    std::cerr << "mmdiff reduce: the case now diverges in another bucket (" << HashHex(signature)
              << ": " << signature << ") than the report's (" << rep.bucket_hash
              << "); reduce it with --paths to take the new bucket\n";
    return kExitDiverged;
  }
  return kExitOk;
}

int RunReduce(const ReduceArgs& a) {
  auto report = LoadReport(a.report_file);
  if (!report.ok()) {
    std::cerr << "mmdiff reduce: " << report.error() << "\n";
    return kExitUsage;
  }
  const ReportCase& rep = report.value();
  bool paths_given = !a.common.paths.empty();
  std::vector<std::string> paths = paths_given ? SplitPathList(a.common.paths) : rep.paths;
  if (paths.empty()) {
    std::cerr << "mmdiff reduce: no paths to run (the report lists none; give --paths)\n";
    return kExitUsage;
  }
  std::string out_dir =
      a.out_dir.empty() ? (fs::path(a.report_file).parent_path() / "reduced").string() : a.out_dir;
  // Checked now, made when there is something to write: a reduction that fails leaves no folder.
  if (Status s = CanMakeDir(out_dir); !s.ok()) {
    std::cerr << "mmdiff reduce: " << s.message() << "\n";
    return kExitEnvironment;
  }

  return WithWorker("reduce", a.common, [&](Supervisor& sup) {
    if (int code = CheckPaths(sup, paths, a.common.test_paths); code != kExitOk) return code;
    CaseRun original;
    std::string signature;
    if (int code = RunOriginal(sup, rep, paths, paths_given, original, signature); code != kExitOk)
      return code;
    ReduceFindingOptions ro;
    ro.reduce.max_predicate_calls = a.budget;
    ro.reduce.on_step = [](const std::string& step) { spdlog::info("kept: {}", step); };
    spdlog::info("reducing {} (bucket {}) with a budget of {} runs", original.program.Summary(),
                 HashHex(signature), a.budget);
    ReducedFinding r = ReduceFinding(sup, original, paths, ro);

    RunContext ctx;
    ctx.versions = sup.versions();
    ctx.knobs = rep.knobs;
    Status made = MakeWritableDir(out_dir);
    if (Status s = made.ok() ? WriteReducedFinding(out_dir, r, ctx) : made; !s.ok()) {
      std::cerr << "mmdiff reduce: " << s.message() << "\n";
      return kExitEnvironment;
    }
    std::printf(
        "before: %s\nafter:  %s\n%s\nbucket: %s\n  %s\nwritten: %s/{report.json, program.json, "
        "repro.py, "
        "reduction.json}\n",
        original.program.Summary().c_str(), r.run.program.Summary().c_str(),
        ReductionSummary(r).c_str(), HashHex(r.signature).c_str(), Headline(r.run).c_str(),
        out_dir.c_str());
    return kExitOk;
  });
}

const CommandRegistrar kRegistrar{
    "reduce", [](CLI::App& app) {
      auto args = std::make_shared<ReduceArgs>();
      CLI::App* sub = app.add_subcommand(
          "reduce",
          "Shrink a report's case while it stays in the same bucket\n"
          "Drops nodes and shrinks sizes, simplifies dtypes, devices, layouts and values, and "
          "writes the reduced report, program and repro.py");
      sub->footer(WithExample(kFooter,
                              "reduce mmdiff-out/<time>/findings/<hash>/report.json --budget 200"));
      sub->add_option("report", args->report_file,
                      "A report.json (as `mmdiff run --out` and `mmdiff fuzz` write)")
          ->required();
      AddOutFolderOption(sub, args->out_dir,
                         "the reduced case's report.json, program.json and repro.py (default: "
                         "<the report's folder>/reduced)");
      sub->add_option("--budget", args->budget,
                      "Most candidate runs (each runs the paths its finding is about once)")
          ->check(CLI::PositiveNumber)
          ->capture_default_str();
      sub->add_option("--paths", args->common.paths,
                      "Comma-separated paths to run (default: the report's paths)");
      sub->add_flag("--test-paths", args->common.test_paths,
                    "Offer the test-only paths (planted_promote and the crashers), e.g. for "
                    "reports made with them");
      AddStageTimeoutOption(sub, args->common.timeout_s);
      return std::make_pair(sub, std::function<int()>([args] { return RunReduce(*args); }));
    }};

}  // namespace
}  // namespace mmdiff::cli
