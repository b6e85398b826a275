// CaseSchedule: shards partition the index space, done indices are never handed out again.
#include "src/campaign/case_schedule.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace mmdiff
