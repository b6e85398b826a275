// Tests for program-fuzzer artifacts in replay: told apart from entries, decoded as the fuzzer
// decodes them, expected to diverge, and reported with their bucket when they still do.
#include "src/replay/artifact.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "src/gen/fuzz_input.h"
#include "src/replay/replay_test_util.h"

namespace mmdiff {
namespace {

using replay_test::Agreeing;
using replay_test::Entry;
using replay_test::Env;
using replay_test::Mm;
using replay_test::Raising;
using replay_test::Scratch;
using replay_test::Write;

ArtifactOptions Options() { return {{"reference", "eager"}, GenPolicy{}}; }

TEST(ReplayArtifact, NamesOfLibFuzzerArtifacts) {
  EXPECT_TRUE(IsFuzzerArtifactName("out/crash-0123abcd"));
  EXPECT_TRUE(IsFuzzerArtifactName("timeout-1"));
  EXPECT_TRUE(IsFuzzerArtifactName("oom-1"));
  EXPECT_TRUE(IsFuzzerArtifactName("leak-1"));
  EXPECT_FALSE(IsFuzzerArtifactName("corpus/0123abcd"));
  EXPECT_FALSE(IsFuzzerArtifactName("crashes/entry.json"));
}

TEST(ReplayArtifact, ACaseIsAnArtifactExpectedToDiverge) {
  std::string dir = Scratch("case");
  InputRecipe r{"exact", 9};
  auto e =
      PrepareReplayFile(Write(dir, "crash-1", EncodeFuzzCase(Mm(), r)), "2.15.0", false, Options());
  ASSERT_TRUE(e.pending) << e.row.detail;
  EXPECT_TRUE(e.artifact);
  EXPECT_EQ(e.row.title, "program-fuzzer input: case JSON");
  EXPECT_EQ(e.row.torch_range, "any");
  EXPECT_EQ(e.row.expected, "diverge");
  EXPECT_EQ(e.entry->program, Mm());
  EXPECT_EQ(e.entry->recipe, r);
  EXPECT_EQ(e.entry->paths, Options().paths);
  // `mmdiff gen --case` output named *.json is a case too.
  EXPECT_TRUE(PrepareReplayFile(Write(dir, "case.json", EncodeFuzzCase(Mm(), r)), "2.15.0", false,
                                Options())
                  .artifact);
}

TEST(ReplayArtifact, OtherBytesAreWhatTheFuzzerGenerates) {
  std::string dir = Scratch("bytes");
  // Bytes that make a cpu program, which any machine can run (past the bytes, the draws come from
  // their count): the shortest of these whose program is not skipped for want of a GPU, so that
  // another generator version, which makes other programs of the same bytes, keeps one.
  std::string bytes;
  PreparedEntry e;
  for (size_t more = 0; more < 32; ++more) {
    bytes = std::string("\x03\x99\xff\x00 generator choices!", 23) + std::string(more, '!');
    e = PrepareReplayFile(Write(dir, "crash-2", bytes), "2.15.0", false, Options());
    if (e.pending) break;
  }
  ASSERT_TRUE(e.pending) << e.row.detail;
  EXPECT_TRUE(e.artifact);
  EXPECT_EQ(e.row.title, "program-fuzzer input: generator bytes (" + std::to_string(bytes.size()) +
                             " bytes; not a case: not JSON)");
  FuzzInput fuzzer = DecodeFuzzInput(bytes, GenPolicy{});
  EXPECT_EQ(e.entry->program, fuzzer.gc.program);
  EXPECT_EQ(e.entry->recipe, fuzzer.gc.recipe);
  // Broken JSON without a .json name is what the fuzzer would make of it: generator bytes.
  auto broken =
      PrepareReplayFile(Write(dir, "crash-3", "{\"program\": "), "2.15.0", false, Options());
  EXPECT_TRUE(broken.artifact);
  EXPECT_NE(broken.row.title.find("generator bytes"), std::string::npos);
}

TEST(ReplayArtifact, JsonFilesMustBeAnEntryOrACase) {
  std::string dir = Scratch("json");
  auto neither =
      PrepareReplayFile(Write(dir, "a.json", "{\"program\": 3}"), "2.15.0", false, Options());
  EXPECT_EQ(neither.row.status, ReplayStatus::kInvalid);
  EXPECT_FALSE(neither.pending);
  EXPECT_EQ(neither.row.detail.rfind("neither a regression entry nor a case: program: ", 0), 0u)
      << neither.row.detail;
  auto empty = PrepareReplayFile(Write(dir, "b.json", "{}"), "2.15.0", false, Options());
  EXPECT_EQ(empty.row.detail, "neither a regression entry nor a case: JSON without a \"program\"");
  auto truncated =
      PrepareReplayFile(Write(dir, "c.json", "{\"program\": "), "2.15.0", false, Options());
  EXPECT_EQ(truncated.row.status, ReplayStatus::kInvalid);
  EXPECT_NE(truncated.row.detail.find("malformed JSON"), std::string::npos) << truncated.row.detail;
  // A case file of an unknown format, or a report of a version this mmdiff does not read, is
  // rejected as `mmdiff run` rejects it, not run as a case.
  nlohmann::json report = nlohmann::json::parse(EncodeFuzzCase(Mm(), {"exact", 9}));
  report["format"] = "mmdiff.report";
  report["version"] = 99;
  auto future = PrepareReplayFile(Write(dir, "d.json", report.dump()), "2.15.0", false, Options());
  EXPECT_EQ(future.row.status, ReplayStatus::kInvalid);
  EXPECT_NE(future.row.detail.find("version 99 is not supported"), std::string::npos)
      << future.row.detail;
  report["format"] = "mmdiff.nope";
  auto unknown = PrepareReplayFile(Write(dir, "e.json", report.dump()), "2.15.0", false, Options());
  EXPECT_EQ(unknown.row.status, ReplayStatus::kInvalid);
  EXPECT_NE(unknown.row.detail.find("unknown format"), std::string::npos) << unknown.row.detail;
  auto missing = PrepareReplayFile(dir + "/crash-none", "2.15.0", false, Options());
  EXPECT_EQ(missing.row.status, ReplayStatus::kInvalid);
}

TEST(ReplayArtifact, EntriesStayEntriesWhateverTheirName) {
  std::string dir = Scratch("entry");
  nlohmann::json entry = Entry("agree");
  for (const char* name : {"entry.json", "crash-entry"}) {
    auto e = PrepareReplayFile(Write(dir, name, entry.dump()), "2.15.0", false, Options());
    EXPECT_TRUE(e.pending) << name;
    EXPECT_FALSE(e.artifact) << name;
    EXPECT_EQ(e.row.torch_range, ">=2.11") << name;
  }
}

TEST(ReplayArtifact, SkippedWhenItNeedsAGpuThisMachineLacks) {
  std::string dir = Scratch("cuda");
  auto e = PrepareReplayFile(Write(dir, "crash-4", EncodeFuzzCase(Mm(Device::kCuda), {})), "2.15.0",
                             false, Options());
  EXPECT_EQ(e.row.status, ReplayStatus::kSkipped);
  EXPECT_EQ(e.row.detail, "needs cuda: this machine has no GPU");
}

TEST(ReplayArtifact, MatchWhileItDivergesFixedOnceThePathsAgree) {
  std::string dir = Scratch("run");
  std::string file = Write(dir, "crash-5", EncodeFuzzCase(Mm(), {}));
  std::vector<std::string> ran;
  RunPathsFn agreeing = Agreeing(&ran), raising = Raising();
  auto e = PrepareReplayFile(file, "2.15.0", false, Options());
  RunEntry(e, Env(), raising);
  EXPECT_EQ(e.row.status, ReplayStatus::kMatch) << e.row.detail;
  EXPECT_EQ(e.row.note.rfind("bucket ", 0), 0u) << e.row.note;
  EXPECT_NE(FormatReplayTable({e.row}, "2.15.0").find("crash-5 (match): bucket "),
            std::string::npos);
  EXPECT_NE(ReplayJunitXml({e.row}, "2.15.0").find("<system-out>bucket "), std::string::npos);

  e = PrepareReplayFile(file, "2.15.0", false, Options());
  RunEntry(e, Env(), agreeing);
  EXPECT_EQ(ran, Options().paths);
  EXPECT_EQ(e.row.status, ReplayStatus::kFixed);
  EXPECT_EQ(e.row.detail, "expected diverge, got agree");
  EXPECT_TRUE(e.row.note.empty());
}

TEST(ReplayArtifact, FoldersYieldTheirArtifactsToo) {
  std::string dir = Scratch("folder");
  Write(dir, "crash-b", "x");
  Write(dir, "a.json", "{}");
  Write(dir, "0123abcd", "x");  // a corpus file: only named artifacts are picked from folders
  std::vector<ReplayRow> invalid;
  auto files = CollectReplayFiles({dir}, invalid);
  EXPECT_EQ(files, (std::vector<std::string>{dir + "/a.json", dir + "/crash-b"}));
  EXPECT_TRUE(invalid.empty());
}

}  // namespace
}  // namespace mmdiff
