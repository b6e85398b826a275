// Tests for the triage outputs: escaping, the plots' marks and "no data" notes, the Markdown
// table, and the workflow's files and failures.
#include <gtest/gtest.h>

#include <regex>

#include "src/support/files.h"
#include "src/triage/triage.h"
#include "src/triage/triage_html.h"
#include "src/triage/triage_input.h"
#include "src/triage/triage_markdown.h"
#include "src/triage/triage_plots.h"
#include "src/triage/triage_rank.h"
#include "src/triage/triage_test_util.h"
#include "src/triage/triage_text.h"

namespace mmdiff::triage {
namespace {

using testing::CampaignBucket;
using testing::OneOp;
using testing::Report;
using testing::TempDir;
using testing::TestDivergence;
using testing::WriteCampaign;

size_t Count(const std::string& text, const std::string& what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + what.size()))
    ++n;
  return n;
}

TEST(TriageText, EscapesHtmlAndMarkdown) {
  EXPECT_EQ(HtmlEscape("<script>alert('x') & \"y\"</script>"),
            "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;");
  EXPECT_EQ(MarkdownCell("a|b\nc <d>"), "a\\|b c &lt;d&gt;");
  EXPECT_EQ(Clip("abcdef", 3), "abc...");
  EXPECT_EQ(Clip("ab\xc3\xa9", 3), "ab...");  // never cuts a UTF-8 character in half
  EXPECT_EQ(RelativeTo("/x/a/b/report.json", "/x/out"), "../a/b/report.json");
  EXPECT_EQ(UrlPath("../javascript:alert(1)/a b#c?d/report.json"),
            "../javascript%3Aalert%281%29/a%20b%23c%3Fd/report.json");
}

// Two campaigns: a filable value bucket (2 reports, K 96 and 12) and an error_behaviour bucket.
TriageData TwoCampaigns(const std::string& name) {
  auto root = TempDir(name);
  Program big = OneOp(OpKind::kMm, {{{4, 96}, DType::kFloat16}, {{96, 2}, DType::kFloat16}});
  Program small =
      OneOp(OpKind::kAddmm,
            {{{4, 2}, DType::kFloat32}, {{4, 12}, DType::kFloat32}, {{12, 2}, DType::kFloat32}});
  TestDivergence value{"value", "inductor", "filable", 10.5, 10, 0.01};
  nlohmann::json behaviour = Report("e000", {TestDivergence{}});
  behaviour["headline"] = "error_behaviour <script>alert(1)</script> | pipe";
  WriteCampaign(root / "a", {{"v000", {Report("v000", {value}, big), 3, 2.0, 11}},
                             {"e000", {behaviour, 1, 5.0, 12}}});
  WriteCampaign(root / "b", {{"v000", {Report("v000", {value}, small), 4, 1.0, 21}}});
  return LoadTriageInputs({root.string()}).value();
}

TEST(TriagePlots, EachPlotHasOneMarkPerDatum) {
  TriageData d = TwoCampaigns("plots");
  auto cells = OpDtypeCounts(d);
  // mm x float16 (3 cases), addmm x float32 (4 cases), and the error bucket's mm x float16/float32.
  std::map<std::string, int64_t> by_cell;
  for (const auto& c : cells) by_cell[c.op + "/" + c.dtype] = c.cases;
  EXPECT_EQ(by_cell, (std::map<std::string, int64_t>{
                         {"mm/float16", 4}, {"mm/float32", 1}, {"addmm/float32", 4}}));
  std::string grid = OpDtypePlot(d);
  EXPECT_NE(grid.find("id=\"plot-op-dtype\""), std::string::npos);
  EXPECT_EQ(Count(grid, "class=\"mark cell\""), 3u);
  std::string scatter = ErrorKPlot(d);
  EXPECT_NE(scatter.find("id=\"plot-error-k\""), std::string::npos);
  EXPECT_EQ(Count(scatter, "class=\"mark point\""), 2u);
  EXPECT_EQ(Count(scatter, "class=\"bound\""), 2u);
  EXPECT_NE(scatter.find("K 96"), std::string::npos);
  EXPECT_NE(scatter.find("K 12"), std::string::npos);
  std::string time = BucketsOverTimePlot(d);
  EXPECT_NE(time.find("id=\"plot-buckets-time\""), std::string::npos);
  EXPECT_EQ(Count(time, "class=\"mark bucket\""), 2u);
  for (const auto& plot : {grid, scatter, time}) EXPECT_EQ(plot.find("no-data"), std::string::npos);
}

