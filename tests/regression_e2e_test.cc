// Every saved entry in corpus/regression/ runs on the installed torch and must give the verdict the
// entry expects for that torch version (entries without an expectation for it are skipped, saying
// so).
#include <gtest/gtest.h>

#include <filesystem>

#include "mmdiff/build_info.h"
#include "src/exec/supervisor.h"
#include "src/report/regression_entry.h"
#include "src/report/report.h"
#include "src/report/run_case.h"
#include "src/support/files.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

namespace fs = std::filesystem;

TEST(RegressionE2E, SavedEntriesGiveTheirExpectedVerdict) {
  fs::path dir = fs::path(MMDIFF_SOURCE_DIR) / "corpus" / "regression";
  SupervisorOptions o;
  o.worker_binary = e2e::WorkerBinary();
  o.log_path = e2e::ScratchDir("regression") + "/worker.log";
  Supervisor sup(o);
  ASSERT_TRUE(sup.Hello().ok());
  int checked = 0, skipped = 0;
  for (const auto& f : fs::directory_iterator(dir)) {
    if (f.path().extension() != ".json") continue;
    auto text = ReadFile(f.path().string());
    ASSERT_TRUE(text.ok());
    auto entry = ParseRegressionEntry(text.value());
    ASSERT_TRUE(entry.ok()) << f.path() << ": " << entry.error();
    auto want = ExpectationFor(entry.value(), build_info::kTorchVersion);
    if (!want) {
      ++skipped;
      std::cout << "no expectation for torch " << build_info::kTorchVersion << " in " << f.path()
                << "\n";
      continue;
    }
    if (!MissingCpuFlags(*want).empty()) {
      ++skipped;
      std::cout << "this CPU lacks the flags the expectation of " << f.path() << " needs\n";
      continue;
    }
    const RegressionEntry& e = entry.value();
    CaseRun c = RunAndJudge(sup, e.program, e.recipe, e.paths);
    EXPECT_EQ(CompareWithExpectation(c.verdict, *want), "")
        << f.path() << " on torch " << build_info::kTorchVersion << ": "
        << VerdictToJson(c.verdict).dump(2);
    ++checked;
  }
  if (checked == 0)
    GTEST_SKIP() << "no regression entry has an expectation for torch " << build_info::kTorchVersion
                 << " (" << skipped << " skipped)";
}

}  // namespace
}  // namespace mmdiff
