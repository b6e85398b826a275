// The supervisor survives workers that segfault, abort, are SIGKILLed or loop forever: each becomes
// a crash or timeout result naming the path and stage, and the next path runs in a fresh worker.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>

#include "src/exec/supervisor.h"
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
  CaseRun c = MakeCaseRun(p, r, res);
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

}  // namespace
}  // namespace mmdiff
