// `mmdiff releases` on the real binaries and the torch venvs set up here: the regression corpus
// across releases gives each entry's expected verdict per release, a fresh report is present in
// this build's release, and bad arguments are clear errors.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "mmdiff/build_info.h"
#include "src/releases/release_venvs.h"
#include "src/report/regression_entry.h"
#include "src/support/files.h"
#include "tests/e2e_util.h"
#include "tests/schema_check.h"

namespace mmdiff {
namespace {

std::string Py() { return PythonMajorMinor(build_info::kPythonVersion); }

bool VenvSetUp(const std::string& torch) {
  return FindReleaseVenv(VenvCacheDir(), torch, Py()).ok();
}

// Whether the entry at `file` expects something else in `release` than in the installed one
// (another of its expectations applies, or one applies in only one of them): the entries whose
// history the releases runner must show. An entry with the same expectation in both is replayed on
// the installed release by ReplayE2E.TheRegressionCorpusReplaysClean.
bool ExpectsOtherwiseIn(const std::filesystem::path& file, const std::string& release) {
  auto text = ReadFile(file.string());
  auto e = text.ok() ? ParseRegressionEntry(text.value()) : Result<RegressionEntry>(text.status());
  EXPECT_TRUE(e.ok()) << file;
  return e.ok() && ExpectationIndexFor(e.value().expected, release) !=
                       ExpectationIndexFor(e.value().expected, build_info::kTorchVersion);
}

// In 2.11.0, the release whose expectations differ most from the installed one, every entry that
// expects something else there than on the installed release (on the installed one ReplayE2E
// replays every entry through `mmdiff replay`, and AFreshReport... the runner); and the seed bug's
// entries in 2.11.0 and 2.15.0 (and 2.12.0 where it is set up) for their history. It is the
// longest test of the run: 312 s with two runners in a cold fresh-clone `.ci/run`, 244 s in a
// warm `ctest -j2`, both on 2026-12-07 on an AMX Xeon; 23 of the 52 entries expect otherwise
// there, the seed bug's two among them.
TEST(ReleasesE2E, TheRegressionCorpusGivesEachEntrysExpectedVerdictInEachRelease) {
  if (!VenvSetUp("2.11.0") || !VenvSetUp("2.15.0"))
    GTEST_SKIP() << "needs the torch 2.11.0 and 2.15.0 venvs in " << VenvCacheDir()
                 << " (scripts/test sets up 2.11.0 with `MMDIFF_TORCH=2.11.0 scripts/setup "
                    "--venv-only`)";
  const bool with_212 = VenvSetUp("2.12.0");
  std::string dir = e2e::ScratchDir("releases-corpus");
  const std::string corpus = std::string(MMDIFF_SOURCE_DIR) + "/corpus/regression";
  std::string others, seed_bug_entries;
  int entries = 0, other_entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(corpus)) {
    const std::string name = e.path().filename().string();
    if (e.path().extension() != ".json") continue;
    ++entries;
    if (name.starts_with("pytorch-177630")) {
      seed_bug_entries += " " + e.path().string();
    } else if (ExpectsOtherwiseIn(e.path(), "2.11.0")) {
      others += " " + e.path().string();
      ++other_entries;
    }
  }
  ASSERT_GT(entries, 2);
  ASSERT_FALSE(seed_bug_entries.empty());
  // The fixed upstream bugs, the AMX entries and the fusions new since 2.11.0 at the least.
  ASSERT_GE(other_entries, 8) << "too few entries expect otherwise in 2.11.0 for the check to hold";

  // The seed bug across releases: present in 2.11.0, fixed after.
  auto history = e2e::RunMmdiff("releases" + seed_bug_entries + " --torch 2.11.0,2.15.0" +
                                (with_212 ? ",2.12.0" : "") + " --json " + dir + "/history.json");
  EXPECT_EQ(history.exit_code, 0) << history.output;
  nlohmann::json h = e2e::ReadJson(dir + "/history.json");
  ASSERT_TRUE(h.is_object()) << history.output;
  ASSERT_EQ(h["releases"].size(), with_212 ? 3u : 2u);
  EXPECT_EQ(h["releases"][0]["release"], "2.15.0");  // newest first
  ASSERT_EQ(h["findings"].size(), 2u);
  for (const auto& f : h["findings"]) {
    EXPECT_EQ(f["history"]["summary"], with_212 ? "present in 2.11.0, fixed in 2.12.0"
                                                : "present in 2.11.0, absent in 2.15.0")
        << f["file"];
    EXPECT_EQ(f["history"]["label"], "fixed") << f["file"];
    for (const auto& c : f["cells"])
      EXPECT_TRUE(c["expected"]["matches"].get<bool>()) << f["file"] << " in " << c["release"];
  }
  EXPECT_NE(history.output.find("present in 2.11.0"), std::string::npos) << history.output;

