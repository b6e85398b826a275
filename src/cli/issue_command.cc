// `mmdiff issue FINDING`: the text to file upstream for a finding (issue.md).
#include <filesystem>
#include <iostream>
#include <memory>

#include "mmdiff/build_info.h"
#include "src/cli/cli_support.h"
#include "src/cli/command_registry.h"
#include "src/cli/commands.h"
#include "src/cli/subcommand_help.h"
#include "src/issue/issue_text.h"
#include "src/support/files.h"

namespace mmdiff::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDescription =
    "Write the issue text to file a finding upstream (issue.md)\n"
    "Writes issue.md into the finding's folder (a campaign writes one for each new root cause): "
    "in the shape of PyTorch's bug report, a title, what happens and what was expected, the "
    "reduced repro.py inline (reduced/ where the folder has it), torch.compile's stages from the "
    "ablation, the versions (torch, Python, OS, the CPU and its AVX2/AVX-512/AMX flags, from the "
    "report), whether it is a regression (from releases.json: `mmdiff releases`, or --releases "
    "runs it first), and the upstream issues mmdiff's catalogue relates it to. Nothing is "
    "fetched or posted.";

constexpr const char* kFooter =
    "Exit codes: 0 written; 2 bad input (no such folder or report, not a report this mmdiff "
    "reads, a report that does not diverge, no repro.py beside it); 3 environment problem "
    "(--releases could not run a release, the output cannot be written).";

struct IssueArgs {
  std::string finding;
  std::string out;
  bool releases = false;
  std::string torch;
  std::vector<std::string> known;
  bool no_known = false;
};

int RunIssue(const IssueArgs& a) {
  std::error_code ec;
  fs::path folder =
      fs::is_directory(a.finding, ec) ? fs::path(a.finding) : fs::path(a.finding).parent_path();
  if (folder.filename() == "reduced") folder = folder.parent_path();
  if (a.releases) {
    auto sources = ReadIssueSources(a.finding);
    if (!sources.ok()) {
      std::cerr << "mmdiff issue: " << sources.error() << "\n";
      return kExitUsage;
    }
    const int rc = RunReleasesOn({sources.value().report_path}, a.torch);
    if (rc == kExitUsage || rc == kExitEnvironment) {
      std::cerr << "mmdiff issue: --releases: `mmdiff releases` failed (exit " << rc << ")\n";
      return kExitEnvironment;
    }
  }
  auto sources = ReadIssueSources(a.finding);
  if (!sources.ok()) {
    std::cerr << "mmdiff issue: " << sources.error() << "\n";
    return kExitUsage;
  }
  auto catalogue =
      LoadKnownCatalogue(KnownCataloguePaths(a.known, a.no_known), build_info::kTorchVersion);
  if (!catalogue.ok()) {
    std::cerr << "mmdiff issue: --known: " << catalogue.error() << "\n";
    return kExitUsage;
  }
  AddCatalogueMatch(sources.value(), catalogue.value());
  auto text = IssueMarkdown(sources.value());
  if (!text.ok()) {
    std::cerr << "mmdiff issue: " << sources.value().report_path << ": " << text.error() << "\n";
    return kExitUsage;
  }
  const std::string out = a.out.empty() ? (folder / "issue.md").string() : a.out;
  if (out == "-") {
    std::cout << text.value();
    return kExitOk;
  }
  if (Status s = WriteFileAtomic(out, text.value()); !s.ok()) {
    std::cerr << "mmdiff issue: " << s.message() << "\n";
    return kExitEnvironment;
  }
  std::cout << out << "\n";
  return kExitOk;
}

const CommandRegistrar kRegistrar{
    "issue", [](CLI::App& app) {
      auto args = std::make_shared<IssueArgs>();
      CLI::App* sub = app.add_subcommand("issue", kDescription);
      sub->footer(WithExample(kFooter, "issue mmdiff-out/<time>/findings/<hash> --releases"));
      sub->add_option("finding", args->finding,
                      "A finding folder (findings/<hash>) or a report.json written by mmdiff")
          ->required();
      sub->add_option("--out", args->out,
                      "File to write (default: issue.md in the finding's folder; - prints it)");
      sub->add_flag("--releases", args->releases,
                    "Run `mmdiff releases` on the report first (every torch venv set up here, or "
                    "--torch) and say in the text whether it is a regression");
      sub->add_option("--torch", args->torch,
                      "With --releases: comma-separated releases, e.g. 2.11.0,2.15.0");
      sub->add_option("--known", args->known,
                      "Catalogue files or folders to name related issues from (default: the "
                      "source tree's corpus/regression), judged on the report's torch");
      sub->add_flag("--no-known", args->no_known, "Name no related issues from a catalogue");
      return std::pair<CLI::App*, std::function<int()>>{sub, [args] { return RunIssue(*args); }};
    }};

}  // namespace
}  // namespace mmdiff::cli
