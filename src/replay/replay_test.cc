// Tests for replay: classification of verdicts, preparing entries, running them with fake paths,
// output.
#include "src/replay/replay.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "src/replay/replay_test_util.h"

namespace mmdiff {
namespace {

namespace fs = std::filesystem;

using replay_test::Agreeing;
using replay_test::Entry;
using replay_test::Env;
using replay_test::Raising;
using replay_test::Scratch;
using replay_test::Write;

Divergence Div(DivergenceKind k, const std::string& blamed) {
  return {k, {"eager", blamed}, blamed, "differs"};
}

TEST(ReplayClassify, MatchFixedAndNewBehaviour) {
  VersionExpectation agree{">=2", false, {}};
  VersionExpectation diverge{">=2", true, {{"error_behaviour", "inductor"}, {"value", "inductor"}}};
  Verdict none;
  Verdict both{
      {Div(DivergenceKind::kErrorBehaviour, "inductor"), Div(DivergenceKind::kValue, "inductor")}};
  Verdict one{{Div(DivergenceKind::kValue, "inductor")}};
  Verdict other{{Div(DivergenceKind::kDType, "aot_eager")}};
  EXPECT_EQ(ClassifyVerdict(none, agree).first, ReplayStatus::kMatch);
  EXPECT_EQ(ClassifyVerdict(both, diverge).first, ReplayStatus::kMatch);
  EXPECT_EQ(ClassifyVerdict(none, diverge).first, ReplayStatus::kFixed);
  EXPECT_EQ(ClassifyVerdict(one, diverge).first,
            ReplayStatus::kFixed);  // one expected divergence gone, nothing new
  EXPECT_EQ(ClassifyVerdict(both, agree).first, ReplayStatus::kNewBehaviour);
  auto [status, detail] = ClassifyVerdict(other, diverge);
  EXPECT_EQ(status, ReplayStatus::kNewBehaviour);
  EXPECT_NE(detail.find("unexpected dtype [blamed: aot_eager]"), std::string::npos) << detail;
  VersionExpectation any{">=2", true, {}};
  EXPECT_EQ(ClassifyVerdict(other, any).first, ReplayStatus::kMatch);
  EXPECT_EQ(ClassifyVerdict(none, any).first, ReplayStatus::kFixed);
}

TEST(ReplayClassify, Descriptions) {
  EXPECT_EQ(DescribeExpectation({">=2", true, {{"value", ""}, {"meta", "eager_meta"}}}),
            "diverge: value [any path], meta [eager_meta]");
  EXPECT_EQ(DescribeExpectation({">=2", false, {}}), "agree");
  Verdict v{{Div(DivergenceKind::kValue, "inductor"),
             {DivergenceKind::kContract, {"eager", "reference"}, "", "x"}}};
  EXPECT_EQ(DescribeVerdict(v), "diverge: value [inductor], contract [eager vs reference]");
  EXPECT_EQ(DescribeVerdict(Verdict{}), "agree");
}

TEST(ReplayPrepare, BadFilesAreInvalidWithAReason) {
  std::string dir = Scratch("prepare");
  auto missing = PrepareEntry(dir + "/nope.json", "2.15.0", false);
  EXPECT_EQ(missing.row.status, ReplayStatus::kInvalid);
  EXPECT_FALSE(missing.pending);
  auto truncated =
      PrepareEntry(Write(dir, "t.json", Entry("agree").dump().substr(0, 40)), "2.15.0", false);
  EXPECT_EQ(truncated.row.status, ReplayStatus::kInvalid);
  EXPECT_NE(truncated.row.detail.find("malformed JSON"), std::string::npos) << truncated.row.detail;
  auto j = Entry("agree");
  j["version"] = 3;
  auto v3 = PrepareEntry(Write(dir, "v3.json", j.dump()), "2.15.0", false);
  EXPECT_EQ(v3.row.status, ReplayStatus::kInvalid);
  EXPECT_NE(v3.row.detail.find("version 3 is not supported"), std::string::npos) << v3.row.detail;
  j = Entry("diverge");
  j["expected"][0]["divergences"][0]["kind"] = "valeu";
  auto typo = PrepareEntry(Write(dir, "typo.json", j.dump()), "2.15.0", false);
  EXPECT_EQ(typo.row.status, ReplayStatus::kInvalid);
  EXPECT_NE(typo.row.detail.find("unknown divergence kind \"valeu\""), std::string::npos)
      << typo.row.detail;
  j = Entry("agree");
  j["title"] = 7;  // a wrong type is an error, never an exception
  EXPECT_EQ(PrepareEntry(Write(dir, "title.json", j.dump()), "2.15.0", false).row.status,
            ReplayStatus::kInvalid);
}

TEST(ReplayPrepare, SkipsWithoutAnExpectationOrAGpu) {
  std::string dir = Scratch("skip");
  auto old = PrepareEntry(Write(dir, "a.json", Entry("agree").dump()), "2.9.0", false);
  EXPECT_EQ(old.row.status, ReplayStatus::kSkipped);
  EXPECT_NE(old.row.detail.find("no expectation for torch 2.9.0 (the entry covers >=2.11)"),
            std::string::npos);
  std::string cuda = Write(dir, "cuda.json", Entry("agree", Device::kCuda).dump());
  auto no_gpu = PrepareEntry(cuda, "2.15.0", false);
  EXPECT_EQ(no_gpu.row.status, ReplayStatus::kSkipped);
  EXPECT_EQ(no_gpu.row.detail, "needs cuda: this machine has no GPU");
  EXPECT_TRUE(PrepareEntry(cuda, "2.15.0", true).pending);
  auto ok = PrepareEntry(Write(dir, "ok.json", Entry("agree").dump()), "2.15.0+cu132", false);
  EXPECT_TRUE(ok.pending);
  EXPECT_EQ(ok.row.torch_range, ">=2.11");
  EXPECT_EQ(ok.row.title, "an mm");
}

TEST(ReplayRun, RunsJudgesAndClassifies) {
  std::string dir = Scratch("run");
  std::vector<std::string> ran;
  RunPathsFn agreeing = Agreeing(&ran), raising = Raising();
  auto e = PrepareEntry(Write(dir, "agree.json", Entry("agree").dump()), "2.15.0", false);
  RunEntry(e, Env(), agreeing);
  EXPECT_EQ(e.row.status, ReplayStatus::kMatch) << e.row.detail;
  EXPECT_EQ(ran, (std::vector<std::string>{"reference", "eager"}));
  EXPECT_EQ(e.row.observed, "agree");

  e = PrepareEntry(Write(dir, "agree.json", Entry("agree").dump()), "2.15.0", false);
  RunEntry(e, Env(), raising);
  EXPECT_EQ(e.row.status, ReplayStatus::kNewBehaviour);
  EXPECT_NE(e.row.observed.find("diverge"), std::string::npos);

  e = PrepareEntry(Write(dir, "diverge.json", Entry("diverge").dump()), "2.15.0", false);
  RunEntry(e, Env(), agreeing);
  EXPECT_EQ(e.row.status, ReplayStatus::kFixed);
  EXPECT_EQ(e.row.detail, "expected diverge, got agree");
}

TEST(ReplayRun, UnknownOrUnavailablePathsAreNotRun) {
  std::string dir = Scratch("paths");
  bool ran = false;
  auto run = [&](const Program&, const InputRecipe&, const std::vector<std::string>&, bool) {
    ran = true;
    return std::vector<PathResult>{};
  };
  auto j = Entry("agree");
  j["paths"] = {"reference", "planted_promote"};
  auto e = PrepareEntry(Write(dir, "planted.json", j.dump()), "2.15.0", false);
  RunEntry(e, Env(), run);
  EXPECT_EQ(e.row.status, ReplayStatus::kInvalid);
  EXPECT_NE(e.row.detail.find("unknown path \"planted_promote\" (test-only paths"),
            std::string::npos)
      << e.row.detail;
  j["paths"] = {"reference", "inductor"};
  e = PrepareEntry(Write(dir, "inductor.json", j.dump()), "2.15.0", false);
  RunEntry(e, Env(), run);
  EXPECT_EQ(e.row.status, ReplayStatus::kSkipped);
  EXPECT_EQ(e.row.detail, "path inductor is not available here: no C++ compiler");
  EXPECT_FALSE(ran);
}

TEST(ReplayFiles, FoldersAreSortedAndMissingArgumentsInvalid) {
  std::string dir = Scratch("files");
  Write(dir, "b.json", "{}");
  Write(dir, "a.json", "{}");
  Write(dir, "notes.txt", "x");
  std::string empty = Scratch("files-empty");
  std::vector<ReplayRow> invalid;
  auto files = CollectReplayFiles({dir, dir + "/a.json", dir + "/ghost.json", empty}, invalid);
  EXPECT_EQ(files, (std::vector<std::string>{dir + "/a.json", dir + "/b.json", dir + "/a.json"}));
  ASSERT_EQ(invalid.size(), 2u);
  EXPECT_EQ(invalid[0].detail, "no such file or folder");
  EXPECT_EQ(invalid[1].detail,
            "the folder holds no regression entries (*.json) or fuzzer artifacts (crash-*, ...)");
}

TEST(ReplayOutput, TableAndJunitCountEveryStatus) {
  std::vector<ReplayRow> rows(5);
  const ReplayStatus all[] = {ReplayStatus::kMatch, ReplayStatus::kFixed,
                              ReplayStatus::kNewBehaviour, ReplayStatus::kSkipped,
                              ReplayStatus::kInvalid};
  for (int i = 0; i < 5; ++i) {
    rows[i].file = "corpus/e" + std::to_string(i) + ".json";
    rows[i].status = all[i];
    rows[i].detail = "why <" + std::to_string(i) + "> & \"so\"";
  }
  std::string table = FormatReplayTable(rows, "2.15.0");
  EXPECT_NE(table.find("entry"), std::string::npos);
  EXPECT_NE(table.find("corpus/e2.json (new-behaviour): why <2>"), std::string::npos) << table;
  EXPECT_EQ(table.find("e0.json (match)"), std::string::npos) << table;
  EXPECT_NE(table.find("replay: 5 entries on torch 2.15.0: 1 match, 1 fixed, 1 new-behaviour, 1 "
                       "skipped, 1 invalid"),
            std::string::npos)
      << table;
  std::string xml = ReplayJunitXml(rows, "2.15.0");
  EXPECT_NE(xml.find("tests=\"5\" failures=\"2\" errors=\"1\" skipped=\"1\""), std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<failure type=\"fixed\" message=\"why &lt;1&gt; &amp; &quot;so&quot;\">"),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("<skipped message=\"why &lt;3&gt;"), std::string::npos) << xml;
  EXPECT_NE(xml.find("<error type=\"invalid\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase classname=\"mmdiff.replay\" name=\"e0\" file=\"corpus/e0.json\" "
                     "time=\"0.000\"/>"),
            std::string::npos)
      << xml;
}

}  // namespace
}  // namespace mmdiff
