// One-line subcommand list and the unknown-subcommand check.
#include "src/cli/subcommand_help.h"

#include <algorithm>
#include <memory>
#include <sstream>
#include <vector>

#include "src/cli/commands.h"
#include "src/support/utf8.h"

namespace mmdiff::cli {

namespace {

class OneLineFormatter : public CLI::Formatter {
 public:
  std::string make_subcommand(const CLI::App* sub) const override {
    std::string description = sub->get_description();
    description = description.substr(0, description.find('\n'));
    std::stringstream out;
    CLI::detail::format_help(out, sub->get_display_name(true), description, get_column_width());
    return out.str();
  }
};

size_t EditDistance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The name in `names` closest to `given` by edit distance ("" when `names` is empty).
std::string ClosestName(const std::string& given, const std::vector<std::string>& names) {
  std::string best;
  size_t best_distance = 0;
  for (const auto& n : names) {
    size_t d = EditDistance(given, n);
    if (best.empty() || d < best_distance) {
      best = n;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace

void UseOneLineSubcommandList(CLI::App& app) {
  auto formatter = std::make_shared<OneLineFormatter>();
  app.formatter(formatter);
  for (CLI::App* sub : app.get_subcommands({})) sub->formatter(formatter);
}

std::string WithExample(const std::string& footer, const std::string& example) {
  return footer + (footer.empty() ? "" : "\n") + "Example: mmdiff " + example;
}

int CheckSubcommandName(const CLI::App& app, int argc, char** argv, std::ostream& err) {
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (!arg.empty() && arg[0] == '-') continue;  // the top level takes only flags
    std::vector<std::string> names;
    for (const CLI::App* sub : app.get_subcommands({})) names.push_back(sub->get_name());
    if (std::find(names.begin(), names.end(), arg) != names.end()) return kExitOk;
    err << "mmdiff: unknown subcommand '" << TerminalLine(arg.substr(0, 64))
        << "'; the closest is '" << ClosestName(arg, names) << "' (mmdiff --help lists them all)\n";
    return kExitUsage;
  }
  return kExitOk;
}

}  // namespace mmdiff::cli
