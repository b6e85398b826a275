// `mmdiff replay` and `mmdiff promote` on the real binaries: exit codes for matching, fixed and new
// verdicts, skipped and invalid entries, JUnit XML, and a promoted report that replays as a match.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "src/ir/program_json.h"
#include "src/support/files.h"
#include "tests/e2e_util.h"
#include "tests/schema_check.h"

namespace mmdiff {
namespace {

namespace fs = std::filesystem;

std::string WriteEntry(const std::string& dir, const std::string& name, const Program& p,
                       const std::vector<std::string>& paths, const nlohmann::json& expected) {
  nlohmann::json j = {{"format", "mmdiff.regression"},
                      {"version", 1},
                      {"title", name},
                      {"program", ProgramToJson(p)},
                      {"inputs", {{"kind", "grid16"}, {"seed", 1}}},
                      {"paths", paths},
                      {"expected", expected}};
  std::string file = dir + "/" + name + ".json";
  std::ofstream(file) << j.dump(2);
  return file;
}

nlohmann::json Agree() { return {{{"torch", ">=2.0"}, {"verdict", "agree"}}}; }
nlohmann::json Diverge(const std::string& kind, const std::string& blamed) {
  return {{{"torch", ">=2.0"},
           {"verdict", "diverge"},
           {"divergences", {{{"kind", kind}, {"blamed", blamed}}}}}};
}

Program Cuda(Program p) {
  for (auto& in : p.inputs) in.device = Device::kCuda;
  return p;
}

bool MachineHasGpu() {
  auto paths = nlohmann::json::parse(e2e::RunMmdiff("paths --json").output);
  return paths["devices"]["cuda"].get<bool>();
}

std::string StatusOf(const std::string& output, const std::string& entry) {
  return e2e::ReplayStatusOf(output, entry);
}

// Every saved entry in corpus/regression/ gives the verdict it expects for the installed torch
// (entries without an expectation for it, or for a CPU without the flags it needs, are skipped).
TEST(ReplayE2E, TheRegressionCorpusReplaysClean) {
  std::string dir = e2e::ScratchDir("replay-corpus");
  auto r = e2e::RunMmdiff("replay " + std::string(MMDIFF_SOURCE_DIR) +
                          "/corpus/regression --junit " + dir + "/j.xml");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find(" 0 fixed, 0 new-behaviour, "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(" 0 invalid"), std::string::npos) << r.output;
  EXPECT_EQ(r.output.find(" 0 match,"), std::string::npos) << "nothing was checked: " << r.output;
  EXPECT_TRUE(fs::exists(dir + "/j.xml"));
}

TEST(ReplayE2E, FixedNewSkippedAndInvalidEntriesGetTheirExitCodes) {
  std::string dir = e2e::ScratchDir("replay-codes");
  // The paths agree on a legal mm: an expected divergence is gone.
  std::string fixed =
      WriteEntry(dir, "gone", e2e::LegalMm(), {"reference", "eager"}, Diverge("value", "eager"));
  // planted_promote accepts what eager rejects: a divergence the entry does not expect.
  std::string changed = WriteEntry(dir, "changed", e2e::SeedBugProgram(),
                                   {"reference", "eager", "planted_promote"}, Agree());
  std::string cuda = WriteEntry(dir, "cuda", Cuda(e2e::LegalMm()), {"reference", "eager"}, Agree());
  nlohmann::json old = {{{"torch", "<2.0"}, {"verdict", "agree"}}};
  std::string older = WriteEntry(dir, "older", e2e::LegalMm(), {"reference", "eager"}, old);
  std::string good = WriteEntry(dir, "good", e2e::LegalMm(), {"reference", "eager"}, Agree());

  auto r = e2e::RunMmdiff("replay " + fixed + " " + good);
  EXPECT_EQ(r.exit_code, 4) << r.output;
  EXPECT_EQ(StatusOf(r.output, "gone"), "fixed") << r.output;
  EXPECT_EQ(StatusOf(r.output, "good"), "match") << r.output;
  EXPECT_NE(r.output.find("gone.json (fixed): expected diverge, got agree"), std::string::npos)
      << r.output;

  r = e2e::RunMmdiff("replay --test-paths " + changed + " " + fixed);
  EXPECT_EQ(r.exit_code, 5) << r.output;  // new behaviour takes precedence over fixed
  EXPECT_EQ(StatusOf(r.output, "changed"), "new-behaviour") << r.output;
  EXPECT_NE(r.output.find("planted_promote"), std::string::npos) << r.output;

  // Without --test-paths the planted path is unknown: invalid, with the hint.
  r = e2e::RunMmdiff("replay " + changed);
  EXPECT_EQ(r.exit_code, 2) << r.output;
  EXPECT_NE(r.output.find("unknown path \"planted_promote\" (test-only paths"), std::string::npos)
      << r.output;

  // Skipped entries are listed with the reason and do not fail the replay.
  r = e2e::RunMmdiff("replay " + cuda + " " + older + " " + good);
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(StatusOf(r.output, "older"), "skipped") << r.output;
  EXPECT_NE(r.output.find("no expectation for torch "), std::string::npos) << r.output;
  if (MachineHasGpu()) {
    EXPECT_EQ(StatusOf(r.output, "cuda"), "match") << r.output;
  } else {
    EXPECT_EQ(StatusOf(r.output, "cuda"), "skipped") << r.output;
    EXPECT_NE(r.output.find("cuda.json (skipped): needs cuda: this machine has no GPU"),
              std::string::npos)
        << r.output;
  }
}

TEST(ReplayE2E, BadInputIsExit2WithAClearMessage) {
  std::string dir = e2e::ScratchDir("replay-bad");
  std::string good = WriteEntry(dir, "good", e2e::LegalMm(), {"reference", "eager"}, Agree());
  std::string text = ReadFile(good).value();
  std::ofstream(dir + "/truncated.json") << text.substr(0, text.size() / 2);
  auto j = nlohmann::json::parse(text);
  j["version"] = 3;
  std::ofstream(dir + "/v3.json") << j.dump();

  auto missing = e2e::RunMmdiff("replay " + dir + "/nope.json");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("nope.json (invalid): no such file or folder"), std::string::npos)
      << missing.output;
  auto truncated = e2e::RunMmdiff("replay " + dir + "/truncated.json");
  EXPECT_EQ(truncated.exit_code, 2) << truncated.output;
  EXPECT_NE(truncated.output.find("truncated.json (invalid): malformed JSON"), std::string::npos)
      << truncated.output;
  auto v3 = e2e::RunMmdiff("replay " + dir + "/v3.json");
  EXPECT_EQ(v3.exit_code, 2) << v3.output;
  EXPECT_NE(v3.output.find("format version 3 is not supported (this mmdiff reads versions 1 to 2)"),
            std::string::npos)
      << v3.output;
  // A bad entry among good ones: the good ones still run.
  auto folder = e2e::RunMmdiff("replay " + dir);
  EXPECT_EQ(folder.exit_code, 2) << folder.output;
  EXPECT_EQ(StatusOf(folder.output, "good"), "match") << folder.output;
  EXPECT_NE(folder.output.find("1 match, 0 fixed, 0 new-behaviour, 0 skipped, 2 invalid"),
            std::string::npos)
      << folder.output;

