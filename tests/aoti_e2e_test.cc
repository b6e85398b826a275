// The aoti path through the worker: an exact mm equal to eager's, the loaded package reused for new
// input values, packages written under MMDIFF_AOTI_DIR and cleaned up (dead workers' folders too),
// export errors as error outcomes, and meta programs unsupported with the reason.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "src/exec/supervisor.h"
#include "src/report/report.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

namespace fs = std::filesystem;

// The pid of a process that has exited and been reaped.
pid_t DeadPid() {
  pid_t pid = fork();
  if (pid == 0) _exit(0);
  waitpid(pid, nullptr, 0);
  return pid;
}

int CountFiles(const fs::path& dir, const std::string& extension) {
  int n = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir))
    n += e.path().extension() == extension;
  return n;
}

TEST(AotiE2E, MmEqualsEagerReusesTheLoadedPackageAndCleansUp) {
  std::string dir = e2e::ScratchDir("aoti-mm");
  fs::path packages = fs::path(dir) / "packages";
  fs::path orphan = packages / ("mmdiff-aoti-" + std::to_string(DeadPid()));
  fs::create_directories(orphan);
  std::ofstream(orphan / "program-0.pt2") << "left by a worker that was killed";
  setenv("MMDIFF_AOTI_DIR", packages.c_str(), 1);  // the worker inherits it
  {
    Supervisor sup(e2e::WorkerOptions(dir + "/worker.log"));
    ASSERT_TRUE(sup.Hello().ok());
    Program p = e2e::LegalMm();
    for (uint64_t seed : {3, 4}) {
      InputRecipe r{"grid16", seed};  // exact sums: every correct path returns the same bits
      e2e::ExpectCompiledPathMatchesEager(sup.Run(p, r, {"reference", "eager", "aoti"}), p, r,
                                          seed == 3);
      // The dead worker's folder is gone; this worker's holds no package once it is loaded.
      EXPECT_FALSE(fs::exists(orphan));
      EXPECT_EQ(CountFiles(packages, ".pt2"), 0);
    }
  }
  // The worker removed its folder when it exited.
  EXPECT_TRUE(fs::is_empty(packages)) << fs::begin(fs::directory_iterator(packages))->path();
  unsetenv("MMDIFF_AOTI_DIR");
}

TEST(AotiE2E, AShapeMismatchIsARuntimeErrorFromExportNotACrash) {
  std::string dir = e2e::ScratchDir("aoti-mismatch");
  Supervisor sup(e2e::WorkerOptions(dir + "/worker.log"));
  ASSERT_TRUE(sup.Hello().ok());
  Program p = e2e::LegalMm();
  p.inputs[1].shape = {16, 3};  // 17 vs 16
  InputRecipe r{"grid16", 3};
  std::vector<PathResult> res = sup.Run(p, r, {"reference", "eager", "aoti"});
  ASSERT_EQ(res.size(), 3u);
  EXPECT_EQ(res[1].kind, OutcomeKind::kError);
  EXPECT_EQ(res[2].kind, OutcomeKind::kError) << res[2].message;
  EXPECT_EQ(res[2].error_class, "RuntimeError");  // the root cause under torch.export's wrapping
  EXPECT_NE(res[2].message.find("[5, 17] X [16, 3]"), std::string::npos) << res[2].message;
  EXPECT_FALSE(JudgeCase(p, r, res).verdict.diverges());
  EXPECT_EQ(sup.restarts(), 0);
}

TEST(AotiE2E, MetaProgramsAreUnsupportedWithTheReason) {
  std::string dir = e2e::ScratchDir("aoti-meta");
  Supervisor sup(e2e::WorkerOptions(dir + "/worker.log"));
  ASSERT_TRUE(sup.Hello().ok());
  Program p = e2e::LegalMm();
  p.inputs[0].device = Device::kMeta;
  std::vector<PathResult> res = sup.Run(p, {"grid16", 3}, {"aoti"});
  EXPECT_EQ(res[0].kind, OutcomeKind::kUnsupported);
  EXPECT_EQ(res[0].message, "aoti compiles programs for cpu and cuda only: input a is on meta");
}

}  // namespace
}  // namespace mmdiff
