// The supervisor survives workers that segfault, abort, are SIGKILLed or loop forever: each becomes
// a crash or timeout result naming the path and stage, and the next path runs in a fresh worker.
// The worker publishes its paths' traits, the ones files are read back with, and a path that needs
// a GPU says so by its reason on a machine without one.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>

#include "src/exec/supervisor.h"
#include "src/ir/recorded_paths.h"
#include "src/report/report.h"
#include "src/support/files.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

SupervisorOptions Options(double timeout_s, const std::string& log) {
  SupervisorOptions o;
  o.worker_binary = e2e::WorkerBinary();
  o.worker_args = {"--test-paths"};
  o.stage_timeout_s = timeout_s;
  o.log_path = log;
  return o;
}

void ExpectSurvived(const std::string& crasher, OutcomeKind kind, int signal,
                    double timeout_s = 60) {
  std::string dir = e2e::ScratchDir("sup-" + crasher);
  Supervisor sup(Options(timeout_s, dir + "/worker.log"));
  ASSERT_TRUE(sup.Hello().ok());
  Program p = e2e::LegalMm();
  InputRecipe r{"grid16", 3};
  std::vector<PathResult> res = sup.Run(p, r, {"reference", crasher, "eager"});
  ASSERT_EQ(res.size(), 3u);
  EXPECT_EQ(res[0].kind, OutcomeKind::kOk);
  EXPECT_EQ(res[1].path, crasher);
  EXPECT_EQ(res[1].kind, kind) << res[1].message;
  EXPECT_EQ(res[1].stage, "compile");
  EXPECT_EQ(res[1].signal, signal);
  // The worker was replaced and the remaining path still ran.
  EXPECT_EQ(res[2].path, "eager");
  EXPECT_EQ(res[2].kind, OutcomeKind::kOk) << res[2].message;
  EXPECT_EQ(sup.restarts(), 1);
  // The supervisor keeps working afterwards.
  std::vector<PathResult> again = sup.Run(p, r, {"eager"});
  ASSERT_EQ(again.size(), 1u);
  EXPECT_EQ(again[0].kind, OutcomeKind::kOk);

  // The case is recorded as a finding naming the path and the stage.
  CaseRun c = JudgeCase(p, r, res);
  ASSERT_TRUE(c.verdict.diverges());
  ASSERT_TRUE(WriteFinding(dir + "/finding", c, RunContext{}).ok());
  auto text = ReadFile(dir + "/finding/report.json");
  ASSERT_TRUE(text.ok());
  auto j = nlohmann::json::parse(text.value());
  EXPECT_EQ(j["verdict"]["divergences"][0]["blamed"], crasher);
  EXPECT_EQ(j["verdict"]["divergences"][0]["kind"],
            kind == OutcomeKind::kCrash ? "crash" : "timeout");
  EXPECT_NE(j["verdict"]["divergences"][0]["detail"].get<std::string>().find("compile"),
            std::string::npos);
}

TEST(SupervisorE2E, SurvivesSegfault) {
  ExpectSurvived("crash_segv", OutcomeKind::kCrash, SIGSEGV);
}
TEST(SupervisorE2E, SurvivesAbort) { ExpectSurvived("crash_abort", OutcomeKind::kCrash, SIGABRT); }
TEST(SupervisorE2E, SurvivesSigkill) {
  ExpectSurvived("crash_sigkill", OutcomeKind::kCrash, SIGKILL);
}
// 5 s: short enough for a test, long enough that the legitimate paths of the same case never hit it
// on a loaded 2-core machine (ctest -j2 next to torch.compile work).
TEST(SupervisorE2E, KillsAnEndlessLoopAfterTheTimeout) {
  ExpectSurvived("hang", OutcomeKind::kTimeout, 0, 5.0);
}

TEST(SupervisorE2E, MissingWorkerBinaryIsAClearError) {
  SupervisorOptions o;
  o.worker_binary = "/nonexistent/mmdiff-worker";
  o.startup_timeout_s = 10;
  o.log_path = e2e::ScratchDir("sup-missing") + "/worker.log";
  Supervisor sup(o);
  Status s = sup.Hello();
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("cannot start worker"), std::string::npos) << s.message();
}

std::string WorkerCwd(const Supervisor& sup) {
  return std::filesystem::read_symlink("/proc/" + std::to_string(sup.worker_pid()) + "/cwd")
      .string();
}