  // The other entries that expect otherwise in 2.11.0.
  auto r = e2e::RunMmdiff("releases" + others + " --torch 2.11.0 --json " + dir + "/releases.json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json t = e2e::ReadJson(dir + "/releases.json");
  ASSERT_TRUE(t.is_object()) << r.output;
  auto schema = e2e::ValidateJson({dir + "/history.json", dir + "/releases.json"});
  EXPECT_EQ(schema.exit_code, 0) << schema.output;
  ASSERT_EQ(t["findings"].size(), static_cast<size_t>(other_entries));
  // A cell is checked against its entry's expectation, or its entry needs a CPU feature this
  // machine lacks (the AMX entries); at most a few entries measured in one release only have no
  // expectation for 2.11.0.
  int checked = 0, cpu_gated = 0;
  for (const auto& f : t["findings"]) {
    const std::string file = f["file"];
    for (const auto& c : f["cells"]) {
      EXPECT_NE(c["state"], "cannot-run") << file << " in " << c["release"] << ": " << c["detail"];
      if (!c.contains("expected")) continue;
      if (!c["expected"]["applies"].get<bool>()) {
        ++cpu_gated;
        EXPECT_NE(f["history"]["summary"].get<std::string>().find("needs a CPU with"),
                  std::string::npos)
            << file;
        continue;
      }
      EXPECT_TRUE(c["expected"]["matches"].get<bool>())
          << file << " in " << c["release"] << ": expected " << c["expected"]["verdict"]
          << ", observed " << c["observed"] << ": " << c["expected"]["difference"];
      ++checked;
    }
  }
  EXPECT_GE(checked + cpu_gated, static_cast<int>(t["findings"].size()) - 4) << r.output;
  EXPECT_GE(checked, static_cast<int>(t["findings"].size()) / 2) << r.output;
}

TEST(ReleasesE2E, AFreshReportIsPresentInThisBuildsReleaseUnderItsBucket) {
  if (!VenvSetUp("2.15.0")) GTEST_SKIP() << "needs the torch 2.15.0 venv in " << VenvCacheDir();
  std::string dir = e2e::ScratchDir("releases-report");
  // K = 1 float16 @ float32 mm: eager raises, inductor promotes (on every release tried).
  auto run = e2e::RunMmdiff("run " + std::string(MMDIFF_SOURCE_DIR) +
                            "/corpus/regression/inductor-mm-k1-float16-float32.json --paths "
                            "reference,eager,inductor --out " +
                            dir + "/finding");
  ASSERT_EQ(run.exit_code, 1) << run.output;
  auto r = e2e::RunMmdiff("releases " + dir + "/finding --torch 2.15.0 --json " + dir + "/t.json");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json t = e2e::ReadJson(dir + "/t.json");
  nlohmann::json report = e2e::ReadJson(dir + "/finding/report.json");
  ASSERT_TRUE(t.is_object() && report.is_object()) << r.output;
  ASSERT_EQ(t["findings"].size(), 1u);
  const auto& f = t["findings"][0];
  EXPECT_EQ(f["kind"], "report");
  EXPECT_EQ(f["bucket"], report["bucket"]["hash"]);
  EXPECT_EQ(f["cells"][0]["state"], "present") << f.dump(2);
  EXPECT_NE(
      f["cells"][0]["buckets"].get<std::string>().find(report["bucket"]["hash"].get<std::string>()),
      std::string::npos);
  EXPECT_EQ(f["history"]["summary"], "present in 2.15.0");
  EXPECT_NE(r.output.find("finding  "), std::string::npos) << r.output;
  // Its row is recorded next to the report, where triage shows it.
  auto schema = e2e::ValidateJson({dir + "/t.json", dir + "/finding/releases.json"});
  EXPECT_EQ(schema.exit_code, 0) << schema.output;
  auto triage = e2e::RunMmdiff("triage " + dir + "/finding --out " + dir + "/triage");
  EXPECT_EQ(triage.exit_code, 0) << triage.output;
  auto md = ReadFile(dir + "/triage/triage.md");
  ASSERT_TRUE(md.ok()) << triage.output;
  EXPECT_NE(md.value().find("releases: present in 2.15.0"), std::string::npos) << md.value();
}

TEST(ReleasesE2E, BadArgumentsAndMissingReleasesAreClearErrors) {
  std::string dir = e2e::ScratchDir("releases-bad");
  std::string entry =
      std::string(MMDIFF_SOURCE_DIR) + "/corpus/regression/inductor-mm-k1-float16-float32.json";
  auto missing = e2e::RunMmdiff("releases " + dir + "/nothing");
  EXPECT_EQ(missing.exit_code, 2) << missing.output;
  EXPECT_NE(missing.output.find("no such file or folder"), std::string::npos) << missing.output;
  auto empty = e2e::RunMmdiff("releases " + dir);
  EXPECT_EQ(empty.exit_code, 2) << empty.output;
  EXPECT_NE(empty.output.find("holds no report.json"), std::string::npos) << empty.output;
  std::ofstream(dir + "/summary.json") << R"({"format": "mmdiff.fuzz-summary", "version": 2})";
  auto other = e2e::RunMmdiff("releases " + dir + "/summary.json");
  EXPECT_EQ(other.exit_code, 2) << other.output;
  EXPECT_NE(other.output.find("neither a regression entry nor a report"), std::string::npos)
      << other.output;
  auto injected = e2e::RunMmdiff("releases " + entry + " --torch '2.11.0;touch " + dir + "/x'");
  EXPECT_EQ(injected.exit_code, 2) << injected.output;
  EXPECT_FALSE(std::ifstream(dir + "/x").good());
  auto absent = e2e::RunMmdiff("releases " + entry + " --torch 1.99.0");
  EXPECT_EQ(absent.exit_code, 3) << absent.output;
  EXPECT_NE(absent.output.find("MMDIFF_TORCH=1.99.0 scripts/setup --venv-only"), std::string::npos)
      << absent.output;
  auto nowhere = e2e::RunShell("MMDIFF_CACHE=" + dir + "/empty-cache " +
                               std::string(MMDIFF_BUILD_DIR) + "/mmdiff releases " + entry);
  EXPECT_EQ(nowhere.exit_code, 3) << nowhere.output;
  EXPECT_NE(nowhere.output.find("no torch venv is set up"), std::string::npos) << nowhere.output;
}

}  // namespace
}  // namespace mmdiff
