// A Slurm campaign's scripts written into its folder (once), its task count read back, its shard
// folders found in index order, and a submission without sbatch an error that says so.
#include "src/cluster/slurm_submit.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "src/support/files.h"

namespace mmdiff {
namespace {

namespace fs = std::filesystem;

SlurmCampaign Campaign(const std::string& out) {
  SlurmCampaign c;
  c.mmdiff = "/opt/mmdiff/build/mmdiff";
  c.out_dir = out;
  c.tasks = 5;
  c.fuzz_args = {"--seed", "7", "--cases", "400"};
  return c;
}

TEST(SlurmSubmit, ScriptsAreWrittenOnceExecutableAndGiveTheirTaskCountBack) {
  PrivateTempDir tmp("mmdiff-slurm-submit-test");
  ASSERT_TRUE(tmp.ok());
  const std::string out = tmp.File("camp");
  EXPECT_FALSE(SubmittedTasks(out).ok());
  ClusterStep w = WriteSlurmScripts(Campaign(out));
  ASSERT_EQ(w.exit_code, kExitOk) << w.error;
  for (const char* name : {"task.sbatch", "triage.sbatch"}) {
    struct stat st;
    ASSERT_EQ(stat((fs::path(out) / "slurm" / name).c_str(), &st), 0) << name;
    EXPECT_TRUE(st.st_mode & S_IXUSR) << name;
  }
  auto tasks = SubmittedTasks(out);
  ASSERT_TRUE(tasks.ok()) << tasks.error();
  EXPECT_EQ(tasks.value(), 5);
  // The folder holds a campaign now: a second one there is bad usage.
  ClusterStep again = WriteSlurmScripts(Campaign(out));
  EXPECT_EQ(again.exit_code, kExitUsage);
  EXPECT_NE(again.error.find("already holds a campaign"), std::string::npos) << again.error;
  // A value that cannot go into a #SBATCH line is refused before anything is written.
  SlurmCampaign bad = Campaign(tmp.File("bad"));
  bad.partition = "gpu\n#SBATCH --uid=0";
  ClusterStep refused = WriteSlurmScripts(bad);
  EXPECT_EQ(refused.exit_code, kExitUsage);
  EXPECT_EQ(refused.error.find('\n'), std::string::npos) << "one terminal line";
  EXPECT_FALSE(fs::exists(tmp.File("bad")));
}

TEST(SlurmSubmit, ShardFoldersComeInIndexOrderAndAShardIsItsOwnFolder) {
  PrivateTempDir tmp("mmdiff-slurm-submit-test");
  ASSERT_TRUE(tmp.ok());
  for (const char* shard : {"shard-10", "shard-2", "shard-0", "shard-3"}) {
    fs::create_directories(fs::path(tmp.path()) / shard);
    if (std::string(shard) != "shard-3")  // no summary yet: not a shard to read
      std::ofstream(fs::path(tmp.path()) / shard / "summary.json") << "{}";
  }
  EXPECT_EQ(
      ShardDirs(tmp.path()),
      (std::vector<std::string>{tmp.File("shard-0"), tmp.File("shard-2"), tmp.File("shard-10")}));
  EXPECT_EQ(ShardDirs(tmp.File("shard-2")), (std::vector<std::string>{tmp.File("shard-2")}));
}

TEST(SlurmSubmit, WithoutSbatchOnThePathSubmittingSaysSo) {
  PrivateTempDir tmp("mmdiff-slurm-submit-test");
  ASSERT_TRUE(tmp.ok());
  ASSERT_EQ(WriteSlurmScripts(Campaign(tmp.File("camp"))).exit_code, kExitOk);
  const char* old = std::getenv("PATH");
  const std::string saved = old ? old : "";
  setenv("PATH", tmp.path().c_str(), 1);  // a folder without sbatch
  auto r = SubmitSlurmScripts(tmp.File("camp"));
  setenv("PATH", saved.c_str(), 1);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.error().find("not on PATH"), std::string::npos) << r.error();
  EXPECT_FALSE(fs::exists(fs::path(tmp.File("camp")) / "slurm" / "submissions.log"));
}

}  // namespace
}  // namespace mmdiff
