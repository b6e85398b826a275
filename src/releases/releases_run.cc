// Every finding in every release.
#include "src/releases/releases_run.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <thread>

#include "oracles/contract.h"
#include "src/report/run_case.h"

namespace mmdiff {

namespace {

ReleaseCell RunCell(const ReleaseFinding& f, const std::vector<PathResult>& references,
                    const ReleaseVenv& venv, const ReleaseRunSettings& settings,
                    const std::string& tag, std::optional<ExpectedInRelease>& expected) {
  ReleaseCell cell;
  cell.release = venv.torch;
  cell.torch = venv.torch;
  auto start = std::chrono::steady_clock::now();
  ReleaseRunner runner(
      venv, settings,
      [&](const Program&, const InputRecipe&, const std::string& path) {
        const PathResult* r = FindResult(references, path);
        return r ? *r : PathResult{path};  // unsupported: not computed
      },
      tag, f.before);
  std::vector<PathResult> results = runner(f.program, f.recipe, f.paths);
  if (runner.failure().empty()) {
    CaseRun run = JudgeRun(std::ref(runner), f.program, f.recipe, std::move(results), f.before,
                           ParseTorchRelease(runner.torch()));
    cell.torch = runner.torch();
    if (runner.failure().empty()) {  // the zeroed rerun ran too, where there was one
      ClassifyReleaseRun(f, run, cell);
      expected = CompareWithEntry(f, cell.torch, run.verdict);
    }
  }
  if (!runner.failure().empty()) {
    cell.state = ReleaseState::kCannotRun;
    cell.detail = runner.failure();
  }
  cell.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return cell;
}

// An entry whose every diverging expectation holds only on a CPU with flags this one lacks: those
// flags ("" otherwise). Its absence here says nothing about the releases.
std::string UnmetCpuFlags(const ReleaseFinding& f) {
  if (!f.regression) return "";
  std::string flags;
  for (const auto& x : f.regression->expected) {
    if (!x.diverges) continue;
    std::vector<std::string> missing = MissingCpuFlags(x);
    if (missing.empty()) return "";
    for (const auto& m : missing)
      if (flags.find(m) == std::string::npos) flags += (flags.empty() ? "" : ", ") + m;
  }
  return flags;
}

}  // namespace

ReleasesTable RunAcrossReleases(std::vector<ReleaseFinding> findings,
                                const std::vector<std::vector<PathResult>>& references,
                                const ReleasesRunOptions& o) {
  ReleasesTable t;
  std::vector<std::string> releases;
  for (const auto& v : o.venvs) releases.push_back(v.torch);
  for (auto& f : findings) PickEntryFinding(f, releases);
  for (const auto& v : o.venvs) t.releases.push_back({v.torch, ""});
  for (const auto& f : findings) {
    ReleaseRow row;
    row.file = f.file;
    row.title = f.title;
    row.entry = f.regression.has_value();
    row.bucket = f.bucket;
    row.cells.resize(o.venvs.size());
    row.expected.resize(o.venvs.size());
    t.rows.push_back(std::move(row));
  }
  const size_t tasks = findings.size() * o.venvs.size();
  std::atomic<size_t> next{0};
  std::mutex lock;
  size_t done = 0;
  auto work = [&] {
    for (size_t k; (k = next.fetch_add(1)) < tasks;) {
      const size_t i = k / o.venvs.size(), v = k % o.venvs.size();
      ReleaseRow& row = t.rows[i];
      row.cells[v] = RunCell(findings[i], references[i], o.venvs[v], o.settings,
                             "finding" + std::to_string(i), row.expected[v]);
      std::lock_guard<std::mutex> g(lock);
      ++done;
      if (o.progress) {
        char secs[32];
        std::snprintf(secs, sizeof secs, "%.1f", row.cells[v].seconds);
        o.progress("[" + std::to_string(done) + "/" + std::to_string(tasks) + "] " + row.file +
                   " in " + row.cells[v].release + ": " +
                   std::string(ReleaseStateName(row.cells[v].state)) + " (" + secs + " s)");
      }
    }
  };
  std::vector<std::thread> threads;
  const int n = std::max(1, std::min<int>(o.jobs, static_cast<int>(tasks)));
  for (int j = 0; j < n; ++j) threads.emplace_back(work);
  for (auto& th : threads) th.join();
  for (size_t i = 0; i < t.rows.size(); ++i) {
    ReleaseRow& row = t.rows[i];
    row.history = SummarizeReleases(row.cells);
    if (std::string flags = UnmetCpuFlags(findings[i]); !flags.empty())
      row.history.summary += " (its divergence needs a CPU with " + flags + "; this one lacks it)";
    if (std::string home = NotReproducedWhereFound(findings[i], row.cells); !home.empty())
      row.history.summary += " (not reproduced alone in " + home +
                             ", where it was found: it may depend on what ran before it there)";
    for (size_t v = 0; v < row.cells.size(); ++v)
      if (t.releases[v].torch.empty() && row.cells[v].state != ReleaseState::kCannotRun)
        t.releases[v].torch = row.cells[v].torch;
  }
  return t;
}

}  // namespace mmdiff
