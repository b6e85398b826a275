// Every JSON file mmdiff writes (reports of every divergence kind, programs, campaign summaries),
// every checked-in example and every regression entry validates against reports/schema/; broken
// copies do not.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "src/support/files.h"
#include "tests/e2e_util.h"
#include "tests/schema_check.h"

namespace mmdiff {
namespace {

namespace fs = std::filesystem;

// Every file named `name` under `dir`, sorted.
std::vector<std::string> FilesNamed(const std::string& dir, const std::string& name) {
  std::vector<std::string> out;
  for (const auto& f : fs::recursive_directory_iterator(dir))
    if (f.path().filename() == name) out.push_back(f.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

nlohmann::json Load(const std::string& file) {
  return nlohmann::json::parse(ReadFile(file).value());
}

// What a folder of written files holds: the divergence kinds of its reports and whether any
// report has mitigations, a classification, an RMSE; and whether every report, program and
// campaign summary in it validates.
struct Written {
  std::set<std::string> kinds;
  bool mitigations = false, classification = false, rmse = false;
  size_t reports = 0, summaries = 0;
};

Written ValidateFolder(const std::string& dir) {
  Written w;
  std::vector<std::string> reports = FilesNamed(dir, "report.json");
  std::vector<std::string> programs = FilesNamed(dir, "program.json");
  std::vector<std::string> summaries = FilesNamed(dir, "summary.json");
  w.reports = reports.size();
  w.summaries = summaries.size();
  EXPECT_EQ(programs.size(), reports.size());
  for (const auto& f : reports) {
    auto j = Load(f);
    for (const auto& d : j["verdict"]["divergences"]) {
      w.kinds.insert(d["kind"].get<std::string>());
      w.classification |= d.contains("classification");
      w.rmse |= d.contains("rmse");
    }
    w.mitigations |= j.contains("mitigations");
  }
  if (!reports.empty()) {
    auto r = e2e::ValidateJson(reports, "report.v3");
    EXPECT_TRUE(r.all_valid()) << r.output;
  }
  if (!programs.empty()) {
    auto p = e2e::ValidateJson(programs, "program.v1");
    EXPECT_TRUE(p.all_valid()) << p.output;
  }
  if (!summaries.empty()) {
    auto s = e2e::ValidateJson(summaries, "fuzz-summary.v3");
    EXPECT_TRUE(s.all_valid()) << s.output;
  }
  return w;
}

// One campaign (or run) per test, so that each fits its own timeout. Together they cover every
// kind the writer has a special case for, so the schema is exercised.
TEST(ReportSchemaE2E, APlantedCampaignsFilesValidate) {
  std::string dir = e2e::ScratchDir("schema-planted");
  // Planted paths and the meta path: error_behaviour, error_class, value, dtype, contract and meta
  // findings. A small reduction budget keeps reduced/ reports in the set without the test's time
  // going on reduction.
  auto planted = e2e::RunMmdiff(
      "fuzz --cases 300 --time 200 --seed 3 --reduce-budget 10 --no-standalone-check --test-paths "
      "--paths "
      "reference,eager,eager_meta,planted_promote,planted_drop_k,planted_wrong_dtype --out " +
      dir);
  ASSERT_EQ(planted.exit_code, 0) << planted.output;
  Written w = ValidateFolder(dir);
  EXPECT_GT(w.reports, 20u);
  EXPECT_EQ(w.summaries, 1u);
  for (const char* k : {"error_behaviour", "value", "dtype", "contract", "meta"})
    EXPECT_TRUE(w.kinds.count(k)) << "no " << k << " report was written";
  EXPECT_TRUE(w.classification);
  EXPECT_TRUE(w.rmse);
}

TEST(ReportSchemaE2E, ACrashAndATimeoutFindingValidate) {
  std::string dir = e2e::ScratchDir("schema-crashers");
  // Each crash or timeout run restarts a worker, which imports torch (seconds): the finding's own
  // report only (APlantedCampaignsFilesValidate has reduced ones), no reruns of the case.
  const std::string once = " --no-reduce --no-standalone-check --no-ablation ";
  auto crash =
      e2e::RunMmdiff("fuzz --cases 1 --time 200 --seed 3" + once +
                     "--test-paths --paths reference,eager,crash_segv --out " + dir + "/crash");
  ASSERT_EQ(crash.exit_code, 0) << crash.output;
  auto hang = e2e::RunMmdiff("fuzz --cases 1 --time 200 --timeout 2 --seed 3" + once +
                             "--test-paths --paths reference,hang --out " + dir + "/hang");
  ASSERT_EQ(hang.exit_code, 0) << hang.output;
  Written w = ValidateFolder(dir);
  EXPECT_EQ(w.summaries, 2u);
  for (const char* k : {"crash", "timeout"})
    EXPECT_TRUE(w.kinds.count(k)) << "no " << k << " report was written";
}

TEST(ReportSchemaE2E, ARunWithMitigationsAndAnIgnoredInputFindingValidate) {
  std::string dir = e2e::ScratchDir("schema-runs");
  // `mmdiff run --out` on an inductor value finding: a report with mitigations.
  auto value = e2e::RunMmdiff(
      "run " + std::string(MMDIFF_SOURCE_DIR) +
      "/corpus/regression/inductor-mv-bfloat16-rounds-products.json --paths reference,eager,"
      "inductor --out " +
      dir + "/value");
  ASSERT_EQ(value.exit_code, 1) << value.output;  // it diverges
  // ... and on the ignored-input finding: a report whose verdict has that kind.
  auto ignored = e2e::RunMmdiff(
      "run " + std::string(MMDIFF_SOURCE_DIR) +
      "/corpus/regression/inductor-addmm-beta0-reads-nan-bias.json --paths reference,eager,"
      "inductor --out " +
      dir + "/ignored");
  ASSERT_EQ(ignored.exit_code, 1) << ignored.output;
  Written w = ValidateFolder(dir);
  EXPECT_EQ(w.reports, 2u);
  EXPECT_TRUE(w.mitigations);
  EXPECT_TRUE(w.kinds.count("ignored_input"));
}

TEST(ReportSchemaE2E, CheckedInExamplesAndRegressionEntriesValidate) {
  std::string examples = std::string(MMDIFF_SOURCE_DIR) + "/reports/examples";
  std::vector<std::string> files = FilesNamed(examples, "report.json");
  ASSERT_GE(files.size(), 3u);
  for (const auto& f : FilesNamed(examples, "program.json")) files.push_back(f);
  for (const auto& f :
       fs::directory_iterator(std::string(MMDIFF_SOURCE_DIR) + "/corpus/regression"))
    if (f.path().extension() == ".json") files.push_back(f.path().string());
  // Without --schema each file is checked against the schema its format and version name.
  auto r = e2e::ValidateJson(files);
  EXPECT_TRUE(r.all_valid()) << r.output;
  EXPECT_NE(r.output.find("(regression-entry.v1)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(report.v1)"), std::string::npos) << r.output;
}

TEST(ReportSchemaE2E, BrokenCopiesAreRejected) {
  std::string dir = e2e::ScratchDir("schema-broken");
  std::string example =
      std::string(MMDIFF_SOURCE_DIR) + "/reports/examples/inductor-mm-k1-torch-2.15.0/report.json";
  nlohmann::json report = Load(example);
  auto write = [&](const std::string& name, const nlohmann::json& j) {
    std::string path = dir + "/" + name;
    std::ofstream(path) << j.dump(2);
    return path;
  };
  // The unbroken copy passes, so the failures below are the edits' doing.
  auto control = e2e::ValidateJson({write("control.json", report)}, "report.v1");
  ASSERT_TRUE(control.all_valid()) << control.output;

  struct Case {
    std::string name;
    std::function<void(nlohmann::json&)> edit;
    std::string why;  // in the validator's message
  };
  std::vector<Case> cases = {
      {"no-verdict", [](nlohmann::json& j) { j.erase("verdict"); },
       "'verdict' is a required property"},
      {"bad-kind", [](nlohmann::json& j) { j["verdict"]["divergences"][0]["kind"] = "valeu"; },
       "'valeu' is not one of"},
      {"version-2", [](nlohmann::json& j) { j["version"] = 2; }, "at /version: 1 was expected"},
      {"bad-outcome", [](nlohmann::json& j) { j["paths"][0]["outcome"] = "exploded"; },
       "at /paths/0/outcome"},
      {"ok-without-outputs",
       [](nlohmann::json& j) {
         for (auto& p : j["paths"])
           if (p["outcome"] == "ok") p.erase("outputs");
       },
       "'outputs' is a required property"},
      {"extra-field", [](nlohmann::json& j) { j["verdcit"] = j["verdict"]; },
       "'verdcit' was unexpected"},
      {"bad-dtype", [](nlohmann::json& j) { j["program"]["inputs"][0]["dtype"] = "float128"; },
       "'float128' is not one of"},
      {"diverge-without-divergences",
       [](nlohmann::json& j) { j["verdict"]["divergences"] = nlohmann::json::array(); },
       "at /verdict/divergences"},
  };
  for (const auto& c : cases) {
    nlohmann::json j = report;
    c.edit(j);
    auto r = e2e::ValidateJson({write(c.name + ".json", j)}, "report.v1");
    EXPECT_EQ(r.exit_code, 1) << c.name << ": " << r.output;
    EXPECT_NE(r.output.find(c.why), std::string::npos) << c.name << ": " << r.output;
  }

  nlohmann::json entry = Load(std::string(MMDIFF_SOURCE_DIR) +
                              "/corpus/regression/inductor-mm-k1-float16-float32.json");
  entry["expected"][0]["verdict"] = "maybe";
  auto e = e2e::ValidateJson({write("entry.json", entry)});
  EXPECT_EQ(e.exit_code, 1) << e.output;
  EXPECT_NE(e.output.find("'maybe' is not one of ['agree', 'diverge']"), std::string::npos)
      << e.output;
  entry["expected"][0]["verdict"] = "diverge";
  entry["expected"][0]["torch"] = "~2.15";
  auto range = e2e::ValidateJson({write("entry-range.json", entry)});
  EXPECT_EQ(range.exit_code, 1) << range.output;
  EXPECT_NE(range.output.find("at /expected/0/torch"), std::string::npos) << range.output;

  nlohmann::json summary = {{"format", "mmdiff.fuzz-summary"}, {"version", 1}, {"seed", 1}};
  auto s = e2e::ValidateJson({write("summary.json", summary)});
  EXPECT_EQ(s.exit_code, 1) << s.output;
  EXPECT_NE(s.output.find("'cases' is a required property"), std::string::npos) << s.output;

  std::ofstream(dir + "/truncated.json") << report.dump().substr(0, 100);
  auto t = e2e::ValidateJson({dir + "/truncated.json"});
  EXPECT_EQ(t.exit_code, 1) << t.output;
  EXPECT_NE(t.output.find("cannot read JSON"), std::string::npos) << t.output;
}

}  // namespace
}  // namespace mmdiff