  std::ofstream(dir + "/a-file") << "x";
  auto unwritable = e2e::RunMmdiff("replay " + good + " --junit " + dir + "/a-file/j.xml");
  EXPECT_EQ(unwritable.exit_code, 3) << unwritable.output;
}

TEST(ReplayE2E, JunitXmlHasOneTestcasePerEntry) {
  std::string dir = e2e::ScratchDir("replay-junit");
  std::string entries = dir + "/entries";
  fs::create_directories(entries);
  WriteEntry(entries, "a-match", e2e::LegalMm(), {"reference", "eager"}, Agree());
  WriteEntry(entries, "b-fixed", e2e::LegalMm(), {"reference", "eager"}, Diverge("value", ""));
  WriteEntry(entries, "c-new", e2e::SeedBugProgram(), {"reference", "eager", "planted_promote"},
             Agree());
  WriteEntry(entries, "d-skipped", e2e::LegalMm(), {"reference", "eager"},
             {{{"torch", "<1.0"}, {"verdict", "agree"}}});
  std::ofstream(entries + "/e-invalid.json") << "{\"format\": \"mmdiff.regression\", ";
  std::string xml = dir + "/out/junit.xml";
  auto r = e2e::RunMmdiff("replay --test-paths " + entries + " --junit " + xml);
  EXPECT_EQ(r.exit_code, 5) << r.output;
  ASSERT_TRUE(fs::exists(xml)) << r.output;
  std::string script =
      "import sys, xml.etree.ElementTree as ET\n"
      "root = ET.parse(sys.argv[1]).getroot()\n"
      "cases = root.findall('.//testcase')\n"
      "suite = root.find('testsuite')\n"
      "print('cases', len(cases), 'failures', len(root.findall('.//failure')), 'skipped',"
      " len(root.findall('.//skipped')), 'errors', len(root.findall('.//error')))\n"
      "print('attrs', suite.get('tests'), suite.get('failures'), suite.get('skipped'), "
      "suite.get('errors'))\n"
      "for c in cases:\n"
      "  f = c.find('failure')\n"
      "  print('case', c.get('name'), f.get('type') if f is not None else '-')\n";
  std::ofstream(dir + "/check.py") << script;
  auto parsed = e2e::RunShell(e2e::VenvPython() + " " + dir + "/check.py " + xml);
  ASSERT_EQ(parsed.exit_code, 0) << parsed.output;
  EXPECT_NE(parsed.output.find("cases 5 failures 2 skipped 1 errors 1"), std::string::npos)
      << parsed.output;
  EXPECT_NE(parsed.output.find("attrs 5 2 1 1"), std::string::npos) << parsed.output;
  EXPECT_NE(parsed.output.find("case b-fixed fixed"), std::string::npos) << parsed.output;
  EXPECT_NE(parsed.output.find("case c-new new-behaviour"), std::string::npos) << parsed.output;
  EXPECT_NE(parsed.output.find("case a-match -"), std::string::npos) << parsed.output;
}

TEST(ReplayE2E, APromotedReportReplaysAsAMatchAndIsNeverOverwritten) {
  std::string dir = e2e::ScratchDir("promote");
  std::ofstream(dir + "/seed-bug.json") << ProgramToJson(e2e::SeedBugProgram()).dump();
  auto run = e2e::RunMmdiff(
      "run " + dir + "/seed-bug.json --test-paths --paths reference,eager,planted_promote --out " +
      dir + "/finding");
  ASSERT_EQ(run.exit_code, 1) << run.output;
  std::string entry = dir + "/corpus/planted.json";
  auto promote = e2e::RunMmdiff("promote " + dir + "/finding/report.json --out " + entry +
                                " --title 'planted promote'");
  ASSERT_EQ(promote.exit_code, 0) << promote.output;
  EXPECT_NE(promote.output.find(entry), std::string::npos) << promote.output;
  auto j = nlohmann::json::parse(ReadFile(entry).value());
  EXPECT_EQ(j["title"], "planted promote");
  EXPECT_EQ(j["expected"][0]["verdict"], "diverge");
  EXPECT_EQ(j["expected"][0]["divergences"][0]["blamed"], "planted_promote");
  auto schema = e2e::ValidateJson({entry});
  EXPECT_TRUE(schema.all_valid()) << schema.output;

  auto replay = e2e::RunMmdiff("replay --test-paths " + entry);
  EXPECT_EQ(replay.exit_code, 0) << replay.output;
  EXPECT_EQ(StatusOf(replay.output, "planted"), "match") << replay.output;

  std::string before = ReadFile(entry).value();
  auto again =
      e2e::RunMmdiff("promote " + dir + "/finding/report.json --out " + entry + " --title other");
  EXPECT_EQ(again.exit_code, 2) << again.output;
  EXPECT_NE(again.output.find("exists; not overwriting it (pass --force"), std::string::npos)
      << again.output;
  EXPECT_EQ(ReadFile(entry).value(), before);
  auto forced = e2e::RunMmdiff("promote " + dir + "/finding/report.json --out " + entry +
                               " --title other --force");
  EXPECT_EQ(forced.exit_code, 0) << forced.output;
  EXPECT_EQ(nlohmann::json::parse(ReadFile(entry).value())["title"], "other");

  auto report = nlohmann::json::parse(ReadFile(dir + "/finding/report.json").value());
  report["version"] = 7;
  std::ofstream(dir + "/v7.json") << report.dump();
  auto v7 = e2e::RunMmdiff("promote " + dir + "/v7.json --out " + dir + "/v7-entry.json");
  EXPECT_EQ(v7.exit_code, 2) << v7.output;
  EXPECT_NE(v7.output.find("report format version 7 is not supported"), std::string::npos)
      << v7.output;
  EXPECT_FALSE(fs::exists(dir + "/v7-entry.json"));
  EXPECT_EQ(e2e::RunMmdiff("promote " + dir + "/missing.json").exit_code, 2);
}

}  // namespace
}  // namespace mmdiff
