// `mmdiff promote REPORT`: turns a report.json into a regression entry for corpus/regression/.
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <memory>

#include "src/cli/command_registry.h"
#include "src/cli/commands.h"
#include "src/cli/subcommand_help.h"
#include "src/replay/promote.h"
#include "src/support/files.h"

namespace mmdiff::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDescription =
    "Turn a report.json into a regression entry (corpus/regression/)\n"
    "The entry holds the report's program, input recipe and paths, and one "
    "expectation: the "
    "report's verdict (agree, or diverge with each divergence's kind and blamed path) on the torch "
    "version the "
    "report was made with, and only that one (e.g. \"==2.15.0\"), since that is all the report "
    "shows. After "
    "checking other versions (`mmdiff replay` under each), widen the range with --torch (e.g. "
    "\">=2.11.0\") or by "
    "editing \"torch\" in the entry, or add one expectation per range. The entry replays as a "
    "match on the "
    "report's torch straight away. Prints the entry's path.";

constexpr const char* kFooter =
    "Exit codes: 0 written; 2 bad input (missing file, malformed JSON, not a report or an unknown "
    "report version, "
    "a bad --torch range, or the output file exists and --force was not given); 3 the output "
    "folder cannot be "
    "written. An existing file is only ever replaced whole (atomic rename), and only with --force.";

struct PromoteArgs {
  std::string report;
  std::string out;
  std::string title;
  std::string note;
  std::string torch;
  bool force = false;
};

int RunPromote(const PromoteArgs& a) {
  auto text = ReadFile(a.report);
  if (!text.ok()) {
    std::cerr << "mmdiff promote: " << text.error() << "\n";
    return kExitUsage;
  }
  auto entry = PromoteReport(text.value(), {a.report, a.title, a.note, a.torch});
  if (!entry.ok()) {
    std::cerr << "mmdiff promote: " << a.report << ": " << entry.error() << "\n";
    return kExitUsage;
  }
  std::string out =
      a.out.empty() ? (fs::path("corpus") / "regression" / PromotedFileName(entry.value())).string()
                    : a.out;
  std::error_code ec;
  if (fs::is_directory(out, ec)) {
    std::cerr << "mmdiff promote: " << out << " is a folder; --out takes a file name\n";
    return kExitUsage;
  }
  if (fs::exists(out, ec) && !a.force) {
    std::cerr << "mmdiff promote: " << out
              << " exists; not overwriting it (pass --force to replace it)\n";
    return kExitUsage;
  }
  if (Status s = WriteFileAtomic(out, entry.value().dump(2) + "\n"); !s.ok()) {
    std::cerr << "mmdiff promote: " << s.message() << "\n";
    return kExitEnvironment;
  }
  const auto& x = entry.value()["expected"][0];
  std::cerr << "expects " << x["verdict"].get<std::string>() << " on torch "
            << x["torch"].get<std::string>()
            << " (widen with --torch or by editing the entry once other versions are checked)\n";
  std::cout << out << "\n";
  return kExitOk;
}

const CommandRegistrar kRegistrar{
    "promote", [](CLI::App& app) {
      auto args = std::make_shared<PromoteArgs>();
      CLI::App* sub = app.add_subcommand("promote", kDescription);
      sub->footer(WithExample(
          kFooter, "promote mmdiff-out/<time>/findings/<hash>/report.json --torch \">=2.11.0\""));
      sub->add_option("report", args->report,
                      "A report.json written by mmdiff (fuzz findings, run --out)")
          ->required();
      sub->add_option("--out", args->out,
                      "Entry file to write (default: corpus/regression/<blamed>-<kind>-<report "
                      "id>.json under the "
                      "current folder)");
      sub->add_option("--title", args->title,
                      "One line saying what the entry guards (default: the report's headline)");
      sub->add_option(
          "--note", args->note,
          "The expectation's note (default: the torch and mmdiff versions and headline)");
      sub->add_option("--torch", args->torch,
                      "Torch version range of the expectation, e.g. \">=2.11.0,<2.13\" (default: "
                      "\"==\" the report's "
                      "torch version)");
      sub->add_flag("--force", args->force, "Replace an existing entry file");
      return std::pair<CLI::App*, std::function<int()>>{sub, [args] { return RunPromote(*args); }};
    }};

}  // namespace
}  // namespace mmdiff::cli
