// `mmdiff reduce` end to end: a planted divergence (a float16 @ float32 bmm that the test-only
// planted_promote path accepts and eager rejects) buried in a 10-op program shrinks to at most 3
// ops in the same bucket; a report that no longer diverges, bad input and an unwritable output
// folder give their documented exit codes.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "src/ir/program_json.h"
#include "src/ir/verifier.h"
#include "src/reduce/reduce_test_programs.h"
#include "src/support/files.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

namespace fs = std::filesystem;

constexpr const char* kPaths = "--test-paths --paths reference,eager,planted_promote";

int64_t LargestDim(const Program& p) {
  int64_t m = 0;
  for (const auto& in : p.inputs)
    for (int64_t d : in.shape) m = std::max(m, d);
  return m;
}

// Runs the program through the planted paths with `mmdiff run --out`, which must find it diverging.
std::string DivergingReport(const std::string& dir) {
  Program p = reduce_test::BuriedMixedBmm();
  EXPECT_TRUE(Verify(p).ok()) << Verify(p).message();
  std::ofstream(dir + "/program.json") << ProgramToJson(p).dump(2);
  auto run = e2e::RunMmdiff("run " + dir + "/program.json --out " + dir + "/found " + kPaths);
  EXPECT_EQ(run.exit_code, 1) << run.output;
  return dir + "/found/report.json";
}

TEST(ReduceE2E, ShrinksABuriedPlantedDivergenceToAtMostThreeOpsInTheSameBucket) {
  std::string dir = e2e::ScratchDir("reduce");
  std::string report = DivergingReport(dir);
  nlohmann::json before = e2e::ReadJson(report);
  ASSERT_TRUE(before.is_object()) << report;
  ASSERT_EQ(before["verdict"]["result"], "diverge");
  ASSERT_NE(before["bucket"]["signature"].get<std::string>().find("path=planted_promote"),
            std::string::npos)
      << before["bucket"].dump();

  auto r = e2e::RunMmdiff("reduce " + report + " --test-paths");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("reduced from 10 ops to "), std::string::npos) << r.output;
  std::string out = dir + "/found/reduced";  // the default: next to the report
  nlohmann::json after = e2e::ReadJson(out + "/report.json");
  ASSERT_TRUE(after.is_object()) << r.output;
  EXPECT_EQ(after["bucket"]["hash"], before["bucket"]["hash"]) << after["bucket"].dump();
  EXPECT_EQ(after["verdict"]["result"], "diverge");
  EXPECT_EQ(after["contract"]["rule"], "same_dtype");

  auto original = ProgramFromJson(before["program"]);
  auto reduced = ProgramFromJson(after["program"]);
  ASSERT_TRUE(original.ok() && reduced.ok());
  EXPECT_TRUE(Verify(reduced.value()).ok());
  EXPECT_LE(reduced.value().nodes.size(), 3u) << after["program"].dump();
  EXPECT_LE(LargestDim(reduced.value()), LargestDim(original.value()));
  for (const auto& in : reduced.value().inputs) {
    auto old = std::find_if(original.value().inputs.begin(), original.value().inputs.end(),
                            [&](const InputSpec& o) { return o.name == in.name; });
    ASSERT_NE(old, original.value().inputs.end()) << in.name;
    ASSERT_EQ(in.shape.size(), old->shape.size()) << in.name;
    for (size_t i = 0; i < in.shape.size(); ++i) EXPECT_LE(in.shape[i], old->shape[i]) << in.name;
  }
  auto program_file = ReadFile(out + "/program.json");
  ASSERT_TRUE(program_file.ok());
  auto from_file = ParseProgramText(program_file.value());
  ASSERT_TRUE(from_file.ok()) << from_file.error();
  EXPECT_EQ(from_file.value(), reduced.value());
  EXPECT_TRUE(fs::exists(out + "/repro.py"));
  // The reduced report is a report like any other (reduction.json holds what the schema has no
  // field for).
  std::string validator = std::string(MMDIFF_SOURCE_DIR) + "/reports/schema/validate.py";
  if (fs::exists(validator)) {
    auto valid = e2e::RunShell(e2e::VenvPython() + " " + validator + " " + out + "/report.json");
    EXPECT_EQ(valid.exit_code, 0) << valid.output;
  }
  nlohmann::json reduction = e2e::ReadJson(out + "/reduction.json");
  ASSERT_TRUE(reduction.is_object());
  EXPECT_EQ(reduction["from"]["nodes"], 10);
  EXPECT_EQ(reduction["to"]["nodes"], reduced.value().nodes.size());
  EXPECT_GT(reduction["steps_kept"].get<int>(), 0);

  // The reduced report replays into the same verdict.
  auto replay = e2e::RunMmdiff("run " + out + "/report.json " + kPaths);
  EXPECT_EQ(replay.exit_code, 1) << replay.output;
  EXPECT_NE(replay.output.find("[blamed: planted_promote, filable]"), std::string::npos)
      << replay.output;
}

TEST(ReduceE2E, AReportThatNoLongerDivergesExitsOne) {
  std::string dir = e2e::ScratchDir("reduce-fixed");
  std::string report = DivergingReport(dir);
  // "Fix" the bug: the float16 operand becomes float32, so every path agrees.
  nlohmann::json j = e2e::ReadJson(report);
  ASSERT_TRUE(j.is_object());
  for (auto& in : j["program"]["inputs"])
    if (in["name"] == "h") in["dtype"] = "float32";
  for (auto& n : j["program"]["nodes"])
    if (n["name"] == "n2") n["dtype"] = "float32";
  std::ofstream(dir + "/fixed.json") << j.dump(2);
  auto r = e2e::RunMmdiff("reduce " + dir + "/fixed.json --test-paths --out " + dir + "/out");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("no longer diverges"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir + "/out/report.json"));
}

TEST(ReduceE2E, BadInputExitsTwoAndAnUnwritableOutputExitsThree) {
  std::string dir = e2e::ScratchDir("reduce-bad");
  auto missing = e2e::RunMmdiff("reduce " + dir + "/nope.json");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  std::ofstream(dir + "/broken.json") << "{\"format\": \"mmdiff.report\", ";
  auto broken = e2e::RunMmdiff("reduce " + dir + "/broken.json");
  EXPECT_EQ(broken.exit_code, 2) << broken.output;
  EXPECT_NE(broken.output.find("malformed JSON"), std::string::npos) << broken.output;
  // A program is not a report.
  std::ofstream(dir + "/program.json") << ProgramToJson(reduce_test::BuriedMixedBmm()).dump(2);
  auto program = e2e::RunMmdiff("reduce " + dir + "/program.json");
  EXPECT_EQ(program.exit_code, 2) << program.output;
  EXPECT_NE(program.output.find("not an mmdiff report"), std::string::npos) << program.output;
  // A valid-looking report whose output folder lies under a regular file.
  nlohmann::json fake = {{"format", "mmdiff.report"},
                         {"version", 1},
                         {"program", ProgramToJson(reduce_test::BuriedMixedBmm())},
                         {"inputs", {{"kind", "grid16"}, {"seed", 0u}}},
                         {"paths", {{{"path", "reference"}}, {{"path", "eager"}}}}};
  std::ofstream(dir + "/report.json") << fake.dump(2);
  std::ofstream(dir + "/file") << "x";
  auto unwritable = e2e::RunMmdiff("reduce " + dir + "/report.json --out " + dir + "/file/sub");
  EXPECT_EQ(unwritable.exit_code, 3) << unwritable.output;
}

}  // namespace
}  // namespace mmdiff
