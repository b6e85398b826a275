// The divergence machinery end to end, with a planted fault: a test-only path that silently
// promotes mismatched dtypes (like Inductor in pytorch#177630). The fuzzer must find it from an
// empty corpus, blame it, write a complete report, and the report must replay.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "src/ir/program_json.h"
#include "src/support/files.h"
#include "tests/e2e_util.h"

namespace mmdiff {
namespace {

namespace fs = std::filesystem;

// CPU programs only: meta programs bring eager's own contract gaps (meta accepts what cpu rejects),
// which are findings in their own right but not what these tests are about.
std::string CpuOnlyPolicy(const std::string& dir) {
  std::string path = dir + "/cpu-policy.json";
  // bfloat16 and float32 attention masks are off: eager has real value bugs there (bfloat16 addmv
  // and baddbmm ignore beta when alpha is 0; sdpa with a float64 query misreads a float32 mask),
  // kept as regression entries; this control is about false alarms of the oracle, not eager's bugs.
  std::ofstream(path)
      << R"({"p_meta": 0, "p_cuda": 0, "p_device_mismatch": 0, "w_bfloat16": 0, "p_mask_float32": 0})";
  return path;
}

TEST(PlantedDivergenceE2E, FuzzFindsBlamesAndReportsThePlantedPath) {
  std::string out = e2e::ScratchDir("planted");
  auto r = e2e::RunMmdiff(
      "fuzz --time 120 --cases 60 --seed 1 --test-paths --paths reference,eager,planted_promote "
      "--policy " +
      CpuOnlyPolicy(out) + " --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto summary = ReadFile(out + "/summary.json");
  ASSERT_TRUE(summary.ok()) << r.output;
  auto s = nlohmann::json::parse(summary.value());
  ASSERT_GE(s["buckets"].size(), 1u) << r.output;

  // Find the planted bucket and check its report from top to bottom.
  std::string finding;
  for (const auto& b : s["buckets"])
    if (b["signature"].get<std::string>().find("error_behaviour|path=planted_promote|accepts") !=
        std::string::npos)
      finding = out + "/" + b["finding"].get<std::string>();
  ASSERT_FALSE(finding.empty()) << s.dump(2);
  auto report_text = ReadFile(finding + "/report.json");
  ASSERT_TRUE(report_text.ok());
  auto rep = nlohmann::json::parse(report_text.value());
  EXPECT_EQ(rep["format"], "mmdiff.report");
  EXPECT_EQ(rep["verdict"]["result"], "diverge");
  EXPECT_EQ(rep["contract"]["rejects"], true);
  EXPECT_EQ(rep["contract"]["rule"], "same_dtype");
  EXPECT_FALSE(rep["versions"]["torch"].get<std::string>().empty());
  EXPECT_FALSE(rep["knobs"].empty());
  ASSERT_EQ(rep["paths"].size(), 3u);
  EXPECT_EQ(rep["paths"][1]["outcome"], "error");
  EXPECT_EQ(rep["paths"][1]["error_class"], "RuntimeError");
  EXPECT_EQ(rep["paths"][2]["outcome"], "ok");
  EXPECT_TRUE(ProgramFromJson(rep["program"]).ok());
  EXPECT_TRUE(fs::exists(finding + "/program.json"));
  ASSERT_TRUE(fs::exists(finding + "/repro.py"));

  // The report replays: same program, same inputs, same verdict (exit code 1: diverges).
  auto replay = e2e::RunMmdiff("run " + finding +
                               "/report.json --test-paths --paths reference,eager,planted_promote");
  EXPECT_EQ(replay.exit_code, 1) << replay.output;
  EXPECT_NE(replay.output.find("[blamed: planted_promote, filable]"), std::string::npos)
      << replay.output;

  // repro.py runs with plain python and a stock torch (the planted path is not in torch, so it
  // compares eager with inductor and shows both outcomes).
  auto py = e2e::RunShell(e2e::VenvPython() + " " + finding + "/repro.py");
  EXPECT_NE(py.output.find("eager:"), std::string::npos) << py.output;
  EXPECT_NE(py.output.find("compiled:"), std::string::npos) << py.output;
  EXPECT_NE(py.output.find("RuntimeError"), std::string::npos) << py.output;
}

TEST(PlantedDivergenceE2E, ReferenceAndEagerAloneRaiseNoNumericFalseAlarm) {
  // Control: 3000 cases through the reference and eager alone. Eager's own contract gaps may show
  // up as "contract" divergences (eager accepting what it rejects elsewhere is a finding), but a
  // value divergence here would be a false alarm of the numeric oracle, and neither path may be
  // blamed for an error-behaviour divergence: that kind needs a third path, like the planted one.
  // Each bucket's signature is what the test reads: no reduction, no standalone check.
  std::string out = e2e::ScratchDir("control");
  auto r = e2e::RunMmdiff(
      "fuzz --time 120 --cases 3000 --seed 1 --no-reduce --no-standalone-check --paths "
      "reference,eager --policy " +
      CpuOnlyPolicy(out) + " --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto s = nlohmann::json::parse(ReadFile(out + "/summary.json").value());
  EXPECT_EQ(s["cases"], 3000);
  for (const auto& b : s["buckets"]) {
    std::string sig = b["signature"];
    EXPECT_EQ(sig.find("value:"), std::string::npos) << sig;
    EXPECT_EQ(sig.find("error_behaviour:"), std::string::npos) << sig;
  }
}

// Every case breaks the planted path's rule in one mm: one bucket, whose first case is still being
// reduced and checked while the other job counts later ones. The bucket keeps when it was first
// seen (it read 0 s where a later case was counted first).
TEST(PlantedDivergenceE2E, ABucketKeepsItsFirstTimeWhileItsFirstCaseIsReduced) {
  std::string out = e2e::ScratchDir("first-time");
  std::string policy = out + "/mm-policy.json";
  std::ofstream(policy) << R"({"p_meta": 0, "p_cuda": 0, "p_device_mismatch": 0, "w_bfloat16": 0,
      "p_mixed_dtype": 1, "w_addbmm": 0, "w_addmm": 0, "w_addmv": 0, "w_attention": 0,
      "w_baddbmm": 0, "w_bmm": 0, "w_dot": 0, "w_linear": 0, "w_matmul": 0, "w_mv": 0,
      "w_sdpa": 0, "w_mm": 1})";
  auto r = e2e::RunMmdiff(
      "fuzz --time 120 --cases 40 --jobs 2 --seed 1 --test-paths --paths "
      "reference,eager,planted_promote --policy " +
      policy + " --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  auto s = nlohmann::json::parse(ReadFile(out + "/summary.json").value());
  ASSERT_GE(s["buckets"].size(), 1u) << r.output;
  for (const auto& b : s["buckets"]) {
    EXPECT_GT(b["count"].get<int>(), 1) << b.dump();  // the race this test is about
    EXPECT_GT(b["first_found_s"].get<double>(), 0.0) << b.dump();
    EXPECT_LE(b["first_found_s"].get<double>(), s["elapsed_s"].get<double>()) << b.dump();
  }
}

}  // namespace
}  // namespace mmdiff
