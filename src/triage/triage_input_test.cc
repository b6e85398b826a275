// Tests for reading and merging triage inputs: shards sum counts and keep the earliest sighting,
// bad files are skipped and listed, missing paths and unreadable inputs are errors.
#include "src/triage/triage_input.h"

#include <gtest/gtest.h>

#include <fstream>

#include "src/report/report.h"
#include "src/support/files.h"
#include "src/triage/triage_html.h"
#include "src/triage/triage_rank.h"
#include "src/triage/triage_test_util.h"

namespace mmdiff::triage {
namespace {

using testing::CampaignBucket;
using testing::Report;
using testing::TempDir;
using testing::TestDivergence;
using testing::WriteCampaign;
using testing::WriteText;

TEST(TriageInput, TwoShardsSumCountsAndKeepTheEarliestSighting) {
  auto root = TempDir("two-shards");
  WriteCampaign(root / "shard-a", {{"aaaa", {Report("aaaa", {TestDivergence{}}), 5, 12.5, 105}},
                                   {"bbbb", {Report("bbbb", {TestDivergence{}}), 2, 3.0, 103}}});
  WriteCampaign(root / "shard-b", {{"aaaa", {Report("aaaa", {TestDivergence{}}), 7, 4.25, 207}}});
  auto d = LoadTriageInputs({root.string()});
  ASSERT_TRUE(d.ok()) << d.error();
  const TriageData& data = d.value();
  ASSERT_EQ(data.buckets.size(), 2u);
  const TriageBucket& a = data.buckets.at("aaaa");
  EXPECT_EQ(a.count, 12);
  ASSERT_TRUE(a.first_found_s.has_value());
  EXPECT_DOUBLE_EQ(*a.first_found_s, 4.25);
  EXPECT_EQ(a.first_seed, 207u);
  EXPECT_EQ(a.first_campaign, (root / "shard-b").string());
  EXPECT_EQ(a.Campaigns().size(), 2u);
  EXPECT_EQ(a.Examples(3).size(), 2u);
  ASSERT_EQ(a.Examples(1).size(), 1u);
  EXPECT_EQ(a.Examples(1)[0]->campaign,
            (root / "shard-b").string());  // the earliest sighting's report first
  EXPECT_FALSE(a.Examples(3)[0]->repro_path.empty());
  EXPECT_EQ(data.buckets.at("bbbb").count, 2);
  EXPECT_EQ(data.TotalCount(), 14);
  EXPECT_EQ(data.summaries_read, 2);
  EXPECT_EQ(data.reports_read, 3);
  EXPECT_TRUE(data.skipped.empty());
  EXPECT_EQ(data.campaigns.size(), 2u);
}

TEST(TriageInput, TheSameCampaignNamedTwiceCountsOnce) {
  auto root = TempDir("twice");
  WriteCampaign(root / "c", {{"aaaa", {Report("aaaa", {TestDivergence{}}), 5, 1.0, 1}}});
  auto d = LoadTriageInputs({root.string(), (root / "c").string(),
                             (root / "c" / "summary.json").string(),
                             (root / "c" / "findings" / "aaaa" / "report.json").string()});
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(d.value().buckets.at("aaaa").count, 5);
  EXPECT_EQ(d.value().reports_read, 1);
}

TEST(TriageInput, FollowsFolderLinksOnceEvenInACycle) {
  auto root = TempDir("links");
  WriteCampaign(root / "real" / "c", {{"aaaa", {Report("aaaa", {TestDivergence{}}), 5, 1.0, 1}}});
  std::filesystem::create_directories(root / "shards");
  std::filesystem::create_directory_symlink(root / "real" / "c", root / "shards" / "s1");
  std::filesystem::create_directory_symlink(root / "shards", root / "shards" / "loop");
  auto d = LoadTriageInputs({(root / "shards").string()});
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(d.value().buckets.at("aaaa").count, 5);
  EXPECT_EQ(d.value().campaigns.size(), 1u);
}

TEST(TriageInput, ALooseReportCountsOnceWithItsInputSeed) {
  auto root = TempDir("loose");
  WriteText(root / "r1" / "report.json", Report("cccc", {TestDivergence{}}).dump());
  WriteText(root / "r2" / "report.json", Report("cccc", {TestDivergence{}}).dump());
  auto d = LoadTriageInputs({(root / "r1" / "report.json").string(), (root / "r2").string()});
  ASSERT_TRUE(d.ok()) << d.error();
  const TriageBucket& c = d.value().buckets.at("cccc");
  EXPECT_EQ(c.count, 2);
  EXPECT_FALSE(c.first_found_s.has_value());
  EXPECT_EQ(c.first_seed, 7u);
  EXPECT_EQ(d.value().summaries_read, 0);
  EXPECT_TRUE(c.Examples(3)[0]->repro_path.empty());  // no repro.py next to it
}

TEST(TriageInput, AFindingsReleasesJsonGivesItsBucketTheHistoryAndABadOneIsSkipped) {
  auto root = TempDir("releases");
  WriteCampaign(root / "c", {{"aaaa", {Report("aaaa", {TestDivergence{}}), 3, 1.0, 1}},
                             {"bbbb", {Report("bbbb", {TestDivergence{}}), 4, 2.0, 2}}});
  nlohmann::json history = {{"label", "regression"},
                            {"summary", "new in 2.15.0"},
                            {"first_present", "2.15.0"},
                            {"last_present", "2.15.0"},
                            {"fixed_in", ""},
                            {"new_in", "2.15.0"}};
  WriteText(
      root / "c" / "findings" / "aaaa" / "releases.json",
      nlohmann::json(
          {{"format", "mmdiff.releases"}, {"version", 1}, {"findings", {{{"history", history}}}}})
          .dump());
  WriteText(root / "c" / "findings" / "bbbb" / "releases.json",
            R"({"format": "mmdiff.releases", "version": 2, "findings": []})");
  auto d = LoadTriageInputs({(root / "c").string()});
  ASSERT_TRUE(d.ok()) << d.error();
  const TriageBucket& a = d.value().buckets.at("aaaa");
  ASSERT_TRUE(a.releases.has_value());
  EXPECT_EQ(a.releases->summary, "new in 2.15.0");
  EXPECT_TRUE(a.IsRegression());
  EXPECT_FALSE(d.value().buckets.at("bbbb").releases.has_value());
  ASSERT_EQ(d.value().skipped.size(), 1u);
  EXPECT_NE(d.value().skipped[0].reason.find("releases format version 2 is not supported"),
            std::string::npos)
      << d.value().skipped[0].reason;
}

TEST(TriageInput, BadReportsAreSkippedAndListedNotFatal) {
  auto root = TempDir("bad-among-good");
  WriteCampaign(root / "c", {{"aaaa", {Report("aaaa", {TestDivergence{}}), 3, 1.0, 1}},
                             {"dddd", {Report("dddd", {TestDivergence{}}), 4, 2.0, 2}}});
  WriteText(root / "c" / "findings" / "dddd" / "report.json",
            R"({"format": "mmdiff.report", "version": 1, "buck)");
  nlohmann::json future = Report("eeee", {TestDivergence{}});
  future["version"] = 4;
  WriteText(root / "loose" / "report.json", future.dump());
  // A summary with a field of the wrong type is skipped; its report still counts, once.
  WriteCampaign(root / "c2", {{"hhhh", {Report("hhhh", {TestDivergence{}}), 9, 1.0, 1}}});
  auto summary = nlohmann::json::parse(ReadFile((root / "c2" / "summary.json").string()).value());
  summary["buckets"][0]["signature"] = 5;
  WriteText(root / "c2" / "summary.json", summary.dump());
  auto d = LoadTriageInputs({root.string()});
  ASSERT_TRUE(d.ok()) << d.error();
  const TriageData& data = d.value();
  ASSERT_EQ(data.skipped.size(), 3u);
  std::string reasons;
  for (const auto& s : data.skipped) reasons += s.path + ": " + s.reason + "\n";
  EXPECT_NE(reasons.find("c2/summary.json: a field has an unexpected type"), std::string::npos)
      << reasons;
  EXPECT_EQ(data.buckets.at("hhhh").count, 1);
  EXPECT_NE(reasons.find("findings/dddd/report.json: malformed JSON"), std::string::npos)
      << reasons;
  EXPECT_NE(reasons.find("loose/report.json: report format version 4 is not supported"),
            std::string::npos)
      << reasons;
  // The summary still counts the bucket whose report is broken, from its headline.
  ASSERT_TRUE(data.buckets.count("dddd"));
  EXPECT_EQ(data.buckets.at("dddd").count, 4);
  EXPECT_FALSE(data.buckets.at("dddd").from_report);
  EXPECT_EQ(data.buckets.at("dddd").kind, "value");
  EXPECT_EQ(data.buckets.at("dddd").blamed, "inductor");
  EXPECT_EQ(data.buckets.at("dddd").cls, BucketClass::kFilable);
  EXPECT_FALSE(data.buckets.count("eeee"));
}

TEST(TriageInput, ASummaryEntryWithoutAMatchingReportIsCountedAndListed) {
  auto root = TempDir("missing-report");
  WriteCampaign(root, {{"ffff", {nullptr, 6, 1.0, 1}},
                       {"gggg", {Report("zzzz", {TestDivergence{}}), 2, 1.0, 1}}});
  auto d = LoadTriageInputs({root.string()});
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_EQ(d.value().buckets.at("ffff").count, 6);
  EXPECT_EQ(d.value().buckets.at("gggg").count, 2);
  EXPECT_FALSE(d.value().buckets.count("zzzz"));
  EXPECT_EQ(d.value().reports_read, 0);
  ASSERT_EQ(d.value().skipped.size(), 2u);
  EXPECT_NE(d.value().skipped[0].reason.find("missing"), std::string::npos);
  EXPECT_NE(d.value().skipped[1].reason.find("bucket hash zzzz differs"), std::string::npos);
}

TEST(TriageInput, MissingPathsAndUnreadableInputsAreErrors) {
  auto root = TempDir("errors");
  auto missing = LoadTriageInputs({(root / "nope").string()});
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.error().find("no such file or folder: " + (root / "nope").string()),
            std::string::npos);

