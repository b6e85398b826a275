// Steering end to end: a coverage-steered campaign's cases follow its pass coverage, and the same
// seed and budget give the same cases whatever the number of jobs and across a stop and --resume;
// the yield scheduler records each arm's spend and finds and goes on from them after --resume.
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include "src/gen/focus.h"
#include "tests/e2e_util.h"
#include "tests/schema_check.h"

namespace mmdiff {
namespace {

// 6 cases in epochs of 2 (so that the odds of the third epoch follow coverage), through inductor
// (the path that reports rewrites), few inputs each, nothing run again for a new bucket.
std::string Campaign(const std::string& out, const std::string& extra,
                     const std::string& steer = "coverage") {
  return "fuzz --seed 880001 --steer " + steer +
         " --steer-epoch 2 --inputs-per-program 2 "
         "--paths reference,eager,inductor --no-standalone-check --no-reduce --no-ablation --out " +
         out + " " + extra;
}

std::set<std::string> BucketHashes(const nlohmann::json& summary) {
  std::set<std::string> out;
  for (const auto& b : summary["buckets"]) out.insert(b["hash"].get<std::string>());
  return out;
}

TEST(SteeringE2E, TheSameSeedAndBudgetGiveTheSameCasesWhateverTheJobsAndAcrossResume) {
  const std::string dir = e2e::ScratchDir("steering");
  auto two = e2e::RunMmdiff(Campaign(dir + "/two-jobs", "--cases 6 --jobs 2"));
  ASSERT_EQ(two.exit_code, 0) << two.output;
  const nlohmann::json a = e2e::ReadJson(dir + "/two-jobs/summary.json");
  ASSERT_TRUE(a.is_object()) << two.output;
  EXPECT_EQ(a["cases"], 6);
  ASSERT_TRUE(a["steering"].is_object()) << a.dump(2);
  EXPECT_EQ(a["resume"]["steer"], true);
  EXPECT_EQ(a["resume"]["scheduler"], "coverage");
  // Each case is counted once, under its epoch and focus; some reached a rewrite.
  int64_t programs = 0, reached = 0;
  std::set<std::string> foci;
  for (const auto& e : a["steering"]["epochs"])
    for (const auto& [focus, s] : e["foci"].items()) {
      foci.insert(focus);
      programs += s["programs"].get<int64_t>();
      for (const auto& [r, n] : s["rewrites"].items()) reached += n.get<int64_t>();
    }
  EXPECT_EQ(programs, 6);
  EXPECT_GT(reached, 0) << a["steering"].dump(2);
  // The install's attention fusions and lowerings were listed, and each target focus drawn aims
  // at one of them.
  ASSERT_TRUE(a["steering"].contains("reachable_targets")) << two.output;
  const auto installed = a["steering"]["reachable_targets"].get<std::set<std::string>>();
  EXPECT_TRUE(installed.count("_sfdp_pattern_1_inference")) << a["steering"].dump(2);
  EXPECT_TRUE(installed.count("lowering:template.CppGemmTemplate")) << a["steering"].dump(2);
  for (const std::string& focus : foci) {
    if (focus.rfind("target_sfdp_pattern_", 0) == 0) {
      EXPECT_TRUE(installed.count(focus.substr(6))) << focus;
    }
    if (focus.rfind("target_lowering:", 0) == 0) {
      EXPECT_TRUE(installed.count(focus.substr(7))) << focus;
    }
  }
  EXPECT_GE(foci.size(), 3u) << a["steering"].dump(2);
  auto schema = e2e::ValidateJson({dir + "/two-jobs/summary.json"});
  EXPECT_TRUE(schema.all_valid()) << schema.output;

  // One job, stopped after 3 cases (in the middle of an epoch), then resumed to the end.
  auto first = e2e::RunMmdiff(Campaign(dir + "/resumed", "--cases 3 --jobs 1"));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const nlohmann::json part = e2e::ReadJson(dir + "/resumed/summary.json");
  ASSERT_TRUE(part.is_object()) << first.output;
  EXPECT_EQ(part["cases"], 3);
  auto rest = e2e::RunMmdiff("fuzz --resume " + dir + "/resumed --cases 6");
  ASSERT_EQ(rest.exit_code, 0) << rest.output;
  const nlohmann::json b = e2e::ReadJson(dir + "/resumed/summary.json");
  ASSERT_TRUE(b.is_object()) << rest.output;
  EXPECT_EQ(b["cases"], 6);
  EXPECT_EQ(b["steering"], a["steering"]);
  EXPECT_EQ(BucketHashes(b), BucketHashes(a));

  // A focus regenerates its case: the bucket's first case, as the summary names it.
  for (const auto& bucket : a["buckets"]) {
    if (!bucket.contains("first_focus")) continue;
    auto gen = e2e::RunMmdiff("gen --seed " + bucket["first_seed"].dump() + " --focus " +
                              bucket["first_focus"].get<std::string>());
    EXPECT_EQ(gen.exit_code, 0) << gen.output;
    break;
  }
}

// The yield scheduler: each focus's record holds the core-seconds its programs took and the
// buckets they found, the arms' table sums them, and a resumed campaign keeps the records of the
// cases before the stop as they were and adds the rest.
TEST(SteeringE2E, TheYieldSchedulerRecordsEachArmsSpendAndGoesOnFromThemAfterResume) {
  const std::string dir = e2e::ScratchDir("steering-yield");
  auto first = e2e::RunMmdiff(Campaign(dir + "/yield", "--cases 3 --jobs 1", "yield"));
  ASSERT_EQ(first.exit_code, 0) << first.output;
  const nlohmann::json part = e2e::ReadJson(dir + "/yield/summary.json");
  ASSERT_TRUE(part.is_object()) << first.output;
  EXPECT_EQ(part["resume"]["scheduler"], "yield");
  EXPECT_EQ(part["steering"]["scheduler"], "yield");
  auto rest = e2e::RunMmdiff("fuzz --resume " + dir + "/yield --cases 5");
  ASSERT_EQ(rest.exit_code, 0) << rest.output;
  const nlohmann::json s = e2e::ReadJson(dir + "/yield/summary.json");
  ASSERT_TRUE(s.is_object()) << rest.output;
  EXPECT_EQ(s["cases"], 5);
  // Epoch 0 (cases 0 and 1) was complete before the stop: read back, not run again.
  ASSERT_FALSE(part["steering"]["epochs"].empty());
  EXPECT_EQ(s["steering"]["epochs"][0], part["steering"]["epochs"][0]);
  int64_t programs = 0, buckets = 0;
  double spend = 0;
  for (const auto& e : s["steering"]["epochs"])
    for (const auto& [focus, f] : e["foci"].items()) {
      programs += f["programs"].get<int64_t>();
      EXPECT_GT(f["spend_s"].get<double>(), 0) << focus;
      spend += f["spend_s"].get<double>();
      for (const auto& [hash, n] : f["buckets"].items()) buckets += n.get<int64_t>();
    }
  EXPECT_EQ(programs, 5);
  int64_t found = 0;  // the finds are the buckets filed as bugs
  for (const auto& b : s["buckets"])
    if (b["filing"] == "filable") found += b["count"].get<int64_t>();
  EXPECT_EQ(buckets, found) << "each filable bucket's programs, under their focus";
  const nlohmann::json& arms = s["steering"]["arms"];
  ASSERT_EQ(arms.size(), 18u) << "16 broad foci and the 2 target families: " << arms.dump(1);
  double table_spend = 0, shares = 0;
  for (const auto& a : arms)
    table_spend += a["spend_s"].get<double>(), shares += a["spend_share"].get<double>();
  EXPECT_NEAR(table_spend, spend, 1e-6 * spend);
  EXPECT_NEAR(shares, 1, 1e-9);
  auto schema = e2e::ValidateJson({dir + "/yield/summary.json"});
  EXPECT_TRUE(schema.all_valid()) << schema.output;
}

// --steer auto steers a default campaign only: not one with a policy file (the foci would override
// it), not a shard (shards then merge into the one-machine campaign), not one without inductor.
// summary.json's schema takes every focus the generator has, broad and target, as an epoch's focus
// and as a bucket's first focus (a steered campaign draws any of them; a short one few).
TEST(SteeringE2E, EveryFocusIsOneTheSummarySchemaTakes) {
  const std::string dir = e2e::ScratchDir("steering-foci");
  auto r = e2e::RunMmdiff(
      "fuzz --time 0 --jobs 1 --seed 4 --paths reference,eager --steer on "
      "--out " +
      dir + "/campaign");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  nlohmann::json s = e2e::ReadJson(dir + "/campaign/summary.json");
  ASSERT_TRUE(s.is_object() && s["steering"].is_object()) << r.output;
  nlohmann::json foci = nlohmann::json::object();
  for (const Focus& f : Foci())
    foci[f.name] = {{"programs", 1}, {"rewrites", nlohmann::json::object()}};
  ASSERT_GT(foci.size(), 20u);
  s["steering"]["epochs"] = {{{"epoch", 0}, {"foci", foci}}};
  std::ofstream(dir + "/summary.json") << s.dump(1);
  auto schema = e2e::ValidateJson({dir + "/summary.json"});
  EXPECT_TRUE(schema.all_valid()) << schema.output.substr(0, 3000);
}

TEST(SteeringE2E, AutoSteersOnlyADefaultCampaign) {
  const std::string dir = e2e::ScratchDir("steering-auto");
  std::ofstream(dir + "/policy.json") << R"({"p_train": 0})";
  auto steered = [&](const std::string& name, const std::string& args) {
    // No case runs (--time 0): the summary still says whether the campaign steers.
    auto r = e2e::RunMmdiff("fuzz --time 0 --jobs 1 --seed 4 --no-reduce --no-standalone-check " +
                            args + " --out " + dir + "/" + name);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    nlohmann::json s = e2e::ReadJson(dir + "/" + name + "/summary.json");
    return s.is_object() && s["resume"]["steer"] == true && s["steering"].is_object();
  };
  auto scheduler = [&](const std::string& name) {
    return e2e::ReadJson(dir + "/" + name + "/summary.json")["resume"]["scheduler"];
  };
  const std::string inductor = "--paths reference,eager,inductor";
  EXPECT_TRUE(steered("default", inductor));
  EXPECT_EQ(scheduler("default"), "yield");
  EXPECT_FALSE(steered("policy", inductor + " --policy " + dir + "/policy.json"));
  EXPECT_FALSE(steered("shard", inductor + " --shard 0/2"));
  EXPECT_FALSE(steered("no-inductor", "--paths reference,eager"));
  EXPECT_TRUE(steered("asked", "--paths reference,eager --steer on"));
  EXPECT_FALSE(steered("off", inductor + " --steer off"));
  EXPECT_EQ(scheduler("off"), "none");
  EXPECT_TRUE(steered("coverage", inductor + " --steer coverage"));
  EXPECT_EQ(scheduler("coverage"), "coverage");
}

}  // namespace
}  // namespace mmdiff
