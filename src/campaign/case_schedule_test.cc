// CaseSchedule: shards partition the index space, done indices are never handed out again.
#include "src/campaign/case_schedule.h"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>

namespace mmdiff {
namespace {

std::vector<int64_t> Drain(CaseSchedule& s) {
  std::vector<int64_t> out;
  int64_t i;
  while (s.Next(&i)) out.push_back(i);
  return out;
}

TEST(CaseSchedule, ShardsPartitionTheCaseBudget) {
  std::set<int64_t> seen;
  for (int64_t k = 0; k < 3; ++k) {
    CaseSchedule s({k, 3}, 10);
    for (int64_t i : Drain(s)) {
      EXPECT_EQ(i % 3, k);
      EXPECT_TRUE(seen.insert(i).second) << i;
    }
  }
  EXPECT_EQ(seen.size(), 10u);
  EXPECT_EQ(*seen.rbegin(), 9);
}

TEST(CaseSchedule, OutOfOrderCompletionKeepsACompactDoneSet) {
  CaseSchedule s({1, 2}, -1);
  int64_t a, b, c;
  ASSERT_TRUE(s.Next(&a) && s.Next(&b) && s.Next(&c));
  EXPECT_EQ(std::vector<int64_t>({a, b, c}), std::vector<int64_t>({1, 3, 5}));
  s.MarkDone(5);
  s.MarkDone(1);
  EXPECT_EQ(s.done_below(), 3);
  EXPECT_EQ(s.done_extra(), std::vector<int64_t>({5}));
  s.MarkDone(3);
  EXPECT_EQ(s.done_below(), 7);
  EXPECT_TRUE(s.done_extra().empty());
}

TEST(CaseSchedule, ResumeSkipsDoneIndicesAndRerunsTheRest) {
  CaseSchedule s({0, 1}, 8);
  s.Restore(3, {5, 6});
  EXPECT_EQ(Drain(s), std::vector<int64_t>({3, 4, 7}));
  EXPECT_TRUE(s.IsDone(0) && s.IsDone(6) && !s.IsDone(4));
}

TEST(CaseSchedule, ShardTextIsValidated) {
  EXPECT_EQ(ShardText(ParseShard("2/5").value()), "2/5");
  for (const char* bad : {"5/5", "-1/3", "1/0", "1", "/2", "a/b", "1/2x"})
    EXPECT_FALSE(ParseShard(bad).ok()) << bad;
}

// An environment made of the given variables only.
std::function<const char*(const char*)> Env(std::map<std::string, std::string> vars) {
  auto owned = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [owned](const char* name) -> const char* {
    auto it = owned->find(name);
    return it == owned->end() ? nullptr : it->second.c_str();
  };
}

std::map<std::string, std::string> SlurmArray(const std::string& id, const std::string& min,
                                              const std::string& max, const std::string& step,
                                              const std::string& count) {
  return {{"SLURM_ARRAY_TASK_ID", id},
          {"SLURM_ARRAY_TASK_MIN", min},
          {"SLURM_ARRAY_TASK_MAX", max},
          {"SLURM_ARRAY_TASK_STEP", step},
          {"SLURM_ARRAY_TASK_COUNT", count}};
}

TEST(ShardFromEnvironment, ASlurmArrayTaskIsItsPlaceInTheArray) {
  auto first = ShardFromEnvironment(Env(SlurmArray("0", "0", "2", "1", "3")));
  ASSERT_TRUE(first.ok()) << first.error();
  EXPECT_EQ(ShardText(first.value()), "0/3");
  EXPECT_EQ(ShardText(ShardFromEnvironment(Env(SlurmArray("2", "0", "2", "1", "3"))).value()),
            "2/3");
  // --array=5-11:3 is tasks 5, 8, 11.
  EXPECT_EQ(ShardText(ShardFromEnvironment(Env(SlurmArray("8", "5", "11", "3", "3"))).value()),
            "1/3");
  auto no_step = SlurmArray("4", "1", "4", "1", "4");
  no_step.erase("SLURM_ARRAY_TASK_STEP");
  EXPECT_EQ(ShardText(ShardFromEnvironment(Env(no_step)).value()), "3/4");
  // Slurm's variables win over Kubernetes'.
  auto both = SlurmArray("1", "0", "1", "1", "2");
  both["JOB_COMPLETION_INDEX"] = "0";
  both["MMDIFF_SHARD_COUNT"] = "5";
  EXPECT_EQ(ShardText(ShardFromEnvironment(Env(both)).value()), "1/2");
}

TEST(ShardFromEnvironment, AnArrayThatIsNotARangeOrAnInconsistentTaskIsAnError) {
  struct Bad {
    std::map<std::string, std::string> vars;
    const char* says;
  };
  auto missing_count = SlurmArray("1", "0", "2", "1", "3");
  missing_count.erase("SLURM_ARRAY_TASK_COUNT");
  for (const Bad& b : std::vector<Bad>{
           {SlurmArray("1", "0", "7", "1", "3"), "not a range"},  // --array=0,1,7
           {SlurmArray("2", "0", "4", "2", "2"), "not a range"},
           {SlurmArray("3", "0", "4", "2", "3"), "is not in the array"},
           {SlurmArray("9", "0", "2", "1", "3"), "is not in the array"},
           {SlurmArray("-1", "0", "2", "1", "3"), "SLURM_ARRAY_TASK_ID is not a non-negative"},
           {SlurmArray("1x", "0", "2", "1", "3"), "SLURM_ARRAY_TASK_ID is not a non-negative"},
           {SlurmArray("1", "0", "2", "0", "3"), "not a range"},
           {SlurmArray("1", "0", "2", "1", "99999999999999999999"), "COUNT is not"},
           {missing_count, "SLURM_ARRAY_TASK_COUNT is not set"},
       }) {
    auto r = ShardFromEnvironment(Env(b.vars));
    ASSERT_FALSE(r.ok()) << b.says;
    EXPECT_NE(r.error().find(b.says), std::string::npos) << r.error();
  }
}

TEST(ShardFromEnvironment, AKubernetesIndexedJobNeedsItsCount) {
  auto pod =
      ShardFromEnvironment(Env({{"JOB_COMPLETION_INDEX", "3"}, {"MMDIFF_SHARD_COUNT", "4"}}));
  ASSERT_TRUE(pod.ok()) << pod.error();
  EXPECT_EQ(ShardText(pod.value()), "3/4");
  auto uncounted = ShardFromEnvironment(Env({{"JOB_COMPLETION_INDEX", "3"}}));
  ASSERT_FALSE(uncounted.ok());
  EXPECT_NE(uncounted.error().find("MMDIFF_SHARD_COUNT"), std::string::npos);
  EXPECT_FALSE(
      ShardFromEnvironment(Env({{"JOB_COMPLETION_INDEX", "4"}, {"MMDIFF_SHARD_COUNT", "4"}})).ok());
  auto none = ShardFromEnvironment(Env({}));
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.error().find("--shard i/N"), std::string::npos) << none.error();
}

}  // namespace
}  // namespace mmdiff
