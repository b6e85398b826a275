// A campaign started through src/campaign's entry point (StartCampaign), without the CLI: it runs
// on the real worker and writes its folder, refuses a folder that holds a campaign or that another
// process holds, and resumes.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <limits>
#include <string>

#include "src/campaign/campaign_start.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

CampaignStart Workers() {
  CampaignStart s;
  s.worker_binary = e2e::WorkerBinary();
  s.python = e2e::VenvPython();
  s.stop_on_signals = false;
  return s;
}

TEST(CampaignStartE2E, ACampaignStartsHoldsItsFolderAndResumesWithoutTheCli) {
  const std::string dir = e2e::ScratchDir("campaign-start") + "/c";
  CampaignStart s = Workers();
  FuzzOptions& o = s.options;
  o.out_dir = dir;
  o.seed = 7;
  o.max_cases = 200;
  o.time_s = std::numeric_limits<double>::infinity();
  o.jobs = 2;
  o.test_paths = true;
  o.reduce_budget = 0;
  o.standalone_check = false;
  o.ablation = false;
  s.path_list = "reference,eager,planted_promote";
  CampaignEnd end = StartCampaign(s);
  ASSERT_EQ(end.exit_code, kExitOk) << end.error;
  EXPECT_EQ(end.summary.cases, 200);
  EXPECT_EQ(end.options.paths, (std::vector<std::string>{"reference", "eager", "planted_promote"}));
  EXPECT_FALSE(end.options.steer) << "auto steering needs inductor among the paths";
  bool planted = false;
  for (const auto& [hash, b] : end.summary.buckets)
    planted |= b.signature.find("path=planted_promote") != std::string::npos;
  EXPECT_TRUE(planted) << "the planted path's promotion was not found in 200 cases";
  // What it returned is what its folder says.
  nlohmann::json written = e2e::CampaignSummary(dir);
  ASSERT_TRUE(written.is_object());
  EXPECT_EQ(written["cases"], 200);
  EXPECT_EQ(written["buckets"].size(), end.summary.buckets.size());

  // The folder holds a campaign: a new one there is refused.
  CampaignEnd again = StartCampaign(s);
  EXPECT_EQ(again.exit_code, kExitUsage);
  EXPECT_NE(again.error.find("already holds a campaign"), std::string::npos) << again.error;

  // Another process's lock on the folder (as a campaign still running holds it) refuses a resume.
  CampaignStart r = Workers();
  r.resume = dir;
  r.resume_cases = 260;
  int fd = open((dir + "/.fuzz.lock").c_str(), O_RDWR | O_CLOEXEC);
  ASSERT_GE(fd, 0);
  pid_t holder = fork();
  if (holder == 0) {  // a process of its own: flock locks are per open file, across processes
    int own = open((dir + "/.fuzz.lock").c_str(), O_RDWR);
    if (own < 0 || flock(own, LOCK_EX) != 0) _exit(1);
    pause();
    _exit(0);
  }
  ASSERT_GT(holder, 0);
  // Wait (at most 60 s) until the holder has the lock.
  bool held = false;
  for (int i = 0; i < 600 && !held; ++i) {
    held = flock(fd, LOCK_EX | LOCK_NB) != 0;
    if (!held) {
      flock(fd, LOCK_UN);
      usleep(100000);
    }
  }
  close(fd);
  ASSERT_TRUE(held) << "the helper process never took the lock";
  CampaignEnd locked = StartCampaign(r);
  kill(holder, SIGKILL);
  waitpid(holder, nullptr, 0);
  EXPECT_EQ(locked.exit_code, kExitUsage);
  EXPECT_NE(locked.error.find("is in use by another"), std::string::npos) << locked.error;

  // Resumed to 260 cases: the campaign's own paths and seed, one resume more.
  CampaignEnd resumed = StartCampaign(r);
  ASSERT_EQ(resumed.exit_code, kExitOk) << resumed.error;
  EXPECT_EQ(resumed.summary.cases, 260);
  EXPECT_EQ(resumed.summary.resumes, 1);
  EXPECT_EQ(resumed.options.seed, 7u);
  EXPECT_EQ(resumed.options.paths, end.options.paths);
  EXPECT_EQ(e2e::CampaignSummary(dir)["cases"], 260);
}

}  // namespace
}  // namespace mmdiff