TEST(TriagePlots, EmptyDataGivesANoDataNoteNotABrokenPlot) {
  TriageData empty;
  for (const auto& plot : {OpDtypePlot(empty), ErrorKPlot(empty), BucketsOverTimePlot(empty)}) {
    EXPECT_NE(plot.find("<p class=\"no-data\">No data"), std::string::npos) << plot;
    EXPECT_EQ(plot.find("<svg"), std::string::npos);
    EXPECT_EQ(plot.find("class=\"mark"), std::string::npos);
  }
}

TEST(TriageOutputs, MarkdownTableIsRankedAndEscaped) {
  TriageData d = TwoCampaigns("markdown");
  auto ranked = RankBuckets(d);
  std::string md = TriageMarkdown(d, ranked, "/tmp/out", 3);
  size_t v =
      md.find("| 1 | `v000` | compiled: silent wrong result | [filable] | value | inductor | 7 |");
  // Its reports record no class: decided by the root cause, a compiled path raising is filable.
  size_t e = md.find(
      "| 2 | `e000` | compiled: raises on a valid program | [filable] | error_behaviour | "
      "inductor | 1 |");
  EXPECT_NE(v, std::string::npos) << md;
  EXPECT_NE(e, std::string::npos) << md;
  EXPECT_NE(md.find("1.0 s, seed 21"), std::string::npos)
      << md;  // the earliest sighting (campaign b)
  EXPECT_NE(md.find("&lt;script&gt;alert(1)&lt;/script&gt; \\| pipe"), std::string::npos) << md;
  EXPECT_EQ(md.find("<script>"), std::string::npos);
  EXPECT_NE(md.find("[report.json]("), std::string::npos);
  EXPECT_NE(md.find("[repro.py]("), std::string::npos);
}

TEST(TriageOutputs, TheReleasesLineIsShownWhereItIsKnown) {
  TriageData d = TwoCampaigns("releases");
  d.buckets.at("e000").releases =
      ReleaseHistory{ReleaseLabel::kFixed, "present in 2.11.0, fixed in 2.12.0 <b>"};
  std::string md = TriageMarkdown(d, RankBuckets(d), "/tmp/out", 3);
  std::string html = TriageHtml(d, RankBuckets(d), "/tmp/out");
  EXPECT_EQ(
      Count(md, "- releases: present in 2.11.0, fixed in 2.12.0 &lt;b&gt; (`mmdiff releases`)"), 1u)
      << md;
  EXPECT_EQ(Count(md, "- releases:"), 1u);  // v000 was not run across releases
  EXPECT_EQ(Count(html, "releases: present in 2.11.0, fixed in 2.12.0 &lt;b&gt;"), 1u);
}

