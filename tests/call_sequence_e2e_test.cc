// Call sequences and the standalone check, end to end on the real worker, torch.compile and Python:
// a path that diverges only on a second call with new sizes (the planted torch.compile backend
// planted_recompile) is found, recorded with its calls before, and shown again by `mmdiff run`,
// repro.py, reduction, promote and replay; one whose repro.py cannot show it (planted_worker_only)
// is listed as not reproduced standalone, never as new.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/e2e_util.h"
#include "tests/schema_check.h"

namespace mmdiff {
namespace {

// Programs of one computing op, float32 or float64 on cpu, without views: every case compiles,
// and its second input has new sizes.
std::string OneOpPolicy(const std::string& dir) {
  std::string file = dir + "/policy.json";
  std::ofstream(file)
      << R"({"max_ops": 1, "p_meta": 0, "p_cuda": 0, "p_move": 0, "p_device_mismatch": 0,
    "p_shape_violation": 0, "p_mixed_dtype": 0, "p_cast": 0, "p_zero_dim": 0, "p_large_k": 0,
    "p_special": 0, "w_int8": 0, "w_uint8": 0, "w_int32": 0, "w_int64": 0, "w_bool": 0,
    "w_bfloat16": 0, "w_float16": 0, "w_sdpa": 0, "w_attention": 0, "p_train": 0, "p_view": 0,
    "p_glue": 0, "p_autocast": 0})";
  return file;
}

std::string Campaign(const std::string& dir, const std::string& path, int cases) {
  return "fuzz --cases " + std::to_string(cases) +
         " --jobs 1 --seed 11 --no-known --test-paths --inputs-per-program 4 --paths "
         "reference,eager," +
         path + " --policy " + OneOpPolicy(dir) + " --out " + dir + "/out";
}

// The first finding folder a campaign listed.
std::string FirstFinding(const std::string& out) {
  nlohmann::json s = e2e::ReadJson(out + "/summary.json");
  if (!s.is_object() || s["buckets"].empty()) return "";
  return out + "/" + s["buckets"][0]["finding"].get<std::string>();
}

TEST(CallSequenceE2E, ADivergenceOnASecondCallIsRecordedReplayedReproducedAndKeptByReduction) {
  std::string dir = e2e::ScratchDir("call-sequence");
  auto r = e2e::RunMmdiff(Campaign(dir, "planted_recompile", 1));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::string folder = FirstFinding(dir + "/out");
  ASSERT_FALSE(folder.empty()) << r.output;
  nlohmann::json report = e2e::ReadJson(folder + "/report.json");
  ASSERT_TRUE(report.is_object());
  // The case is the second input (new sizes); the first is its call before.
  ASSERT_EQ(report["calls_before"].size(), 1u) << report.dump(2);
  EXPECT_NE(report["calls_before"][0]["shapes"], nlohmann::json(nullptr));
  EXPECT_EQ(report["standalone"]["status"], "reproduced") << report["standalone"].dump();
  EXPECT_EQ(report["standalone"]["repro_exit"], 1);
  // repro.py showed it at its first attempt: that settles it, no rerun in a fresh worker is paid.
  EXPECT_EQ(report["standalone"]["worker_runs"], 0) << report["standalone"].dump();
  EXPECT_EQ(e2e::ReadJson(dir + "/out/summary.json")["new_root_causes"], 1);
  // Its files, calls before and standalone check included, are as the schemas say.
  auto valid = e2e::ValidateJson(
      {dir + "/out/summary.json", folder + "/report.json", folder + "/reduced/report.json"});
  EXPECT_TRUE(valid.all_valid()) << valid.output;

  // `mmdiff run` of the report makes the call before: the divergence shows (exit 1). Without it,
  // the case alone compiles for its own sizes and agrees (exit 0): the call is what matters.
  const std::string paths = " --test-paths --paths reference,eager,planted_recompile";
  auto again = e2e::RunMmdiff("run " + folder + "/report.json" + paths);
  EXPECT_EQ(again.exit_code, 1) << again.output;
  nlohmann::json alone = report;
  alone["calls_before"] = nlohmann::json::array();
  std::ofstream(dir + "/alone.json") << alone.dump();
  auto without = e2e::RunMmdiff("run " + dir + "/alone.json" + paths);
  EXPECT_EQ(without.exit_code, 0) << without.output;

  // repro.py, with plain python: the call before, then the finding (exit 1).
  auto repro = e2e::RunShell(e2e::VenvPython() + " " + folder + "/repro.py 2>&1");
  EXPECT_EQ(repro.exit_code, 1) << repro.output;
  EXPECT_NE(repro.output.find("call 1 before:"), std::string::npos) << repro.output;

  // The campaign's reduction kept the call (the finding needs it), and its repro.py shows it.
  nlohmann::json reduced = e2e::ReadJson(folder + "/reduced/report.json");
  ASSERT_TRUE(reduced.is_object()) << "no reduced case";
  EXPECT_EQ(reduced["calls_before"].size(), 1u);
  auto reduced_repro = e2e::RunShell(e2e::VenvPython() + " " + folder + "/reduced/repro.py 2>&1");
  EXPECT_EQ(reduced_repro.exit_code, 1) << reduced_repro.output;
  // So does `mmdiff reduce` of the report.
  auto red = e2e::RunMmdiff("reduce " + folder + "/report.json --test-paths --budget 8 --out " +
                            dir + "/reduced");
  ASSERT_EQ(red.exit_code, 0) << red.output;
  EXPECT_EQ(e2e::ReadJson(dir + "/reduced/report.json")["calls_before"].size(), 1u);

  // A promoted entry records the calls, and replay makes them: a match.
  auto promoted =
      e2e::RunMmdiff("promote " + folder + "/report.json --out " + dir + "/promoted.json");
  ASSERT_EQ(promoted.exit_code, 0) << promoted.output;
  EXPECT_EQ(e2e::ReadJson(dir + "/promoted.json")["calls_before"].size(), 1u);
  auto replay = e2e::RunMmdiff("replay --test-paths " + dir + "/promoted.json");
  EXPECT_EQ(replay.exit_code, 0) << replay.output;
  EXPECT_EQ(e2e::ReplayStatusOf(replay.output, "promoted"), "match") << replay.output;
}

TEST(CallSequenceE2E, AFindingItsReproCannotShowIsListedAsNotReproducedNeverAsNew) {
  std::string dir = e2e::ScratchDir("not-reproduced");
  auto r = e2e::RunMmdiff(Campaign(dir, "planted_worker_only", 1));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json s = e2e::ReadJson(dir + "/out/summary.json");
  ASSERT_TRUE(s.is_object()) << r.output;
  EXPECT_EQ(s["new_root_causes"], 0) << r.output;
  EXPECT_EQ(s["not_reproduced_root_causes"], 1) << r.output;
  std::string folder = FirstFinding(dir + "/out");
  nlohmann::json report = e2e::ReadJson(folder + "/report.json");
  // repro.py, in a plain Python, does not show it (exit 0 after its attempts); the case's reruns
  // in a fresh worker, made because of that, do.
  EXPECT_EQ(report["standalone"]["status"], "not_reproduced") << report["standalone"].dump();
  EXPECT_EQ(report["standalone"]["worker_runs"], 2) << report["standalone"].dump();
  EXPECT_EQ(report["standalone"]["worker_hits"], report["standalone"]["worker_runs"]);
  EXPECT_EQ(report["standalone"]["repro_exit"], 0);
  EXPECT_NE(r.output.find("new root causes: 0"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("not reproduced standalone: 1"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("repro.py in a fresh Python: exit 0"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace mmdiff
