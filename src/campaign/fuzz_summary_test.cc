// summary.json round trip: what --resume reads back is what the campaign ran with.
#include <gtest/gtest.h>

#include "src/campaign/fuzz_campaign.h"
#include "src/support/hash.h"

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

TEST(FuzzSummary, NewRootCausesFirstWithBucketsThatReduceToOneCauseTogetherThenKnownOnes) {
  FuzzOptions o;
  o.known_paths = {"corpus/regression"};
  o.reduce_known = true;
  FuzzSummary s;
  auto bucket = [](const std::string& sig, int64_t first, const std::string& reduced, bool known) {
    BucketStats b;
    b.signature = sig;
    b.headline = sig;
    b.finding_dir = "findings/" + HashHex(reduced.empty() ? sig : reduced);
    b.count = 2;
    b.first_index = first;
    b.reduced_signature = reduced;
    if (known) b.known = {{"title", "a known one"}, {"source", "x.json"}};
    return b;
  };
  s.buckets["a"] = bucket("a-ops", 5, "bmm-raises", false);
  s.buckets["b"] = bucket("b", 1, "", true);
  s.buckets["c"] = bucket("c", 7, "", false);
  s.buckets["d"] = bucket("d-ops", 9, "bmm-raises", false);
  s.buckets["e"] = bucket("e", 3, "", false);
  s.buckets["f"] = bucket("f", 0, "", false);
  s.buckets["f"].finding_dir.clear();  // claimed, not written yet: not listed
  nlohmann::json j = SummaryToJson(s, o);
  std::vector<std::string> order;
  for (const auto& b : j["buckets"]) order.push_back(b["hash"]);
  EXPECT_EQ(order, (std::vector<std::string>{"e", "a", "d", "c", "b"}));
  EXPECT_EQ(j["new_buckets"], 4);
  EXPECT_EQ(j["new_root_causes"], 3);
  EXPECT_EQ(j["known_buckets"], 1);
  EXPECT_EQ(j["buckets"][1]["reduced_signature"], "bmm-raises");
  EXPECT_FALSE(j["buckets"][3].contains("reduced_signature"));
  FuzzOptions back;
  FuzzSummary sback;
  ASSERT_TRUE(SummaryFromJson(j, back, sback).ok());
  EXPECT_EQ(back.known_paths, o.known_paths);
  EXPECT_TRUE(back.reduce_known);
  EXPECT_EQ(sback.buckets["a"].reduced_signature, "bmm-raises");
  EXPECT_EQ(sback.buckets["b"].known["title"], "a known one");
  EXPECT_EQ(sback.buckets["d"].finding_dir, sback.buckets["a"].finding_dir);
}

// A resumed campaign writes and removes finding folders: a summary naming one outside findings/
// is malformed, not followed.
TEST(FuzzSummary, ResumeRejectsAFindingFolderOutsideFindings) {
  FuzzOptions o;
  FuzzSummary s;
  BucketStats b;
  b.signature = b.headline = "x";
  b.count = 1;
  b.finding_dir = "findings/" + HashHex("x");
  s.buckets["x"] = b;
  nlohmann::json j = SummaryToJson(s, o);
  FuzzOptions back;
  FuzzSummary sback;
  ASSERT_TRUE(SummaryFromJson(j, back, sback).ok());
  for (const char* bad : {"findings/..", "../../etc", "findings/0123456789abcdef/..",
                          "/tmp/0123456789abcdef", "findings/0123456789ABCDEF", ""}) {
    j["buckets"][0]["finding"] = bad;
    Status st = SummaryFromJson(j, back, sback);
    ASSERT_FALSE(st.ok()) << bad;
    EXPECT_NE(st.message().find("\"finding\" must be findings/<16 hex digits>"), std::string::npos)
        << st.message();
  }
}

}  // namespace
}  // namespace mmdiff