TEST(TriageOutputs, HtmlPageIsSelfContainedAndEscaped) {
  TriageData d = TwoCampaigns("html");
  std::string html = TriageHtml(d, RankBuckets(d), "/tmp/out");
  EXPECT_EQ(Count(html, "<script"), 1u);  // only the page's own script, allowed by its nonce
  EXPECT_NE(html.find("script-src 'nonce-"), std::string::npos);
  EXPECT_EQ(html.find("script-src 'unsafe-inline'"), std::string::npos);
  EXPECT_NE(html.find("error_behaviour &lt;script&gt;alert(1)&lt;/script&gt; | pipe"),
            std::string::npos);
  for (const char* id : {"plot-op-dtype", "plot-error-k", "plot-buckets-time", "id=\"buckets\""})
    EXPECT_NE(html.find(id), std::string::npos) << id;
  // Nothing is fetched: no external scripts, styles, images or fonts.
  std::regex external(R"((src|href)\s*=\s*"(https?:)?//|<link|@import|url\()", std::regex::icase);
  EXPECT_FALSE(std::regex_search(html, external));
  EXPECT_LT(html.find("id=\"bucket-v000\""), html.find("id=\"bucket-e000\""));
}

TEST(TriageOutputs, AFolderNamedLikeAUrlSchemeIsAnInertRelativeLink) {
  // Triage written next to a campaign folder named "javascript:...": its links must stay paths.
  auto root = TempDir("scheme");
  WriteCampaign(root / "javascript:alert(1)",
                {{"e000", {Report("e000", {TestDivergence{}}), 1, 1.0, 1}}});
  TriageData d = LoadTriageInputs({root.string()}).value();
  std::string html = TriageHtml(d, RankBuckets(d), root.string());
  EXPECT_EQ(html.find("href=\"javascript:"), std::string::npos) << html;
  EXPECT_NE(html.find("href=\"javascript%3Aalert%281%29/"), std::string::npos) << html;
  std::string md = TriageMarkdown(d, RankBuckets(d), root.string(), 3);
  EXPECT_EQ(md.find("](javascript:"), std::string::npos) << md;
  EXPECT_NE(md.find("](javascript%3Aalert%281%29/"), std::string::npos) << md;
}

TEST(TriageOutputs, RunTriageWritesBothFilesAndReportsAnUnwritableFolder) {
  auto root = TempDir("run");
  WriteCampaign(root / "c", {{"v000", {Report("v000", {TestDivergence{}}), 2, 1.0, 1}}});
  TriageOptions o;
  o.inputs = {(root / "c").string()};
  o.out_dir = (root / "out").string();
  TriageOutcome ok = RunTriage(o);
  ASSERT_EQ(ok.failure, TriageFailure::kNone) << ok.message;
  EXPECT_EQ(ok.written.size(), 2u);
  auto md = ReadFile((root / "out" / "triage.md").string());
  ASSERT_TRUE(md.ok());
  EXPECT_NE(md.value().find("`v000`"), std::string::npos);
  // The report link is relative to the output folder.
  EXPECT_NE(md.value().find("(../c/findings/v000/report.json)"), std::string::npos) << md.value();

  testing::WriteText(root / "a-file", "x");
  o.out_dir = (root / "a-file" / "out").string();
  EXPECT_EQ(RunTriage(o).failure, TriageFailure::kOutput);
  o.inputs = {(root / "missing").string()};
  TriageOutcome bad = RunTriage(o);
  EXPECT_EQ(bad.failure, TriageFailure::kBadInput);
  EXPECT_NE(bad.message.find("missing"), std::string::npos);
}

}  // namespace
}  // namespace mmdiff::triage

namespace mmdiff::triage {
namespace {

TEST(TriageOutputs, ABucketNotReproducedStandaloneIsListedApartWithWhatWasTried) {
  TriageData d = TwoCampaigns("unreproduced");
  d.buckets.at("e000").standalone = "not_reproduced";
  d.buckets.at("e000").standalone_line = "not reproduced standalone: repro.py exit 0 <b>";
  std::string md = TriageMarkdown(d, RankBuckets(d), "/tmp/out", 3);
  std::string html = TriageHtml(d, RankBuckets(d), "/tmp/out");
  EXPECT_NE(md.find("1 new root cause, 1 not reproduced standalone"), std::string::npos) << md;
  EXPECT_NE(md.find("\n## Not reproduced standalone (1)\n"), std::string::npos) << md;
  EXPECT_NE(md.find("not reproduced standalone: repro.py exit 0 &lt;b&gt;"), std::string::npos);
  EXPECT_EQ(md.find("| `e000` |"), std::string::npos) << md;  // not in the new root causes' table
  EXPECT_NE(html.find("<ul id=\"unreproduced\">"), std::string::npos);
  EXPECT_NE(html.find("repro.py exit 0 &lt;b&gt;"), std::string::npos);
}

}  // namespace
}  // namespace mmdiff::triage
