// Tests for the yield scheduler: a simulated campaign (planted arms with known yields and costs, no
// torch) spends most on the best arm and never less than the floor on any, the same seed gives
// the same schedule, also across a resume from the summary; first finds are credited once.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <numeric>

#include "src/campaign/steering.h"
#include "src/gen/focus.h"
#include "src/support/hash.h"

namespace mmdiff {
namespace {

constexpr int64_t kEpoch = Steering::kYieldEpochCases;

// The planted world: a broad focus's program costs `cost` seconds and finds a bucket no program
// found before with odds `finds`; "addmm_family" is the best arm by far, "deployment" finds more
// per program than most but at 8 times the price, "devices" costs a tenth of the others and finds
// nothing (it lives on its floor); a target focus's program reaches its target (closing it) and
// finds nothing.
struct World {
  double Cost(size_t focus) const {
    const std::string& name = Foci()[focus].name;
    return name == "deployment" ? 8.0 : name == "devices" ? 0.1 : 1.0;
  }
  double Finds(size_t focus) const {
    const std::string& name = Foci()[focus].name;
    if (name == "addmm_family") return 0.5;
    if (name == "deployment") return 0.2;
    if (name == "devices") return 0.0;
    return Foci()[focus].target.empty() ? 0.03 : 0.0;
  }
};

// The target foci's arms, which close as their targets are reached (the planted world reaches
// each at its first program).
bool IsTargetArm(const std::string& arm) { return arm.ends_with("_targets"); }

struct SimRun {
  std::vector<size_t> foci;             // per case index
  std::map<std::string, double> spend;  // per arm
};

// Cases [from, to) of a campaign with one job (each case recorded before the next is drawn).
void Simulate(Steering& s, int64_t from, int64_t to, SimRun& run) {
  World world;
  for (int64_t i = from; i < to; ++i) {
    const size_t f = s.FocusOf(i);
    Rng rng(SplitMix64(0xC0FFEE) + static_cast<uint64_t>(i));
    std::vector<std::string> buckets;
    if (rng.UniformDouble() < world.Finds(f)) buckets.push_back(HashHex(std::to_string(i)));
    std::set<std::string> rewrites;
    if (!Foci()[f].target.empty()) rewrites.insert(Foci()[f].target);
    s.Record(i, f, rewrites, world.Cost(f), buckets);
    run.foci.push_back(f);
    run.spend[Steering::ArmNames()[Steering::ArmOf(f)]] += world.Cost(f);
  }
}

TEST(SteeringYield, ASimulatedCampaignSpendsMostOnTheBestArmAndNeverLessThanTheFloor) {
  constexpr int64_t kEpochs = 60;
  Steering s(2024, Shard{}, kEpoch, SteerMode::kYield);
  SimRun run;
  Simulate(s, 0, kEpochs * kEpoch, run);
  double total = 0;
  for (const auto& [arm, seconds] : run.spend) total += seconds;
  // The second half, once the bandit has learned: most of what the floors leave free (every
  // broad arm's kFloor; the target arms closed) on the best arm, and more than 5 times any other's.
  SimRun late;
  Steering again(2024, Shard{}, kEpoch, SteerMode::kYield);
  Simulate(again, 0, kEpochs * kEpoch / 2, late);
  const double late_best = run.spend["addmm_family"] - late.spend["addmm_family"];
  double late_total = 0;
  for (const auto& [arm, seconds] : run.spend) late_total += seconds - late.spend[arm];
  const auto broad_arms =
      static_cast<double>(std::count_if(Steering::ArmNames().begin(), Steering::ArmNames().end(),
                                        [](const std::string& arm) { return !IsTargetArm(arm); }));
  EXPECT_GT(late_best / late_total, 0.5 * (1 - broad_arms * YieldBandit::kFloor))
      << "of the second half's core-seconds";
  for (const auto& [arm, seconds] : run.spend)
    if (arm != "addmm_family") EXPECT_GT(late_best, 5 * (seconds - late.spend[arm])) << arm;
  // Every epoch's plan gives every open arm at least the floor, and each arm had its share of the
  // whole run within draws' noise, the cheap one too (its cases priced at its own cost).
  for (int64_t epoch = 0; epoch < kEpochs; ++epoch) {
    const std::vector<double> shares = s.SpendShares(epoch);
    ASSERT_EQ(shares.size(), Steering::ArmNames().size());
    EXPECT_NEAR(std::accumulate(shares.begin(), shares.end(), 0.0), 1, 1e-9);
    for (size_t a = 0; a < shares.size(); ++a)
      if (!IsTargetArm(Steering::ArmNames()[a]))
        EXPECT_GE(shares[a], YieldBandit::kFloor - 1e-12)
            << Steering::ArmNames()[a] << " " << epoch;
  }
  for (const std::string& arm : Steering::ArmNames())
    if (!IsTargetArm(arm)) EXPECT_GT(run.spend[arm] / total, 0.75 * YieldBandit::kFloor) << arm;
  // The dear arm finds most per program after the best (0.2) but little per second (0.025): few
  // of its programs run.
  std::map<std::string, int> programs;
  for (size_t f : run.foci) ++programs[Foci()[f].name];
  EXPECT_LT(programs["deployment"] * 10, programs["addmm_family"]);
  // The summary's table says the same.
  const nlohmann::json table = s.ToJson()["arms"];
  ASSERT_EQ(table.size(), Steering::ArmNames().size());
  for (const auto& row : table)
    EXPECT_NEAR(row["spend_s"].get<double>(), run.spend[row["arm"].get<std::string>()], 1e-6)
        << row.dump();
}

TEST(SteeringYield, TheSameSeedGivesTheSameScheduleAlsoAcrossAResume) {
  constexpr int64_t kCases = 20 * kEpoch, kStop = 9 * kEpoch + 5;  // stopped within an epoch
  Steering whole(7, Shard{}, kEpoch, SteerMode::kYield),
      same(7, Shard{}, kEpoch, SteerMode::kYield);
  SimRun a, b, resumed;
  Simulate(whole, 0, kCases, a);
  Simulate(same, 0, kCases, b);
  EXPECT_EQ(a.foci, b.foci);
  Steering first(7, Shard{}, kEpoch, SteerMode::kYield);
  Simulate(first, 0, kStop, resumed);
  Steering back(7, Shard{}, kEpoch, SteerMode::kYield);
  ASSERT_TRUE(back.FromJson(nlohmann::json::parse(first.ToJson().dump())).ok());
  Simulate(back, kStop, kCases, resumed);
  EXPECT_EQ(resumed.foci, a.foci);
  EXPECT_EQ(back.ToJson(), whole.ToJson());
  // Another seed, another schedule.
  Steering other(8, Shard{}, kEpoch, SteerMode::kYield);
  SimRun c;
  Simulate(other, 0, kCases, c);
  EXPECT_NE(c.foci, a.foci);
}

// A bucket or rewrite is credited once, to the epoch that found it first, shared by the foci of
// that epoch by their programs of it; later finds of it are worth nothing.
TEST(SteeringYield, AFirstFindIsCreditedOnceSharedByTheFociOfItsEpoch) {
  Steering s(1, Shard{}, 4, SteerMode::kYield);
  const size_t as_given = 0, attention = *FindFocus("attention"),
               mixed = *FindFocus("mixed_dtypes");
  const std::string bucket = HashHex("b");
  s.Record(0, attention, {"decompose.mm"}, 2.0, {bucket});
  s.Record(1, attention, {}, 2.0, {bucket});
  s.Record(2, mixed, {}, 1.0, {bucket});
  s.Record(4, as_given, {"decompose.mm"}, 3.0, {bucket});     // epoch 1: found before
  s.Record(5, mixed, {}, 1.0, {HashHex("c"), HashHex("c")});  // one program of it, not two
  const std::vector<ArmStats> arms = s.ArmRecords(3, false);
  auto arm = [&](size_t focus) { return arms[Steering::ArmOf(focus)]; };
  EXPECT_NEAR(arm(attention).buckets, 2.0 / 3, 1e-12);
  EXPECT_NEAR(arm(mixed).buckets, 1.0 / 3 + 1, 1e-12);
  EXPECT_EQ(arm(as_given).buckets, 0);
  EXPECT_EQ(arm(attention).rewrites, 1);
  EXPECT_EQ(arm(as_given).rewrites, 0);
  EXPECT_NEAR(arm(attention).reward, 2.0 / 3 + Steering::kRewriteReward, 1e-12);
  EXPECT_EQ(arm(attention).spend_s, 4);
  EXPECT_EQ(arm(attention).programs, 2);
  // Discounted for a plan two epochs later, epoch 0 weighs kDiscount against epoch 1's 1.
  const std::vector<ArmStats> plan = s.ArmRecords(3, true);
  EXPECT_NEAR(plan[Steering::ArmOf(attention)].spend_s, 4 * Steering::kDiscount, 1e-12);
  EXPECT_NEAR(plan[Steering::ArmOf(as_given)].spend_s, 3, 1e-12);
  // The epoch a plan may read: a plan of epoch 2 reads epoch 0 only.
  EXPECT_EQ(s.ArmRecords(2, false)[Steering::ArmOf(as_given)].programs, 0);
}

// The two families of target foci are arms of their own: an epoch gives slots to each while it
// has open targets, so that one family's many targets do not keep the other's waiting.
TEST(SteeringYield, EachTargetFamilyIsAnArmWithSlotsOfItsOwn) {
  const auto arm = [](const char* focus) {
    return Steering::ArmNames()[Steering::ArmOf(*FindFocus(focus))];
  };
  EXPECT_EQ(arm("target_sfdp_pattern_1_inference"), "rewrite_targets");
  EXPECT_EQ(arm("target_post_grad.addmm"), "rewrite_targets");
  EXPECT_EQ(arm("target_lowering:template_shared_product.CppBmmTemplate"), "deployment_targets");
  EXPECT_EQ(arm("integers"), "integers");
  Steering s(3, Shard{}, kEpoch, SteerMode::kYield);
  SimRun run;
  Simulate(s, 0, 4 * kEpoch, run);
  std::map<std::string, int> programs;
  for (size_t f : run.foci) ++programs[Steering::ArmNames()[Steering::ArmOf(f)]];
  EXPECT_GT(programs["rewrite_targets"], 0);
  EXPECT_GT(programs["deployment_targets"], 0);
  for (int64_t epoch = 0; epoch < 4; ++epoch) {
    const std::vector<double> shares = s.SpendShares(epoch);
    for (const char* family : {"rewrite_targets", "deployment_targets"}) {
      const auto a = static_cast<size_t>(
          std::find(Steering::ArmNames().begin(), Steering::ArmNames().end(), family) -
          Steering::ArmNames().begin());
      ASSERT_LT(a, shares.size()) << family;
      EXPECT_GE(shares[a], YieldBandit::kFloor - 1e-12) << family << " in epoch " << epoch;
    }
  }
}

TEST(SteeringYield, TheArmsTableForPeopleHasARowPerArm) {
  Steering s(1, Shard{}, 4, SteerMode::kYield);
  s.Record(0, *FindFocus("mixed_dtypes"), {}, 3.0, {HashHex("x")});
  s.Record(1, *FindFocus("deployment"), {"decompose.mm"}, 1.0, {});
  const std::string text = ArmsTableText(s.ToJson());
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 1 + 18) << text;
  EXPECT_NE(text.find("mixed_dtypes                 1         3   75.0 %          1.0        0.0"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("deployment                   1         1   25.0 %          0.0        1.0"),
            std::string::npos)
      << text;
  EXPECT_EQ(ArmsTableText(Steering(1, Shard{}, 4).ToJson()), "") << "coverage steering";
  EXPECT_EQ(ArmsTableText(nlohmann::json()), "");
  EXPECT_EQ(ArmsTableText({{"arms", {1, {{"arm", 2}}}}}),
            "arm                   programs    core-s   share   filed bugs   rewrites\n")
      << "rows that are not one are left out";
}

TEST(SteeringYield, TheSummarySectionReadsBackAndRejectsWhatIsNotOne) {
  Steering s(1, Shard{}, 4, SteerMode::kYield);
  s.Record(0, 1, {"decompose.mm"}, 2.5, {HashHex("x")});
  s.Record(5, 0, {}, 1.0, {});
  const nlohmann::json j = s.ToJson();
  EXPECT_EQ(j["scheduler"], "yield");
  Steering back(1, Shard{}, 4, SteerMode::kYield);
  ASSERT_TRUE(back.FromJson(j).ok());
  EXPECT_EQ(back.ToJson(), j);
  // The scheduler must be the campaign's.
  Steering coverage(1, Shard{}, 4);
  EXPECT_FALSE(coverage.FromJson(j).ok());
  EXPECT_FALSE(back.FromJson(coverage.ToJson()).ok());
  auto rejects = [&](nlohmann::json k, const std::string& fragment) {
    Steering t(1, Shard{}, 4, SteerMode::kYield);
    Status st = t.FromJson(k);
    ASSERT_FALSE(st.ok()) << k.dump();
    EXPECT_NE(st.message().find(fragment), std::string::npos) << st.message();
  };
  const std::string focus = Foci()[1].name;
  auto k = j;
  k["epochs"][0]["foci"][focus]["spend_s"] = -1;
  rejects(k, "\"spend_s\" must be a number of seconds");
  k["epochs"][0]["foci"][focus]["spend_s"] = "1";
  rejects(k, "\"spend_s\" must be a number of seconds");
  k = j;
  k["epochs"][0]["foci"][focus]["buckets"] = {{"../../etc", 1}};
  rejects(k, "not a bucket's hash");
  k["epochs"][0]["foci"][focus]["buckets"] = {{HashHex("x"), 2}};
  rejects(k, "up to the focus's");
  k = j;
  k["epochs"][0]["foci"][focus].erase("buckets");
  rejects(k, "\"buckets\" must be an object");
  // A coverage summary's focus with the yield scheduler's fields is not one.
  Steering plain(1, Shard{}, 4);
  plain.Record(0, 1, {});
  k = plain.ToJson();
  k["epochs"][0]["foci"][focus]["spend_s"] = 1.0;
  Steering t(1, Shard{}, 4);
  EXPECT_FALSE(t.FromJson(k).ok());
}

}  // namespace
}  // namespace mmdiff