  WriteText(root / "empty" / "notes.txt", "hello");
  auto empty = LoadTriageInputs({(root / "empty").string()});
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().find("no mmdiff campaign"), std::string::npos) << empty.error();

  WriteText(root / "trunc" / "report.json", R"({"format": "mmdiff.report", "vers)");
  auto truncated = LoadTriageInputs({(root / "trunc" / "report.json").string()});
  ASSERT_FALSE(truncated.ok());
  EXPECT_NE(truncated.error().find("no input could be read"), std::string::npos)
      << truncated.error();
  EXPECT_NE(truncated.error().find("trunc/report.json: malformed JSON"), std::string::npos)
      << truncated.error();

  WriteText(root / "other" / "report.json", R"({"format": "something.else", "version": 1})");
  auto other = LoadTriageInputs({(root / "other").string()});
  ASSERT_FALSE(other.ok());
  EXPECT_NE(other.error().find("not an mmdiff report"), std::string::npos) << other.error();
}

TEST(TriageInput, ACampaignWithoutFindingsIsValidInput) {
  auto root = TempDir("no-findings");
  WriteCampaign(root, {});
  auto d = LoadTriageInputs({root.string()});
  ASSERT_TRUE(d.ok()) << d.error();
  EXPECT_TRUE(d.value().buckets.empty());
  EXPECT_EQ(d.value().summaries_read, 1);
}

