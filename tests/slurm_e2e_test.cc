// Campaigns on a real Slurm: a private single-host cluster (tests/slurm_cluster.sh: MUNGE,
// slurmctld and slurmd on 127.0.0.1 with free ports, state in a temporary folder, torn down by PID
// also when a test fails) runs `mmdiff cluster submit`'s array job; a task requeued mid-run, or the
// whole array cancelled and resubmitted, still gives the campaign one machine gives. Skips, saying
// why, where Slurm cannot run (not root, packages missing: MMDIFF_SLURM=1 scripts/setup).
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <regex>
#include <thread>

#include "src/support/files.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

namespace fs = std::filesystem;

const std::string kClusterScript = std::string(MMDIFF_SOURCE_DIR) + "/tests/slurm_cluster.sh";
const std::string kMmdiff = std::string(MMDIFF_BUILD_DIR) + "/mmdiff";
// A planted path that diverges on many programs; 300 cases give a few dozen buckets and take each
// of the three tasks long enough to be caught mid-run. No standalone check: a fresh worker and two
// reruns for each of those buckets would double each campaign's time, and CallSequenceE2E tests it.
constexpr int64_t kCases = 300, kTasks = 3;
const std::string kCampaign =
    "--seed 1 --cases " + std::to_string(kCases) +
    " --test-paths --paths reference,eager,planted_promote --no-reduce --no-standalone-check";

