// `mmdiff replay` on program-fuzzer artifacts with the real binaries: a diverging artifact is a
// match (exit 0) with its bucket, an agreeing one fixed (exit 4), a *.json file that is neither an
// entry nor a case invalid (exit 2); mixed with entries, in JUnit, and with the fuzzer's paths from
// its environment. (The planted libFuzzer run replays its own artifact too: fuzz/planted.cmake.)
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "src/gen/fuzz_input.h"
#include "src/ir/program_json.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

std::string WriteBytes(const std::string& dir, const std::string& name, const std::string& bytes) {
  std::string file = dir + "/" + name;
  std::ofstream(file, std::ios::binary) << bytes;
  return file;
}

constexpr const char* kPlanted = "--test-paths --paths reference,eager,planted_promote ";

TEST(ReplayArtifactE2E, DivergingIsAMatchAgreeingIsFixedNeitherIsInvalid) {
  std::string dir = e2e::ScratchDir("replay-artifacts");
  InputRecipe exact{"exact", 3};
  // planted_promote returns float32 where eager raises: the artifact still diverges.
  std::string diverging =
      WriteBytes(dir, "crash-seedbug", EncodeFuzzCase(e2e::SeedBugProgram(), exact));
  std::string agreeing = WriteBytes(dir, "crash-legal", EncodeFuzzCase(e2e::LegalMm(), exact));

  auto r = e2e::RunMmdiff(std::string("replay ") + kPlanted + diverging);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(e2e::ReplayStatusOf(r.output, "crash-seedbug"), "match") << r.output;
  EXPECT_NE(r.output.find("crash-seedbug (match): bucket "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("planted_promote"), std::string::npos) << r.output;

  r = e2e::RunMmdiff(std::string("replay ") + kPlanted + agreeing);
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_EQ(e2e::ReplayStatusOf(r.output, "crash-legal"), "fixed") << r.output;

  std::string neither = WriteBytes(dir, "neither.json", "{\"program\": {\"nodes\": 1}}");
  r = e2e::RunMmdiff(std::string("replay ") + kPlanted + neither);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("neither.json (invalid): neither a regression entry nor a case"),
            std::string::npos)
      << r.output;

  // Without --test-paths the planted path is unknown: invalid, with the hint.
  r = e2e::RunMmdiff("replay --paths reference,eager,planted_promote " + diverging);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown path \"planted_promote\""), std::string::npos) << r.output;
}

TEST(ReplayArtifactE2E, MixedWithEntriesInJunitAndWithTheFuzzersEnvironment) {
  std::string dir = e2e::ScratchDir("replay-artifacts-mixed");
  std::string artifacts = dir + "/artifacts";
  std::filesystem::create_directories(artifacts);
  WriteBytes(artifacts, "crash-seedbug",
             EncodeFuzzCase(e2e::SeedBugProgram(), InputRecipe{"exact", 3}));
  WriteBytes(artifacts, "crash-legal", EncodeFuzzCase(e2e::LegalMm(), InputRecipe{"exact", 3}));
  WriteBytes(artifacts, "crash-bytes", std::string("\x05\x00\xfe generator bytes", 19));
  nlohmann::json entry = {{"format", "mmdiff.regression"},
                          {"version", 1},
                          {"title", "a legal mm"},
                          {"program", ProgramToJson(e2e::LegalMm())},
                          {"inputs", {{"kind", "grid16"}, {"seed", 1}}},
                          {"paths", {"reference", "eager"}},
                          {"expected", {{{"torch", ">=2.0"}, {"verdict", "agree"}}}}};
  std::string good = WriteBytes(dir, "good.json", entry.dump());
  std::string xml = dir + "/junit.xml";
  // The paths come from the fuzzer's own variables, as when it found the artifacts.
  auto r =
      e2e::RunShell("MMDIFF_FUZZ_PATHS=reference,eager,planted_promote MMDIFF_FUZZ_TEST_PATHS=1 " +
                    std::string(MMDIFF_BUILD_DIR) + "/mmdiff replay " + good + " " + artifacts +
                    " --junit " + xml);
  EXPECT_EQ(r.exit_code, 4) << r.output;  // crash-legal no longer diverges
  EXPECT_EQ(e2e::ReplayStatusOf(r.output, "good"), "match") << r.output;
  EXPECT_EQ(e2e::ReplayStatusOf(r.output, "crash-seedbug"), "match") << r.output;
  EXPECT_EQ(e2e::ReplayStatusOf(r.output, "crash-legal"), "fixed") << r.output;
  std::string bytes_status = e2e::ReplayStatusOf(r.output, "crash-bytes");
  EXPECT_TRUE(bytes_status == "match" || bytes_status == "fixed" || bytes_status == "skipped")
      << r.output;
  EXPECT_NE(r.output.find("replay: 4 entries"), std::string::npos) << r.output;

  std::string script =
      "import sys, xml.etree.ElementTree as ET\n"
      "root = ET.parse(sys.argv[1]).getroot()\n"
      "for c in root.findall('.//testcase'):\n"
      "  f = c.find('failure')\n"
      "  out = c.find('system-out')\n"
      "  print('case', c.get('name'), f.get('type') if f is not None else '-',"
      " 'bucket' if out is not None and out.text.startswith('bucket ') else '-')\n";
  WriteBytes(dir, "check.py", script);
  auto parsed = e2e::RunShell(e2e::VenvPython() + " " + dir + "/check.py " + xml);
  ASSERT_EQ(parsed.exit_code, 0) << parsed.output;
  EXPECT_NE(parsed.output.find("case good - -"), std::string::npos) << parsed.output;
  EXPECT_NE(parsed.output.find("case crash-seedbug - bucket"), std::string::npos) << parsed.output;
  EXPECT_NE(parsed.output.find("case crash-legal fixed -"), std::string::npos) << parsed.output;
  EXPECT_NE(parsed.output.find("case crash-bytes"), std::string::npos) << parsed.output;
}

}  // namespace
}  // namespace mmdiff