// Torch writes debug files into its current folder: a worker runs in the folder it was given (a
// campaign's worker-files/), or in a private temporary one that goes with the supervisor, never
// in the folder mmdiff was started from; a relative worker binary still starts.
TEST(SupervisorE2E, WorkerRunsInAFolderOfItsOwn) {
  namespace fs = std::filesystem;
  std::string dir = e2e::ScratchDir("sup-folder");
  SupervisorOptions o = Options(60, dir + "/worker.log");
  o.work_dir = dir + "/worker-files";
  {
    Supervisor sup(o);
    ASSERT_TRUE(sup.Hello().ok());
    EXPECT_EQ(WorkerCwd(sup), fs::canonical(dir + "/worker-files").string());
  }
  EXPECT_TRUE(fs::is_directory(dir + "/worker-files"));  // the campaign keeps it

  o.work_dir = "";
  o.worker_binary = fs::relative(e2e::WorkerBinary(), fs::current_path()).string();
  ASSERT_FALSE(fs::path(o.worker_binary).is_absolute());
  std::string cwd;
  {
    Supervisor sup(o);
    ASSERT_TRUE(sup.Hello().ok());
    cwd = WorkerCwd(sup);
    EXPECT_NE(cwd, fs::current_path().string());
    EXPECT_NE(cwd.find("mmdiff-worker-"), std::string::npos) << cwd;
    // A restarted worker gets the same folder.
    sup.Renew();
    ASSERT_EQ(sup.Run(e2e::LegalMm(), InputRecipe{"grid16", 3}, {"eager"})[0].kind,
              OutcomeKind::kOk);
    EXPECT_EQ(WorkerCwd(sup), cwd);
  }
  EXPECT_FALSE(fs::exists(cwd));
}

// Reports and regression entries record path names only; read back, their paths get the recorded
// traits (src/ir/recorded_paths.h), which must be what the worker publishes.
TEST(SupervisorE2E, PublishedTraitsAreTheRecordedOnes) {
  Supervisor sup(Options(60, e2e::ScratchDir("sup-traits") + "/worker.log"));
  ASSERT_TRUE(sup.Hello().ok());
  ASSERT_GT(sup.paths().size(), 20u);
  for (const auto& p : sup.paths())
    EXPECT_EQ(PathTraitsToJson(p.traits), PathTraitsToJson(RecordedPathTraits(p.name))) << p.name;
  EXPECT_TRUE(sup.Traits("inductor")->compiled);
  EXPECT_TRUE(sup.Traits("aoti")->slow());
  EXPECT_TRUE(sup.Traits("inductor_fallback_random")->variant);
  EXPECT_FALSE(sup.Traits("planted_promote")->compiled);
  EXPECT_TRUE(sup.Traits("planted_promote")->test_only);
}

// Without a GPU, a cuda program is unsupported with reason no_gpu on exactly the paths whose
// traits say they need one; the reference computes it on the CPU.
TEST(SupervisorE2E, APathThatNeedsAGpuSaysSoByItsReason) {
  if (std::filesystem::exists("/dev/nvidia0") || std::filesystem::exists("/dev/nvidiactl"))
    GTEST_SKIP() << "this machine has a GPU: cuda programs run";
  Supervisor sup(Options(60, e2e::ScratchDir("sup-no-gpu") + "/worker.log"));
  ASSERT_TRUE(sup.Hello().ok());
  Program p = e2e::LegalMm();
  for (auto& in : p.inputs) in.device = Device::kCuda;
  std::vector<std::string> paths;
  for (const auto& info : sup.paths())  // not the crashers
    if (info.available && (!info.traits.test_only || info.traits.needs_gpu))
      paths.push_back(info.name);
  std::vector<PathResult> res = sup.Run(p, {"grid16", 3}, paths);
  ASSERT_EQ(res.size(), paths.size());
  int no_gpu = 0;
  for (const auto& r : res) {
    bool says_no_gpu =
        r.kind == OutcomeKind::kUnsupported && r.unsupported == UnsupportedReason::kNoGpu;
    EXPECT_EQ(says_no_gpu, r.traits.needs_gpu) << r.path << ": " << r.message;
    no_gpu += says_no_gpu;
  }
  EXPECT_GE(no_gpu, 3) << "eager and the compiled paths at least";
  EXPECT_EQ(FindResult(res, "reference")->kind, OutcomeKind::kOk);
  EXPECT_EQ(FindResult(res, "eager_meta")->unsupported, UnsupportedReason::kDevice);
  EXPECT_EQ(sup.restarts(), 0);
}

}  // namespace
}  // namespace mmdiff
