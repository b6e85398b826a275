// Tests for the yield bandit: shares that sum to one above the floor, the spend on the arm that
// finds most per core-second, the cases of a dear arm, and draws that follow the seed.
#include "src/campaign/yield_bandit.h"

#include <gtest/gtest.h>

#include <numeric>

namespace mmdiff {
namespace {

double Sum(const std::vector<double>& v) { return std::accumulate(v.begin(), v.end(), 0.0); }

TEST(YieldBandit, SharesSumToOneAboveTheFloorAndAClosedArmGetsNothing) {
  std::vector<ArmStats> arms = {{10, 10, 9}, {10, 10, 0}, {0, 0, 0}, {50, 400, 1}, {3, 9, 0}};
  const std::vector<bool> open = {true, true, true, true, false};
  ArmShares s = YieldBandit::Shares(arms, open, 1);
  EXPECT_NEAR(Sum(s.spend), 1, 1e-12);
  EXPECT_NEAR(Sum(s.cases), 1, 1e-12);
  for (size_t a = 0; a < 4; ++a) EXPECT_GE(s.spend[a], YieldBandit::kFloor) << a;
  EXPECT_EQ(s.spend[4], 0);
  EXPECT_EQ(s.cases[4], 0);
  // Nothing open: nothing to share.
  s = YieldBandit::Shares(arms, std::vector<bool>(5, false), 1);
  EXPECT_EQ(Sum(s.spend), 0);
  // More arms than the floor allows: each its even share.
  std::vector<ArmStats> many(60);
  s = YieldBandit::Shares(many, std::vector<bool>(60, true), 1);
  for (double v : s.spend) EXPECT_NEAR(v, 1.0 / 60, 1e-12);
}

TEST(YieldBandit, TheArmThatFindsMostPerCoreSecondGetsMostOfTheSpend) {
  // Ten arms, 100 core-seconds each; arm 3 found 20, the others 1 each.
  std::vector<ArmStats> arms(10, ArmStats{50, 100, 1});
  arms[3].reward = 20;
  ArmShares s = YieldBandit::Shares(arms, std::vector<bool>(10, true), 7);
  EXPECT_GT(s.spend[3], 0.7);
  for (size_t a = 0; a < 10; ++a)
    if (a != 3) EXPECT_LT(s.spend[a], 0.05) << a;
  // Finding as much at a tenth of the price is better: arm 5 found 20 in 10 core-seconds.
  arms[5] = {5, 10, 20};
  s = YieldBandit::Shares(arms, std::vector<bool>(10, true), 7);
  EXPECT_GT(s.spend[5], s.spend[3]);
}

TEST(YieldBandit, UntriedArmsAreAlikeAndAnUntriedOneIsTriedBesideAProvenOne) {
  std::vector<ArmStats> none(4);
  ArmShares s = YieldBandit::Shares(none, std::vector<bool>(4, true), 3);
  for (double v : s.spend) EXPECT_NEAR(v, 0.25, 0.05);
  // One arm ran a while and found at the campaign's rate; a new one, unknown, still gets a share
  // well above the floor (its rate might be higher).
  std::vector<ArmStats> arms = {{100, 200, 10}, {0, 0, 0}};
  s = YieldBandit::Shares(arms, {true, true}, 3);
  EXPECT_GT(s.spend[1], 0.2);
}

TEST(YieldBandit, ADearArmGetsFewerCasesForItsShare) {
  // Alike in finds per core-second; arm 1's programs take 4 times as long.
  std::vector<ArmStats> arms = {{100, 100, 10}, {25, 100, 10}};
  ArmShares s = YieldBandit::Shares(arms, {true, true}, 5);
  const double per_case_0 = s.spend[0] / s.cases[0], per_case_1 = s.spend[1] / s.cases[1];
  EXPECT_NEAR(per_case_1 / per_case_0, 4, 1e-9) << "each arm's own cost per program";
}

// The prior's programs of the campaign's mean cost stand in only for those an arm lacks: a cheap
// arm with a few (discounted) programs of its own costs what they took, so its share of the spend
// buys it the cases it should; an arm with one program is half its own, half the mean.
TEST(YieldBandit, ACheapArmCostsWhatItsOwnProgramsTook) {
  std::vector<ArmStats> arms = {{3, 0.3, 0}, {100, 400, 10}, {1, 1, 0}};
  ArmShares s = YieldBandit::Shares(arms, {true, true, true}, 5);
  const double mean = 401.3 / 104;
  EXPECT_NEAR(s.spend[0] / s.cases[0] / (s.spend[1] / s.cases[1]), 0.1 / 4, 1e-9);
  EXPECT_NEAR(s.spend[2] / s.cases[2] / (s.spend[1] / s.cases[1]), (1 + mean) / 2 / 4, 1e-9);
  // Programs that took no measurable time cost a thousandth of the mean, not nothing.
  arms[0].spend_s = 0;
  s = YieldBandit::Shares(arms, {true, true, true}, 5);
  EXPECT_NEAR(s.spend[0] / s.cases[0] / (s.spend[1] / s.cases[1]), 1e-3 * (401.0 / 104) / 4, 1e-9);
}

TEST(YieldBandit, TheSameSeedGivesTheSameShares) {
  std::vector<ArmStats> arms = {{10, 30, 2}, {10, 20, 2}, {10, 25, 1}};
  const std::vector<bool> open(3, true);
  EXPECT_EQ(YieldBandit::Shares(arms, open, 11).spend, YieldBandit::Shares(arms, open, 11).spend);
  bool differs = false;
  for (uint64_t seed = 12; seed < 20 && !differs; ++seed)
    differs =
        YieldBandit::Shares(arms, open, seed).spend != YieldBandit::Shares(arms, open, 11).spend;
  EXPECT_TRUE(differs) << "the shares are estimated from draws of the seed's stream";
}

}  // namespace
}  // namespace mmdiff
