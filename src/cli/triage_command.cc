// `mmdiff triage DIR...`: merge the reports of campaigns and shards, rank their buckets, and write
// triage.md and a self-contained triage.html with plots.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "mmdiff/build_info.h"
#include "src/cli/cli_support.h"
#include "src/cli/command_registry.h"
#include "src/cli/commands.h"
#include "src/cli/subcommand_help.h"
#include "src/support/utf8.h"
#include "src/triage/triage.h"
#include "src/triage/triage_markdown.h"
#include "src/triage/triage_rank.h"
#include "src/triage/triage_text.h"

namespace mmdiff::cli {
namespace {

constexpr const char* kDescription =
    "Merge, bucket and rank campaigns' findings into a report and a page\n"
    "Merge the findings of one or more fuzz campaigns and shards, bucket and rank them, and write "
    "a Markdown "
    "summary and a self-contained HTML page with plots.";

std::string Footer() {
  return "Inputs: campaign folders (summary.json + findings/<hash>/report.json, as `mmdiff fuzz "
         "--out` writes), "
         "folders holding several of them (shards; searched recursively for summary.json and "
         "report.json), "
         "report.json files and summary.json files, in any mix. Buckets are merged by the report's "
         "bucket hash; "
         "a bucket's count is the sum of its campaigns' summary counts (1 per report without a "
         "summary); the "
         "earliest first-found time is kept with its seed and campaign. The same file reached "
         "twice counts once.\n\n"
         "Outputs, in --out: triage.md (ranked table: rank, bucket, class (what a maintainer acts "
         "on), filing (filable, unclassified, precision-only), kind, blamed path, count, "
         "severity, campaigns, first seen, headline, links to report.json and repro.py; then "
         "details per bucket; the new root causes not reproduced standalone, the known ones and "
         "the baseline's, one line each; the campaigns and the skipped files) and triage.html (one "
         "file, nothing fetched: the same "
         "table, sortable, "
         "and three plots: diverging cases by op x input dtype, |got - expected| of value "
         "divergences against the "
         "reduction dimension K, and buckets found over time). Files are written atomically.\n\n"
         "Ranking: " +
         triage::RankingExplanation() +
         "\n\n"
         "Bad input: a report or summary that cannot be read (malformed or truncated JSON, another "
         "format, an "
         "unsupported version) is skipped with a warning on stderr and listed in the outputs; the "
         "run goes on as long as "
         "something could be read.\n\n"
         "Exit codes: 0 the outputs were written; 2 an input path does not exist, a folder holds "
         "no summary.json or "
         "report.json, no input file could be read, or a --known catalogue or --baseline cannot be "
         "read; 3 the output folder cannot be created or "
         "written.";
}

int RunTriageCommand(triage::TriageOptions o, size_t top) {
  triage::TriageOutcome r = triage::RunTriage(o);
  for (const auto& s : r.data.skipped)
    std::cerr << "mmdiff triage: warning: skipped " << TerminalLine(s.path) << ": "
              << TerminalLine(s.reason) << "\n";
  if (r.failure == triage::TriageFailure::kBadInput) {
    // Line by line: the message lists the files it could not read, one per line.
    std::string line;
    std::istringstream lines(r.message);
    for (bool first = true; std::getline(lines, line); first = false)
      std::cerr << (first ? "mmdiff triage: " : "") << TerminalLine(line) << "\n";
    return kExitUsage;
  }
  if (r.failure == triage::TriageFailure::kOutput) {
    std::cerr << "mmdiff triage: " << r.message << "\n";
    return kExitEnvironment;
  }
  auto all = triage::RankBuckets(r.data);
  auto groups = triage::GroupBuckets(all);
  const auto& ranked = groups.fresh;
  std::cout << all.size() << " buckets (" << triage::GroupCounts(groups) << "), "
            << r.data.TotalCount() << " diverging cases, from " << r.data.campaigns.size()
            << " campaigns or report folders (" << r.data.reports_read << " reports read, "
            << r.data.skipped.size() << " files skipped)\n";
  for (size_t i = 0; i < ranked.size() && i < top; ++i) {
    const triage::TriageBucket& b = *ranked[i];
    // Hashes and headlines come from report files: text, not terminal commands.
    std::cout << "  " << i + 1 << ". " << TerminalLine(b.hash) << "  ["
              << FindingClassTitle(b.Class()) << "] " << triage::BucketClassName(b.cls) << "  x"
              << b.count << "  " << TerminalLine(triage::Clip(b.headline, 110))
              << (b.releases ? "  [" + TerminalLine(b.releases->summary) + "]" : "") << "\n";
  }
  if (ranked.size() > top) std::cout << "  ... " << ranked.size() - top << " more in triage.md\n";
  if (!groups.unreproduced.empty()) {
    std::cout << "not reproduced standalone: " << groups.unreproduced.size()
              << " (their campaign's standalone check did not show them again)\n";
    for (const auto* b : groups.unreproduced)
      std::cout << "  " << TerminalLine(b->hash) << "  x" << b->count << "  "
                << TerminalLine(triage::Clip(b->headline, 110)) << "\n";
  }
  for (const auto* list : {&groups.known, &groups.baseline})
    if (!list->empty())
      std::cout << (list == &groups.known ? "known root causes" : "seen in the baseline") << ": "
                << list->size() << " (one line each in triage.md)\n";
  for (const auto& path : r.written) std::cout << "wrote " << TerminalLine(path) << "\n";
  return kExitOk;
}

const CommandRegistrar kRegistrar{
    "triage", [](CLI::App& app) {
      struct Args {
        std::vector<std::string> inputs;
        std::string out_dir = "triage-out";
        size_t examples = 3;
        size_t top = 10;
        std::vector<std::string> known, baseline;
        bool no_known = false;
      };
      auto args = std::make_shared<Args>();
      CLI::App* sub = app.add_subcommand("triage", kDescription);
      sub->footer(WithExample(Footer(), "triage mmdiff-out/<time> --out triage"));
      sub->add_option("inputs", args->inputs,
                      "Campaign folders, shard folders, report.json or summary.json files")
          ->required();
      AddOutFolderOption(sub, args->out_dir, "triage.md and triage.html")->capture_default_str();
      sub->add_option("--examples", args->examples, "Example reports listed per bucket")
          ->check(CLI::PositiveNumber)
          ->capture_default_str();
      sub->add_option("--top", args->top, "New root causes printed to the terminal")
          ->capture_default_str();
      auto* known = sub->add_option(
          "--known", args->known,
          "Catalogue of known behaviours: regression entries or reports, or folders of them "
          "(repeatable; default: the source tree's corpus/regression). Their buckets are "
          "listed after the new ones, one line each with the entry's title");
      sub->add_flag("--no-known", args->no_known, "Read no catalogue")->excludes(known);
      sub->add_option("--baseline", args->baseline,
                      "An earlier campaign (folder, shards, reports; repeatable): root causes it "
                      "saw are not new "
                      "and are listed after the new ones, one line each");
      return std::pair<CLI::App*, std::function<int()>>{sub, [args] {
                                                          triage::TriageOptions o;
                                                          o.inputs = args->inputs;
                                                          o.out_dir = args->out_dir;
                                                          o.max_examples = args->examples;
                                                          o.known_paths = KnownCataloguePaths(
                                                              args->known, args->no_known);
                                                          o.baseline = args->baseline;
                                                          o.torch = build_info::kTorchVersion;
                                                          return RunTriageCommand(o, args->top);
                                                        }};
    }};

}  // namespace
}  // namespace mmdiff::cli
