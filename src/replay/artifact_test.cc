// Tests for program-fuzzer artifacts in replay: told apart from entries, decoded as the fuzzer
// decodes them, expected to diverge, and reported with their bucket when they still do.
#include "src/replay/artifact.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "src/gen/fuzz_input.h"
#include "src/ir/program_json.h"

namespace mmdiff {
namespace {

namespace fs = std::filesystem;

std::string Scratch(const std::string& name) {
  fs::path dir =
      fs::temp_directory_path() / ("mmdiff-artifact-test-" + std::to_string(getpid())) / name;
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir.string();
}

std::string Write(const std::string& dir, const std::string& name, const std::string& bytes) {
  std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << bytes;
  return path;
}

Program Mm(Device device = Device::kCpu) {
  Program p;
  p.inputs = {{"a", {2, 3}, DType::kFloat32, device}, {"b", {3, 2}, DType::kFloat32, device}};
  p.nodes = {{"v0", OpKind::kMm, {"a", "b"}}};
  p.outputs = {"v0"};
  return p;
}

ArtifactOptions Options() { return {{"reference", "eager"}, GenPolicy{}}; }

PathResult Ok(const std::string& path, std::vector<double> data) {
  PathResult r{path, OutcomeKind::kOk};
  TensorValue t{DType::kFloat32, {2, 2}, Device::kCpu, data, std::vector<double>(data.size(), 0.0)};
  r.outputs = {t};
  return r;
}

ReplayEnvironment Env() {
  ReplayEnvironment env{"2.15.0", false, {}, false};
  env.paths = {{"reference", true}, {"eager", true}};
  return env;
}

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
  const std::string bytes("\x03\x99\xff\x00 generator choices", 22);
  auto e = PrepareReplayFile(Write(dir, "crash-2", bytes), "2.15.0", false, Options());
  ASSERT_TRUE(e.pending) << e.row.detail;
  EXPECT_TRUE(e.artifact);
  EXPECT_EQ(e.row.title, "program-fuzzer input: generator bytes (22 bytes; not a case: not JSON)");
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
  auto missing = PrepareReplayFile(dir + "/crash-none", "2.15.0", false, Options());
  EXPECT_EQ(missing.row.status, ReplayStatus::kInvalid);
}

TEST(ReplayArtifact, EntriesStayEntriesWhateverTheirName) {
  std::string dir = Scratch("entry");
  nlohmann::json entry = {{"format", "mmdiff.regression"},
                          {"version", 1},
                          {"title", "an mm"},
                          {"program", ProgramToJson(Mm())},
                          {"inputs", {{"kind", "grid16"}, {"seed", 1}}},
                          {"paths", {"reference", "eager"}},
                          {"expected", {{{"torch", ">=2.11"}, {"verdict", "agree"}}}}};
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
  auto agreeing = [&](const Program&, const InputRecipe&, const std::vector<std::string>& paths) {
    ran = paths;
    return std::vector<PathResult>{Ok("reference", {1, 2, 3, 4}), Ok("eager", {1, 2, 3, 4})};
  };
  auto raising = [](const Program&, const InputRecipe&, const std::vector<std::string>&) {
    PathResult e{"eager", OutcomeKind::kError, "RuntimeError", "c10::Error", "boom"};
    return std::vector<PathResult>{Ok("reference", {1, 2, 3, 4}), e};
  };
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