// Two campaign buckets whose cases differ (mm and bmm) but whose reduced cases are one: one triage
// bucket, the earlier found keeping its hash. Without the reduced case they stay two.
TEST(TriageInput, BucketsThatReduceToOneRootCauseAreOne) {
  auto root = TempDir("reduce-to-one");
  auto bmm =
      testing::OneOp(OpKind::kBmm, {{{2, 4, 8}, DType::kFloat16}, {{2, 8, 2}, DType::kFloat32}});
  for (const char* name : {"reduced", "unreduced"})
    WriteCampaign(
        root / name,
        {{"aaaa", {Report("aaaa", {TestDivergence{}}), 3, 5.0, 105}},
         {"bbbb", {Report("bbbb", {TestDivergence{}}, bmm), 4, 9.0, 109}},
         {"cccc",
          {Report("cccc", {TestDivergence{"error_behaviour", "aot_eager"}}), 1, 2.0, 102}}});
  // The reduced case of bbbb is aaaa's case (these test reports sign by their bucket signature).
  WriteText(root / "reduced" / "findings" / "bbbb" / "reduced" / "report.json",
            Report("aaaa", {TestDivergence{}}).dump());

  auto d = LoadTriageInputs({(root / "reduced").string()});
  ASSERT_TRUE(d.ok()) << d.error();
  ASSERT_EQ(d.value().buckets.size(), 2u);
  const TriageBucket& a = d.value().buckets.at("aaaa");
  EXPECT_EQ(a.count, 7);
  EXPECT_EQ(a.merged_hashes, std::vector<std::string>{"bbbb"});
  EXPECT_EQ(a.sightings.size(), 2u);
  EXPECT_EQ(d.value().buckets.at("cccc").count, 1);

  // The entry says what the reduced case says (the op that fails, not the whole program).
  auto lone = TempDir("reduced-headline");
  WriteCampaign(lone, {{"bbbb", {Report("bbbb", {TestDivergence{}}, bmm), 4, 9.0, 109}}});
  nlohmann::json smaller = Report("aaaa", {TestDivergence{}});
  smaller["headline"] = "inductor returns float32 on bmm(float16, float32)";
  WriteText(lone / "findings" / "bbbb" / "reduced" / "report.json", smaller.dump());
  auto l = LoadTriageInputs({lone.string()});
  ASSERT_TRUE(l.ok()) << l.error();
  EXPECT_EQ(l.value().buckets.at("bbbb").headline,
            "inductor returns float32 on bmm(float16, float32)");

  auto apart = LoadTriageInputs({(root / "unreduced").string()});
  ASSERT_TRUE(apart.ok()) << apart.error();
  EXPECT_EQ(apart.value().buckets.size(), 3u);
  EXPECT_TRUE(apart.value().buckets.at("aaaa").merged_hashes.empty());
}

