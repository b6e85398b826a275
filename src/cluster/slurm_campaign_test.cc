// Slurm batch scripts: hostile values are refused or quoted, the scripts are valid bash with the
// directives a campaign needs; shard progress from summaries.
#include "src/cluster/slurm_campaign.h"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>

#include "src/campaign/fuzz_campaign.h"

namespace mmdiff {
namespace {

SlurmCampaign Campaign() {
  SlurmCampaign c;
  c.mmdiff = "/opt/mmdiff/build/mmdiff";
  c.out_dir = "/shared/campaign";
  c.tasks = 4;
  c.fuzz_args = {"--seed", "7", "--cases", "400"};
  return c;
}

// Runs a shell command, returning its stdout (and the exit code in *code).
std::string Shell(const std::string& command, int* code) {
  std::string out;
  FILE* f = popen(command.c_str(), "r");
  if (!f) return out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) out.append(buf.data(), n);
  int status = pclose(f);
  *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

std::string TempFile(const std::string& name, const std::string& text) {
  auto path = std::filesystem::temp_directory_path() /
              ("mmdiff-slurm-test-" + std::to_string(getpid()) + "-" + name);
  std::ofstream(path) << text;
  return path.string();
}

TEST(SlurmCampaign, ShellQuoteGivesBashTheTextBackWhateverItHolds) {
  for (const std::string text :
       {"plain", "", "it's", "a b", "$(touch /tmp/pwned)", "`id`", "'; rm -rf / #", "line\nbreak",
        "\\back\\slash", "\"double\"", "*?[]{}~!&|<>;"}) {
    std::string script = "printf '%s' " + ShellQuote(text);
    int code = -1;
    std::string got = Shell("bash -c " + ShellQuote(script), &code);
    EXPECT_EQ(code, 0) << text;
    EXPECT_EQ(got, text);
  }
}

TEST(SlurmCampaign, TheTaskScriptIsBashWithTheCampaignsDirectivesAndQuotedOptions) {
  SlurmCampaign c = Campaign();
  c.partition = "gpu";
  c.gres = "gpu:1";
  c.time_limit = "8:00:00";
  c.cpus_per_task = 8;
  c.sbatch_extra = {"--constraint=h100"};
  c.fuzz_args.push_back("--policy");
  c.fuzz_args.push_back("my policy's.json");
  std::string s = SlurmTaskScript(c);
  for (const char* line :
       {"#SBATCH --array=0-3\n", "#SBATCH --output=/shared/campaign/slurm/task-%a.log\n",
        "#SBATCH --requeue\n", "#SBATCH --signal=B:USR1@300\n", "#SBATCH --partition=gpu\n",
        "#SBATCH --gres=gpu:1\n", "#SBATCH --time=8:00:00\n", "#SBATCH --cpus-per-task=8\n",
        "#SBATCH --constraint=h100\n", "mmdiff='/opt/mmdiff/build/mmdiff'\n",
        "'--policy' 'my policy'\\''s.json' --shard auto --out \"$shard\"",
        "set -- fuzz --resume \"$shard\" --shard auto", "scontrol requeue \"$SLURM_JOB_ID\"",
        "this run checked no case: not requeued"})
    EXPECT_NE(s.find(line), std::string::npos) << line << "\n" << s;
  // No directive for what was not given.
  EXPECT_EQ(s.find("--mem"), std::string::npos);
  EXPECT_EQ(s.find("--account"), std::string::npos);
  // The directives come before the first command (sbatch stops reading them there).
  EXPECT_LT(s.rfind("#SBATCH"), s.find("set -u"));
  int code = -1;
  for (const std::string& script : {s, SlurmTriageScript(c)}) {
    Shell("bash -n " + TempFile("script.sh", script) + " 2>&1", &code);
    EXPECT_EQ(code, 0) << script;
  }
  std::string t = SlurmTriageScript(c);
  EXPECT_NE(t.find("\"$mmdiff\" triage \"$out\" --out \"$out/triage\""), std::string::npos) << t;
  EXPECT_NE(t.find("#SBATCH --partition=gpu\n"), std::string::npos) << t;
  EXPECT_EQ(t.find("--gres"), std::string::npos) << "triage needs no GPU";
  // A triage job started while a requeued task is queued again waits for it, as a new job.
  EXPECT_NE(t.find("squeue -h -o %i -j \"$array\""), std::string::npos) << t;
  EXPECT_NE(t.find("sbatch --parsable --dependency=afterany:\"$array\""), std::string::npos) << t;
  EXPECT_LT(t.find("sbatch --parsable"), t.find("\"$mmdiff\" triage")) << t;
}

TEST(SlurmCampaign, ValuesThatCannotGoIntoADirectiveAreRefused) {
  EXPECT_TRUE(CheckSlurmCampaign(Campaign()).ok());
  auto refused = [](const std::function<void(SlurmCampaign&)>& edit, const std::string& says) {
    SlurmCampaign c = Campaign();
    edit(c);
    Status s = CheckSlurmCampaign(c);
    EXPECT_FALSE(s.ok()) << says;
    EXPECT_NE(s.message().find(says), std::string::npos) << s.message();
  };
  refused([](SlurmCampaign& c) { c.partition = "gpu\n#SBATCH --wrap=rm"; }, "--partition");
  refused([](SlurmCampaign& c) { c.gres = "gpu:1 --uid=0"; }, "--gres");
  refused([](SlurmCampaign& c) { c.time_limit = "1:00'"; }, "--time-limit");
  refused([](SlurmCampaign& c) { c.out_dir = "/shared/my campaign"; }, "campaign folder");
  refused([](SlurmCampaign& c) { c.out_dir = "/shared/run-%j"; }, "campaign folder");
  refused([](SlurmCampaign& c) { c.out_dir = "relative"; }, "absolute");
  refused([](SlurmCampaign& c) { c.sbatch_extra = {"constraint=a"}; }, "--sbatch");
  refused([](SlurmCampaign& c) { c.sbatch_extra = {"--x=a b"}; }, "--sbatch");
  refused([](SlurmCampaign& c) { c.tasks = 0; }, "--tasks");
  refused([](SlurmCampaign& c) { c.warning_s = 70000; }, "--warning");
}

TEST(SlurmCampaign, SbatchsParsableOutputGivesTheJobId) {
  EXPECT_EQ(ParseSbatchJobId("123\n").value(), 123);
  EXPECT_EQ(ParseSbatchJobId("4567;cluster-a\n").value(), 4567);
  for (const char* bad :
       {"", "\n", "Submitted batch job 12\n", "12x", "-3", "0", "99999999999999999999999"})
    EXPECT_FALSE(ParseSbatchJobId(bad).ok()) << bad;
}

std::string SummaryText(const std::string& shard, int64_t max_cases, double time_s, int64_t cases,
                        double elapsed_s, bool interrupted) {
  FuzzOptions o;
  o.shard = ParseShard(shard).value();
  o.max_cases = max_cases;
  o.time_s = time_s;
  FuzzSummary s;
  s.cases = cases;
  s.elapsed_s = elapsed_s;
  s.interrupted = interrupted;
  return SummaryToJson(s, o).dump();
}

TEST(SlurmCampaign, AShardIsCompleteWhenItsShareOfTheBudgetIsSpent) {
  const double inf = std::numeric_limits<double>::infinity();
  // 10 cases in 4 shards: shards 0 and 1 run 3 (0,4,8 and 1,5,9), shards 2 and 3 run 2.
  auto p = ReadShardProgress("s1", SummaryText("1/4", 10, inf, 3, 5, false));
  ASSERT_TRUE(p.ok()) << p.error();
  EXPECT_EQ(p.value().budget, 3);
  EXPECT_TRUE(p.value().complete);
  p = ReadShardProgress("s3", SummaryText("3/4", 10, inf, 1, 5, true));
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p.value().budget, 2);
  EXPECT_FALSE(p.value().complete);
  EXPECT_TRUE(p.value().interrupted);
  // A time budget alone: complete once its time is spent.
  EXPECT_FALSE(ReadShardProgress("t", SummaryText("0/1", -1, 60, 9, 30, true)).value().complete);
  EXPECT_TRUE(ReadShardProgress("t", SummaryText("0/1", -1, 60, 9, 60.5, false)).value().complete);
  // More shards than cases: an empty share is complete at once.
  EXPECT_TRUE(ReadShardProgress("e", SummaryText("5/8", 3, inf, 0, 1, false)).value().complete);
  std::string table = ShardProgressTable(
      {ReadShardProgress("s1", SummaryText("1/4", 10, inf, 3, 5, false)).value(),
       ReadShardProgress("s3", SummaryText("3/4", 10, inf, 1, 5, true)).value()});
  EXPECT_NE(table.find("3 of 3"), std::string::npos) << table;
  EXPECT_NE(table.find("stopped early"), std::string::npos) << table;
  EXPECT_NE(table.find("2 shards, 1 complete; 4 cases checked"), std::string::npos) << table;
  auto bad = ReadShardProgress("x", "{\"format\": \"something else\"}");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.error().find("x/summary.json"), std::string::npos) << bad.error();
  EXPECT_FALSE(ReadShardProgress("y", "{trunc").ok());
}

}  // namespace
}  // namespace mmdiff
