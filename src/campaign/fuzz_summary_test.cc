// summary.json round trip: what --resume reads back is what the campaign ran with.
#include <gtest/gtest.h>

#include "src/campaign/fuzz_campaign.h"

namespace mmdiff {
namespace {

TEST(FuzzSummary, ResumeReadsBackTheReductionLimitsAndTheBudget) {
  FuzzOptions o;
  o.seed = 7;
  o.jobs = 3;
  o.time_s = 120;
  o.max_cases = 500;
  o.paths = {"reference", "eager"};
  o.stage_timeout_s = 9;
  o.reduce_budget = 12;
  o.reduce_time_s = 45;
  FuzzSummary s;
  s.cases = 4;
  nlohmann::json j = SummaryToJson(s, o);

  FuzzOptions back;
  FuzzSummary sback;
  ASSERT_TRUE(SummaryFromJson(j, back, sback).ok());
  EXPECT_EQ(back.seed, 7u);
  EXPECT_EQ(back.jobs, 3);
  EXPECT_EQ(back.time_s, 120);
  EXPECT_EQ(back.max_cases, 500);
  EXPECT_EQ(back.paths, o.paths);
  EXPECT_EQ(back.stage_timeout_s, 9);
  EXPECT_EQ(back.reduce_budget, 12);
  EXPECT_EQ(back.reduce_time_s, 45);
  EXPECT_EQ(sback.cases, 4);

  // A summary written before --reduce-time existed resumes with the default limit.
  j["resume"].erase("reduce_time_s");
  back = FuzzOptions{};
  back.reduce_time_s = -1;
  ASSERT_TRUE(SummaryFromJson(j, back, sback).ok());
  EXPECT_EQ(back.reduce_time_s, FuzzOptions{}.reduce_time_s);
}

}  // namespace
}  // namespace mmdiff