// Buckets of one campaign whose cases reduced to one root cause share its folder, which the
// summary names for each: one triage entry with both buckets' cases, its report read once.
TEST(TriageInput, BucketsThatShareAFolderAreOneEntryWithTheirReportReadOnce) {
  auto root = TempDir("shared-folder");
  WriteCampaign(
      root,
      {{"aaaa", {Report("aaaa", {TestDivergence{}}), 3, 5.0, 105}},
       {"bbbb", {nullptr, 4, 2.0, 102}},
       {"cccc", {Report("cccc", {TestDivergence{"error_behaviour", "aot_eager"}}), 1, 2.0, 102}}});
  auto summary = nlohmann::json::parse(ReadFile((root / "summary.json").string()).value());
  summary["buckets"][1]["finding"] = "findings/aaaa";
  WriteText(root / "summary.json", summary.dump());
  auto d = LoadTriageInputs({root.string()});
  ASSERT_TRUE(d.ok()) << d.error();
  for (const auto& s : d.value().skipped) ADD_FAILURE() << s.path << ": " << s.reason;
  EXPECT_EQ(d.value().reports_read, 2);
  ASSERT_EQ(d.value().buckets.size(), 2u);
  const TriageBucket& a = d.value().buckets.at("aaaa");
  EXPECT_EQ(a.count, 7);
  EXPECT_EQ(a.merged_hashes, std::vector<std::string>{"bbbb"});
  ASSERT_EQ(a.sightings.size(), 1u);
  EXPECT_EQ(a.sightings[0].count, 7);
  EXPECT_EQ(a.first_found_s, 2.0);
  // A folder is not another bucket's just because the summary says so: its report must be of one
  // of the buckets that name it.
  summary["buckets"].erase(0);
  WriteText(root / "summary.json", summary.dump());
  d = LoadTriageInputs({root.string()});
  ASSERT_TRUE(d.ok()) << d.error();
  ASSERT_EQ(d.value().skipped.size(), 1u);
  EXPECT_NE(d.value().skipped[0].reason.find("differs from the summary's bbbb"), std::string::npos)
      << d.value().skipped[0].reason;
}

