// Stopping a campaign with signals as `timeout`, Slurm, systemd and a terminal send them: to the
// whole process group. The workers are not the target (they are in a group of their own), the
// cases under way finish, the summary is written and the exit code is 0; a second signal a second
// later stops at once.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "src/support/files.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

namespace fs = std::filesystem;

const std::string kPlanted =
    "--seed 1 --test-paths --paths reference,eager,planted_promote --no-reduce --no-ablation";

nlohmann::json Summary(const std::string& dir) { return e2e::CampaignSummary(dir); }

// An interrupted campaign that lost nothing: no worker died, no crash finding, every listed
// finding complete and nothing half-written in findings/.
void ExpectCleanlyInterrupted(const std::string& dir) {
  nlohmann::json s = Summary(dir);
  ASSERT_TRUE(s.is_object()) << "no summary.json in " << dir;
  EXPECT_EQ(s["interrupted"], true);
  EXPECT_EQ(s["worker_restarts"], 0) << "a worker was killed by the signal meant for the campaign";
  EXPECT_GT(s["cases"].get<int64_t>(), 0);
  for (const auto& b : s["buckets"]) {
    std::string headline = b["headline"];
    EXPECT_EQ(headline.find("signal"), std::string::npos) << "a crash finding: " << headline;
    EXPECT_TRUE(fs::exists(fs::path(dir) / b["finding"].get<std::string>() / "report.json"))
        << headline;
  }
  for (const auto& e : fs::directory_iterator(fs::path(dir) / "findings"))
    EXPECT_EQ(e.path().filename().string().find('.'), std::string::npos)
        << "left behind: " << e.path();
}

// The shell lines that start a campaign in a session of its own (its pid is its process group,
// which `kill -TERM -$pid` signals: dash's kill takes no `--`) and wait, with a generous bound,
// until it has judged cases.
std::string StartAndWaitForCases(const std::string& args, const std::string& dir) {
  return "setsid " + std::string(MMDIFF_BUILD_DIR) + "/mmdiff fuzz " + args + " --out " + dir +
         " >" + dir +
         ".log 2>&1 & pid=$!; for i in $(seq 1200); do sleep 0.1; grep -q '\"cases\": [1-9]' " +
         dir + "/summary.json 2>/dev/null && break; done; ";
}

TEST(CampaignSignalE2E, TimeoutsSigtermFinishesTheCasesUnderWayAndExitsZero) {
  std::string dir = e2e::ScratchDir("signal-timeout");
  // `timeout` signals its command and then the command's process group (workers included, unless
  // they have a group of their own); --preserve-status returns the campaign's own exit code. A
  // SIGTERM that `timeout` receives takes the same way as its own expiry, so the test sends one
  // once the campaign has judged cases (a condition, not a fixed delay that a busy machine might
  // spend starting workers).
  auto r = e2e::RunShell(
      "(timeout --preserve-status -s TERM 600 " + std::string(MMDIFF_BUILD_DIR) +
      "/mmdiff fuzz --time 600 --jobs 2 " + kPlanted + " --out " + dir + " >" + dir +
      ".log 2>&1 & pid=$!; for i in $(seq 1200); do sleep 0.1; grep -q '\"cases\": [1-9]' " + dir +
      "/summary.json 2>/dev/null && break; done; kill -TERM $pid; wait $pid; echo rc=$?)");
  EXPECT_NE(r.output.find("rc=0"), std::string::npos) << r.output;
  ExpectCleanlyInterrupted(dir);
}

TEST(CampaignSignalE2E, SigtermToTheProcessGroupFinishesTheCasesUnderWayAndExitsZero) {
  std::string dir = e2e::ScratchDir("signal-group");
  auto r = e2e::RunShell("(" + StartAndWaitForCases("--time 600 --jobs 2 " + kPlanted, dir) +
                         "kill -TERM -$pid; wait $pid; echo rc=$?)");
  EXPECT_NE(r.output.find("rc=0"), std::string::npos) << r.output;
  ExpectCleanlyInterrupted(dir);
}

// A scheduler that stops a job (Slurm's proctrack/linuxproc or cgroup on scancel, requeue or
// preemption) signals every process of it, the workers too: they leave stopping to the campaign.
TEST(CampaignSignalE2E, SigtermToEveryProcessAsASchedulerSendsItFinishesTheCasesUnderWay) {
  std::string dir = e2e::ScratchDir("signal-everyone");
  auto r = e2e::RunShell("(" + StartAndWaitForCases("--time 600 --jobs 2 " + kPlanted, dir) +
                         "workers=$(pgrep -P $pid); [ -n \"$workers\" ] || echo no-workers; "
                         "kill -TERM $pid $workers; wait $pid; echo rc=$?)");
  EXPECT_EQ(r.output.find("no-workers"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("rc=0"), std::string::npos) << r.output;
  ExpectCleanlyInterrupted(dir);
}

TEST(CampaignSignalE2E, ASecondSignalStopsAtOnce) {
  std::string dir = e2e::ScratchDir("signal-twice");
  // Every case hangs in the test path `hang` until --timeout (300 s): after the first signal the
  // campaign would wait that long for the cases under way.
  std::string args =
      "--time 600 --jobs 1 --seed 1 --test-paths --paths reference,eager,hang --timeout 300 "
      "--no-reduce";
  std::string start =
      "setsid " + std::string(MMDIFF_BUILD_DIR) + "/mmdiff fuzz " + args + " --out " + dir + " >" +
      dir + ".log 2>&1 & pid=$!; for i in $(seq 1200); do sleep 0.1; grep -q 'campaign (seed' " +
      dir + ".log && break; done; sleep 1; ";
  auto t0 = std::chrono::steady_clock::now();
  auto r = e2e::RunShell("(" + start +
                         "kill -TERM -$pid; sleep 1.5; kill -TERM -$pid; wait $pid; echo rc=$?)");
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_NE(r.output.find("rc=143"), std::string::npos) << r.output;
  EXPECT_LT(seconds, 200)
      << "the second signal did not stop the campaign before the hung case's timeout";
  auto log = ReadFile(dir + ".log");
  ASSERT_TRUE(log.ok());
  EXPECT_NE(log.value().find("second signal"), std::string::npos) << log.value();
}

}  // namespace
}  // namespace mmdiff
