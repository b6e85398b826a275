// The standalone check of a new finding.
#include "src/campaign/standalone_check.h"

#include <algorithm>
#include <regex>
#include <string_view>

#include "src/campaign/reduce_finding.h"
#include "src/campaign/stage_controls.h"
#include "src/ir/python_emitter.h"
#include "src/report/run_case.h"
#include "src/support/files.h"
#include "src/support/subprocess.h"
#include "src/support/utf8.h"

namespace mmdiff {

namespace {

// The repro.py run's attempts (ReproOptions::attempts: MakeRepro's default).
const int kReproAttempts = ReproOptions{}.attempts;

std::string RunsText(int hits, int runs, const char* what) {
  return std::to_string(hits) + " of " + std::to_string(runs) + " " + what;
}

}  // namespace

std::pair<int, int> ReproAttempts(const std::string& output, int exit_code, int attempts) {
  if (exit_code != 1) return {exit_code == 0 ? attempts : 0, 0};
  static const std::regex kShows(R"(attempt (\d+) of \d+: the finding shows)");
  std::smatch m;
  if (!std::regex_search(output, m, kShows))
    return attempts > 1 ? std::pair{0, 0} : std::pair{1, 1};
  return {m[1].length() <= 4 ? std::stoi(m[1].str()) : 1, 1};
}

std::string LastLine(const std::string& output) {
  size_t end = output.find_last_not_of(" \t\r\n");
  if (end == std::string::npos) return "";
  size_t begin = output.find_last_of('\n', end);
  begin = begin == std::string::npos ? 0 : begin + 1;
  return TerminalLine(
      std::string_view(output).substr(begin, std::min<size_t>(end + 1 - begin, 200)));
}

namespace {

// repro.py once in a fresh Python, in a private folder: its exit status and attempts into `rec`;
// returns what it gave, in words.
std::string RunRepro(const CaseRun& c, const Divergence& d, const RunContext& ctx,
                     const StandaloneOptions& options, StandaloneRecord& rec) {
  PrivateTempDir tmp("mmdiff-standalone");
  if (!tmp.ok()) return "repro.py not run: " + tmp.error();
  if (Status w = WriteFileAtomic(tmp.File("repro.py"), MakeRepro(c, ctx)); !w.ok())
    return "repro.py not run: " + w.message();
  ProcessOptions po;
  po.argv = {options.python, tmp.File("repro.py")};
  po.env = options.env;
  po.output = tmp.File("output.txt");
  po.cwd = tmp.path();  // what torch writes into its current folder stays in tmp
  po.timeout_s = options.timeout_s;
  ProcessResult pr = RunProcess(po);
  auto read = ReadFile(po.output, 1 << 20);
  const std::string output = read.ok() ? read.value() : "";
  rec.repro_exit = pr.started && !pr.timed_out && pr.signal == 0 ? pr.exit_code : 255;
  auto [attempts, hits] = ReproAttempts(output, rec.repro_exit, kReproAttempts);
  // A crash finding whose repro.py dies of a signal, and a timeout finding whose repro.py hangs
  // past the limit, show it there too.
  if ((d.kind == DivergenceKind::kCrash && pr.started && !pr.timed_out && pr.signal != 0) ||
      (d.kind == DivergenceKind::kTimeout && pr.timed_out))
    attempts = hits = 1;
  rec.repro_attempts = attempts;
  rec.repro_hits = hits;
  std::string line = "repro.py in a fresh Python: ";
  if (!pr.started)
    line += "did not start (" + pr.error + ")";
  else if (pr.timed_out)
    line += "timed out after " + std::to_string(static_cast<int>(options.timeout_s)) + " s";
  else if (pr.signal != 0)
    line += "killed by signal " + std::to_string(pr.signal);
  else if (rec.repro_exit == 1 && hits > 0)
    line += "exit 1 (shows it) at attempt " + std::to_string(attempts);
  else if (rec.repro_exit == 1)  // a Python error outside the check: not the finding
    line += "exit 1 without \"the finding shows\" (the script failed: " + LastLine(output) + ")";
  else if (rec.repro_exit == 0)
    line += "exit 0 (the finding did not show) after " + std::to_string(attempts) + " attempts";
  else if (rec.repro_exit == kReproFailedExitCode)
    line += "exit 3 (it could not run its comparison here)";
  else
    line += "exit " + std::to_string(rec.repro_exit) + " (the script failed)";
  return line;
}

}  // namespace

StandaloneRecord CheckStandalone(Supervisor& sup, const CaseRun& c,
                                 const std::vector<std::string>& paths, const RunContext& ctx,
                                 const StandaloneOptions& options) {
  StandaloneRecord rec;
  if (c.finding >= c.verdict.divergences.size()) return rec;
  const Divergence& d = c.verdict.divergences[c.finding];
  // repro.py first: what a user runs, in a process of its own. Where it shows the finding at its
  // first attempt, the case's reruns in a fresh worker would only show it again at the price of
  // two more compiles, so they are skipped; where it does not (or cannot run), they say whether
  // the case still shows it and how often.
  std::string repro_line;
  if (!ReproCanShow(c))
    repro_line = "repro.py not run: it cannot build the test-only path at fault";
  else if (!options.python.empty())
    repro_line = RunRepro(c, d, ctx, options, rec);
  if (rec.repro_hits == 1 && rec.repro_attempts == 1) {  // exit 1, or the crash or hang found
    rec.detail = repro_line + "; no rerun in a fresh worker needed";
    return rec;
  }
  const std::string signature = CaseFinding(c).signature;
  const StagePlan plan = FindingPaths(d, paths);
  PathRunner run = RunnerOf(sup);
  std::vector<std::string> said;
  for (int i = 0; i < options.worker_runs; ++i) {
    if (i == 0) sup.Renew();  // a fresh process; the runs after it start fresh in it
    CaseRun again =
        AddControls(run, RunAndJudge(run, c.program, c.recipe, plan.first, c.before), plan, paths);
    ++rec.worker_runs;
    if (KeptFinding(CaseFindings(again), again.verdict, signature, d.classification))
      ++rec.worker_hits;
    else
      said.push_back("rerun " + std::to_string(i + 1) + ": " +
                     (again.verdict.diverges() ? Headline(again) : std::string("all paths agree")));
  }
  std::string line =
      "case rerun in a fresh worker" +
      std::string(c.before.empty()
                      ? ""
                      : " after its " + std::to_string(c.before.size()) + " calls before") +
      ": shows it in " + RunsText(rec.worker_hits, rec.worker_runs, "runs");
  if (!repro_line.empty()) line += "; " + repro_line;
  for (const auto& s : said) line += "; " + s.substr(0, 300);
  rec.detail = line;
  return rec;
}

}  // namespace mmdiff