// Waits for `done` (a condition, polled), at most `seconds`; returns whether it came.
bool WaitFor(const std::function<bool()>& done, double seconds) {
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (done()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return done();
}

// A private cluster for one test, stopped when the test ends, however it ends.
class PrivateCluster {
 public:
  explicit PrivateCluster(int cpus) {
    char tmpl[] = "/tmp/mmdiff-slurm.XXXXXX";  // short: MUNGE's socket lives in it
    if (!mkdtemp(tmpl)) return;
    dir_ = tmpl;
    auto r = e2e::RunShell(kClusterScript + " start " + dir_ + " " + std::to_string(cpus));
    started_ = r.exit_code == 0;
    start_output_ = r.output;
  }
  ~PrivateCluster() {
    if (dir_.empty()) return;
    e2e::RunShell(kClusterScript + " stop " + dir_);
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  bool started() const { return started_; }
  const std::string& start_output() const { return start_output_; }
  // `command` with this cluster's Slurm configuration (never set in the test's own environment:
  // the teardown recognises the cluster's processes by it).
  e2e::CommandResult Run(const std::string& command) const {
    return e2e::RunShell("SLURM_CONF=" + dir_ + "/slurm.conf " + command);
  }
  // Whether squeue lists no job (pending, running or completing): the campaign's tasks and its
  // triage job, also one that the triage job submitted again.
  bool Idle() const {
    auto r = Run("squeue -h -o %i");
    return r.exit_code == 0 && r.output.find_first_not_of(" \n") == std::string::npos;
  }
  std::string Logs() const {
    return Run("tail -n 30 " + dir_ + "/log/slurmctld.log " + dir_ + "/log/slurmd.log").output;
  }

 private:
  std::string dir_, start_output_;
  bool started_ = false;
};

struct Submitted {
  std::string array, triage;
};

// Runs `mmdiff cluster ARGS` (submit or resubmit) on the cluster; the job ids it printed, both
// empty (and the test failed) when it did not submit both jobs.
Submitted SubmitOn(const PrivateCluster& cluster, const std::string& args) {
  auto r = cluster.Run(kMmdiff + " cluster " + args);
  std::smatch m;
  Submitted s;
  if (std::regex_search(r.output, m, std::regex("array job ([0-9]+)"))) s.array = m[1];
  if (std::regex_search(r.output, m, std::regex("triage job ([0-9]+)"))) s.triage = m[1];
  if (r.exit_code != 0 || s.array.empty() || s.triage.empty()) {
    ADD_FAILURE() << "mmdiff cluster " << args << ": " << r.output;
    return {};
  }
  return s;
}

std::vector<std::string> ShardDirs(const std::string& out, int64_t tasks = kTasks) {
  std::vector<std::string> dirs;
  for (int64_t i = 0; i < tasks; ++i) dirs.push_back(out + "/shard-" + std::to_string(i));
  return dirs;
}

int64_t CasesDone(const std::string& shard) {
  nlohmann::json s = e2e::CampaignSummary(shard);
  return s.is_object() ? s["cases"].get<int64_t>() : 0;
}

// The test's reference: the same campaign on this machine, one process.
std::map<std::string, e2e::CampaignBucket> OneMachine() {
  std::string dir = e2e::ScratchDir("slurm-one-machine");
  auto r = e2e::RunMmdiff("fuzz --jobs 1 " + kCampaign + " --out " + dir);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  auto buckets = e2e::CampaignBuckets(e2e::CampaignSummary(dir));
  EXPECT_GE(buckets.size(), 10u);
  return buckets;
}

// Every task and the triage job have ended; each shard spent its budget without a worker dying or
// a crash finding, and the merged shards are the one-machine campaign.
void ExpectTheOneMachineCampaign(const PrivateCluster& cluster, const std::string& out,
                                 const std::map<std::string, e2e::CampaignBucket>& one_machine,
                                 int64_t tasks = kTasks) {
  for (const std::string& dir : ShardDirs(out, tasks)) {
    nlohmann::json s = e2e::CampaignSummary(dir);
    ASSERT_TRUE(s.is_object()) << dir;
    EXPECT_EQ(s["worker_restarts"], 0) << dir << ": a worker died of a signal meant for the task";
    for (const auto& b : s["buckets"])
      EXPECT_EQ(b["headline"].get<std::string>().find("signal"), std::string::npos)
          << "a crash finding: " << b["headline"];
  }
  int64_t cases = 0;
  auto merged = e2e::MergedShardBuckets(ShardDirs(out, tasks), &cases);
  EXPECT_EQ(cases, kCases);
  EXPECT_EQ(merged, one_machine);
  auto status = cluster.Run(kMmdiff + " cluster status " + out);
  EXPECT_EQ(status.exit_code, 0) << status.output;
  const std::string n = std::to_string(tasks);
  EXPECT_NE(status.output.find(n + " shards, " + n + " complete; 300 cases checked"),
            std::string::npos)
      << status.output;
  // The (last) triage job merged them: its totals are the one machine's.
  int64_t diverging = 0;
  for (const auto& [hash, b] : one_machine) diverging += b.count;
  auto log = ReadFile(out + "/slurm/triage.log");
  ASSERT_TRUE(log.ok()) << log.error();
  std::string last = log.value().substr(log.value().rfind("triage of"));
  EXPECT_NE(last.find(std::to_string(one_machine.size()) + " buckets"), std::string::npos) << last;
  EXPECT_NE(last.find(std::to_string(diverging) + " diverging cases"), std::string::npos) << last;
  EXPECT_TRUE(fs::exists(out + "/triage/triage.md"));
}

#define START_CLUSTER_OR_SKIP(cluster)                                                       \
  {                                                                                          \
    auto why = e2e::RunShell(kClusterScript + " check");                                     \
    if (why.exit_code != 0) GTEST_SKIP() << "no Slurm cluster can run here: " << why.output; \
  }                                                                                          \
  PrivateCluster cluster(kTasks);                                                            \
  ASSERT_TRUE(cluster.started()) << cluster.start_output()

TEST(SlurmE2E, ARequeuedTaskResumesItsShardAndTheShardsMergeIntoTheOneMachineCampaign) {
  auto one_machine = OneMachine();
  START_CLUSTER_OR_SKIP(cluster);
  std::string out = e2e::ScratchDir("slurm-requeue");
  Submitted jobs = SubmitOn(cluster, "submit --tasks 3 --out " + out + " -- " + kCampaign);
  ASSERT_FALSE(jobs.array.empty());
  // Requeue a task that has judged cases and has some left: the one with the fewest done.
  std::string victim;
  ASSERT_TRUE(WaitFor(
      [&] {
        int64_t fewest = kCases;
        for (int64_t i = 0; i < kTasks; ++i) {
          int64_t done = CasesDone(ShardDirs(out)[i]);
          if (done > 0 && done < fewest) fewest = done, victim = std::to_string(i);
        }
        return !victim.empty();
      },
      300))
      << cluster.Logs();
  ASSERT_LT(CasesDone(out + "/shard-" + victim), kCases / kTasks)
      << "the task finished before the requeue: the test proves nothing";
  auto requeue = cluster.Run("scontrol requeue " + jobs.array + "_" + victim);
  ASSERT_EQ(requeue.exit_code, 0) << requeue.output;
  ASSERT_TRUE(WaitFor([&] { return cluster.Idle(); }, 900)) << cluster.Logs();
  nlohmann::json resumed = e2e::CampaignSummary(out + "/shard-" + victim);
  ASSERT_TRUE(resumed.is_object());
  EXPECT_EQ(resumed["resumes"], 1) << "the requeued task did not resume its shard";
  auto log = ReadFile(out + "/slurm/task-" + victim + ".log");
  ASSERT_TRUE(log.ok());
  EXPECT_NE(log.value().find("DUE TO JOB REQUEUE"), std::string::npos) << log.value();
  EXPECT_NE(log.value().find("restart 1) on"), std::string::npos) << log.value();
  ExpectTheOneMachineCampaign(cluster, out, one_machine);
}

TEST(SlurmE2E, AnArrayCancelledHalfwayAndResubmittedGivesTheOneMachineCampaign) {
  auto one_machine = OneMachine();
  START_CLUSTER_OR_SKIP(cluster);
  std::string out = e2e::ScratchDir("slurm-cancel");
  Submitted first = SubmitOn(cluster, "submit --tasks 3 --out " + out + " -- " + kCampaign);
  ASSERT_FALSE(first.array.empty());
  auto total = [&] {
    int64_t n = 0;
    for (const std::string& dir : ShardDirs(out)) n += CasesDone(dir);
    return n;
  };
  ASSERT_TRUE(WaitFor([&] { return total() > 0; }, 300)) << cluster.Logs();
  ASSERT_EQ(cluster.Run("scancel " + first.array).exit_code, 0);
  // The triage job runs after the cancelled tasks (afterany) on what they left.
  ASSERT_TRUE(WaitFor([&] { return cluster.Idle(); }, 300)) << cluster.Logs();
  ASSERT_LT(total(), kCases) << "the campaign finished before the cancel: the test proves nothing";
  auto partial = cluster.Run(kMmdiff + " cluster status " + out);
  EXPECT_EQ(partial.exit_code, 1) << partial.output;
  Submitted second = SubmitOn(cluster, "resubmit " + out);
  ASSERT_FALSE(second.array.empty());
  ASSERT_TRUE(WaitFor([&] { return cluster.Idle(); }, 900)) << cluster.Logs();
  ExpectTheOneMachineCampaign(cluster, out, one_machine);
}

// Slurm's warning before a task's time limit is USR1 to its batch shell (`--signal=B:USR1@N`, the
// script's directive, checked in slurm_campaign_test.cc); the test sends it as Slurm does, through
// scancel, once the task has judged cases (Slurm's own timing of it varies by tens of seconds). The
// campaign stops after the cases under way, the task requeues itself, resumes and loses nothing.
TEST(SlurmE2E, TheWarningSignalMakesATaskRequeueItselfAndResumeLosingNothing) {
  auto one_machine = OneMachine();
  START_CLUSTER_OR_SKIP(cluster);
  std::string out = e2e::ScratchDir("slurm-warning");
  Submitted jobs = SubmitOn(cluster, "submit --tasks 1 --out " + out + " -- " + kCampaign);
  ASSERT_FALSE(jobs.array.empty());
  ASSERT_TRUE(WaitFor([&] { return CasesDone(out + "/shard-0") > 0; }, 300)) << cluster.Logs();
  ASSERT_LT(CasesDone(out + "/shard-0"), kCases)
      << "the task finished before the warning: the test proves nothing";
  auto warn = cluster.Run("scancel --batch --signal=USR1 " + jobs.array + "_0");
  ASSERT_EQ(warn.exit_code, 0) << warn.output;
  ASSERT_TRUE(WaitFor([&] { return cluster.Idle(); }, 900)) << cluster.Logs();
  auto log = ReadFile(out + "/slurm/task-0.log");
  ASSERT_TRUE(log.ok());
  EXPECT_NE(log.value().find("requeueing this task to resume it"), std::string::npos)
      << log.value();
  EXPECT_NE(log.value().find("restart 1) on"), std::string::npos) << log.value();
  nlohmann::json s = e2e::CampaignSummary(out + "/shard-0");
  ASSERT_TRUE(s.is_object());
  EXPECT_EQ(s["resumes"], 1);
  ExpectTheOneMachineCampaign(cluster, out, one_machine, 1);
}

}  // namespace
}  // namespace mmdiff
