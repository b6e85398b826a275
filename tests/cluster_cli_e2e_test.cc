// The cluster-facing command line without a cluster: --shard auto from a scheduler's environment,
// one campaign process per folder, and `mmdiff cluster` refusing what it cannot submit.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "src/support/files.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

namespace fs = std::filesystem;

const std::string kMmdiff = std::string(MMDIFF_BUILD_DIR) + "/mmdiff";
const std::string kPlanted =
    "--seed 1 --test-paths --paths reference,eager,planted_promote --no-reduce --no-ablation";

TEST(ClusterCliE2E, ShardAutoTakesTheArrayTaskOrTheIndexedJobsPodAndSaysWhatIsMissing) {
  std::string slurm = e2e::ScratchDir("auto-slurm"), k8s = e2e::ScratchDir("auto-k8s");
  auto r = e2e::RunShell(
      "SLURM_ARRAY_TASK_ID=6 SLURM_ARRAY_TASK_MIN=2 SLURM_ARRAY_TASK_MAX=8 "
      "SLURM_ARRAY_TASK_STEP=2 SLURM_ARRAY_TASK_COUNT=4 " +
      kMmdiff + " fuzz --shard auto --cases 12 --jobs 1 " + kPlanted + " --out " + slurm);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json s = e2e::CampaignSummary(slurm);
  EXPECT_EQ(s["shard"], "2/4");
  EXPECT_EQ(s["cases"], 3);  // 2, 6, 10
  r = e2e::RunShell("JOB_COMPLETION_INDEX=1 MMDIFF_SHARD_COUNT=3 " + kMmdiff +
                    " fuzz --shard auto --cases 6 --jobs 1 " + kPlanted + " --out " + k8s);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(e2e::CampaignSummary(k8s)["shard"], "1/3");
  // Nothing to take it from, or a count missing: usage errors that say so, nothing written.
  std::string none = e2e::ScratchDir("auto-none");
  r = e2e::RunShell("env -u SLURM_ARRAY_TASK_ID -u JOB_COMPLETION_INDEX " + kMmdiff +
                    " fuzz --shard auto --cases 6 " + kPlanted + " --out " + none);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("neither SLURM_ARRAY_TASK_ID"), std::string::npos) << r.output;
  r = e2e::RunShell("JOB_COMPLETION_INDEX=1 " + kMmdiff + " fuzz --shard auto --cases 6 " +
                    kPlanted + " --out " + none);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("MMDIFF_SHARD_COUNT"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(none + "/summary.json"));
  // A resume that names another shard than the folder's is refused.
  r = e2e::RunShell("JOB_COMPLETION_INDEX=0 MMDIFF_SHARD_COUNT=3 " + kMmdiff + " fuzz --resume " +
                    k8s + " --shard auto");
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("holds shard 1/3, not shard 0/3"), std::string::npos) << r.output;
  r = e2e::RunShell("JOB_COMPLETION_INDEX=1 MMDIFF_SHARD_COUNT=3 " + kMmdiff + " fuzz --resume " +
                    k8s + " --shard auto");
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(ClusterCliE2E, ASecondCampaignProcessInTheSameFolderIsRefused) {
  std::string dir = e2e::ScratchDir("locked");
  // flock(1) holds the folder's lock as a running campaign would.
  fs::create_directories(dir);
  auto r = e2e::RunShell("flock " + dir + "/.fuzz.lock " + kMmdiff + " fuzz --cases 3 " + kPlanted +
                         " --out " + dir);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("in use by another `mmdiff fuzz`"), std::string::npos) << r.output;
  r = e2e::RunMmdiff("fuzz --cases 3 --jobs 1 " + kPlanted + " --out " + dir);
  EXPECT_EQ(r.exit_code, 0) << r.output;
}