// Reports of an earlier mmdiff are signed again by this one's rules: two buckets that it signs as
// one root cause (TorchScript accepting a program whose rejected op is unused, mm in one and bmm in
// the other) are one triage bucket.
TEST(TriageInput, BucketsThisMmdiffSignsAsOneRootCauseAreOne) {
  auto root = TempDir("resigned");
  auto report = [](OpKind op, Shape a, Shape b, const std::string& hash) {
    Program p;
    p.inputs = {{"x0", a, DType::kFloat16},
                {"x1", b, DType::kFloat32},
                {"x2", {4, 8}, DType::kFloat32},
                {"x3", {8, 2}, DType::kFloat32}};
    p.nodes = {{"v0", op, {"x0", "x1"}}, {"v1", OpKind::kMm, {"x2", "x3"}}};
    p.outputs = {"v1"};
    PathResult ref{"reference", OutcomeKind::kError}, eager{"eager", OutcomeKind::kError},
        ts{"torchscript", OutcomeKind::kOk};
    ref.error_class = eager.error_class = "RuntimeError";
    ts.outputs.push_back({DType::kFloat32, {4, 2}, Device::kCpu, {}, {}});
    nlohmann::json r = MakeReport(JudgeCase(p, {"grid16", 1}, {ref, eager, ts}), RunContext{});
    r["bucket"] = {
        {"hash", hash},
        {"signature", "error_behaviour|path=torchscript|op=" + hash}};  // as bucketed then
    return r;
  };
  WriteText(root / "a" / "report.json", report(OpKind::kMm, {4, 8}, {8, 2}, "aaaa").dump());
  WriteText(root / "b" / "report.json", report(OpKind::kBmm, {2, 4, 8}, {2, 8, 2}, "bbbb").dump());
  auto d = LoadTriageInputs({root.string()});
  ASSERT_TRUE(d.ok()) << d.error();
  ASSERT_EQ(d.value().buckets.size(), 1u);
  const TriageBucket& b = d.value().buckets.begin()->second;
  EXPECT_EQ(b.root_causes, std::vector<std::string>{"error_behaviour|path=torchscript|unused_op"});
  EXPECT_EQ(b.count, 2);
  EXPECT_EQ(b.merged_hashes.size(), 1u);
}

}  // namespace
}  // namespace mmdiff::triage

namespace mmdiff::triage {
namespace {

// Pass coverage: shards' rewrites add up, each bucket keeps those its example reached, the page
// lists them with links to the buckets; a summary with a malformed "rewrites" is skipped, named.
TEST(TriageInput, ShardsRewritesAddUpAndThePageListsThem) {
  auto root = testing::TempDir("rewrites");
  for (const char* shard : {"shard-0", "shard-1"})
    testing::WriteCampaign(root / shard,
                           {{"aaaa", {testing::Report("aaaa", {testing::TestDivergence{}})}}});
  for (int i = 0; i < 2; ++i) {
    const auto path = root / ("shard-" + std::to_string(i)) / "summary.json";
    auto j = nlohmann::json::parse(std::ifstream(path));
    j["rewrites"] = {{"_sfdp_pattern_1_inference",
                      {{"programs", 3 + i},
                       {"first_index", 10 - i},
                       {"first_seed", 20 - i},
                       {"first_found_s", 1.0}}}};
    j["buckets"][0]["rewrites"] = {"_sfdp_pattern_1_inference"};
    testing::WriteText(path, j.dump());
  }
  auto d = LoadTriageInputs({root.string()});
  ASSERT_TRUE(d.ok()) << d.error();
  const RewriteStats& s = d.value().rewrites.rewrites.at("_sfdp_pattern_1_inference");
  EXPECT_EQ(s.programs, 7);
  EXPECT_EQ(s.first_seed, 19u);
  const std::string html = TriageHtml(d.value(), RankBuckets(d.value()), root.string());
  EXPECT_NE(html.find("<code>_sfdp_pattern_1_inference</code>"), std::string::npos);
  EXPECT_NE(html.find("<a href=\"#bucket-aaaa\">"), std::string::npos);

  const auto bad = root / "shard-1" / "summary.json";
  auto j = nlohmann::json::parse(std::ifstream(bad));
  j["rewrites"]["x y"] = j["rewrites"]["_sfdp_pattern_1_inference"];
  testing::WriteText(bad, j.dump());
  d = LoadTriageInputs({root.string()});
  ASSERT_TRUE(d.ok()) << d.error();
  ASSERT_EQ(d.value().skipped.size(), 1u);
  EXPECT_NE(d.value().skipped[0].reason.find("is not a rewrite name"), std::string::npos)
      << d.value().skipped[0].reason;
  EXPECT_EQ(d.value().rewrites.rewrites.at("_sfdp_pattern_1_inference").programs, 3);
}

}  // namespace
}  // namespace mmdiff::triage