TEST(ClusterCliE2E, SubmitChecksTheFuzzOptionsAndWritesPlainBatchScripts) {
  std::string out = e2e::ScratchDir("submit");
  // What fuzz itself would reject is refused before anything is queued.
  for (const char* bad : {"--cases -4", "--no-such-option", "--out /elsewhere", "--shard 0/2",
                          "--paths reference --jobs 0"}) {
    auto r = e2e::RunMmdiff("cluster submit --tasks 2 --dry-run --out " + out + " -- " +
                            std::string(bad));
    EXPECT_EQ(r.exit_code, 2) << bad << ": " << r.output;
    EXPECT_FALSE(fs::exists(out + "/slurm")) << bad;
  }
  auto bad_partition =
      e2e::RunMmdiff("cluster submit --tasks 2 --dry-run --partition 'a b' --out " + out);
  EXPECT_EQ(bad_partition.exit_code, 2) << bad_partition.output;
  auto r = e2e::RunMmdiff("cluster submit --tasks 2 --dry-run --gres gpu:1 --out " + out +
                          " -- --cases 40 --seed 5");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto task = ReadFile(out + "/slurm/task.sbatch");
  ASSERT_TRUE(task.ok());
  EXPECT_NE(task.value().find("#SBATCH --array=0-1\n"), std::string::npos);
  EXPECT_NE(task.value().find("'--cases' '40' '--seed' '5' --shard auto"), std::string::npos);
  EXPECT_NE(fs::status(out + "/slurm/task.sbatch").permissions() & fs::perms::owner_exec,
            fs::perms::none);
  // The folder now holds a campaign: a second submit into it is refused, resubmit is the way.
  r = e2e::RunMmdiff("cluster submit --tasks 2 --dry-run --out " + out);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("cluster resubmit"), std::string::npos) << r.output;
  // Without Slurm on PATH, submitting is an environment error that says so.
  r = e2e::RunShell("PATH=/nonexistent " + kMmdiff + " cluster resubmit " + out);
  EXPECT_EQ(r.exit_code, 3) << r.output;
  EXPECT_NE(r.output.find("cannot run sbatch"), std::string::npos) << r.output;
  r = e2e::RunMmdiff("cluster resubmit " + e2e::ScratchDir("empty"));
  EXPECT_EQ(r.exit_code, 2) << r.output;
}

TEST(ClusterCliE2E, StatusSaysWhichShardsHaveTheirBudgetLeft) {
  std::string out = e2e::ScratchDir("status");
  ASSERT_EQ(e2e::RunMmdiff("fuzz --shard 0/2 --cases 8 --jobs 1 " + kPlanted + " --out " + out +
                           "/shard-0")
                .exit_code,
            0);
  auto r = e2e::RunMmdiff("cluster status " + out);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("1 shards, 1 complete; 4 cases checked"), std::string::npos) << r.output;
  // A shard whose summary promises more cases than it has done (as after a kill) is not complete.
  ASSERT_EQ(e2e::RunMmdiff("fuzz --shard 1/2 --cases 2 --jobs 1 " + kPlanted + " --out " + out +
                           "/shard-1")
                .exit_code,
            0);
  auto text = ReadFile(out + "/shard-1/summary.json");
  ASSERT_TRUE(text.ok());
  nlohmann::json j = nlohmann::json::parse(text.value());
  j["budget"]["cases"] = 8;
  ASSERT_TRUE(WriteFileAtomic(out + "/shard-1/summary.json", j.dump()).ok());
  r = e2e::RunMmdiff("cluster status " + out);
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("1 of 4"), std::string::npos) << r.output;
  ASSERT_TRUE(WriteFileAtomic(out + "/shard-1/summary.json", "{\"trunc").ok());
  EXPECT_EQ(e2e::RunMmdiff("cluster status " + out).exit_code, 2);
  EXPECT_EQ(e2e::RunMmdiff("cluster status " + e2e::ScratchDir("nothing")).exit_code, 2);
}

}  // namespace
}  // namespace mmdiff
