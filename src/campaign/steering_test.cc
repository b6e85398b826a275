// Tests for steering: epochs and their barrier, odds that follow rare rewrites, a deterministic
// focus per case, and a summary section that reads back exactly (and rejects hostile ones).
#include "src/campaign/steering.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>

#include "src/gen/focus.h"

namespace mmdiff {
namespace {

TEST(Steering, EpochsCountTheShardsOwnCasesAndWaitForTheEpochTwoBefore) {
  Steering s(1, Shard{1, 3}, 4);  // shard 1 of 3: cases 1, 4, 7, ...; 4 cases per epoch
  EXPECT_EQ(s.EpochOf(1), 0);
  EXPECT_EQ(s.EpochOf(10), 0);  // the shard's fourth case
  EXPECT_EQ(s.EpochOf(13), 1);
  EXPECT_EQ(s.EpochOf(25), 2);
  EXPECT_TRUE(s.Ready(13, 1, -1));    // epoch 1 needs nothing
  EXPECT_FALSE(s.Ready(25, 10, -1));  // epoch 2 needs epoch 0's cases (1, 4, 7, 10) done
  EXPECT_TRUE(s.Ready(25, 13, -1));
  EXPECT_TRUE(s.Ready(25, 10, 8));  // ... those in the budget: 1, 4 and 7
  EXPECT_FALSE(s.Ready(25, 7, 8));
}

// The broad foci coverage steering draws (aimed at a family of rewrites) and the target foci (one
// fusion each), by index.
std::vector<size_t> Broad(bool broad = true) {
  std::vector<size_t> out;
  for (size_t f = 0; f < Foci().size(); ++f)
    if (broad ? Foci()[f].target.empty() && Foci()[f].for_rewrites : !Foci()[f].target.empty())
      out.push_back(f);
  return out;
}

// The foci aimed at bugs of a kind rather than rewrites are the yield scheduler's: coverage
// steering, whose odds follow rewrites, never draws them.
TEST(Steering, CoverageSteeringLeavesTheFociAimedAtBugsToTheYieldScheduler) {
  Steering s(7, Shard{}, 8);
  std::vector<size_t> bugs;
  for (size_t f = 0; f < Foci().size(); ++f)
    if (Foci()[f].target.empty() && !Foci()[f].for_rewrites) bugs.push_back(f);
  ASSERT_EQ(bugs.size(), 7u);
  for (size_t f : Broad())
    for (int i = 0; i < 10; ++i) s.Record(i, f, {"common"});
  for (int64_t epoch : {0, 2})
    for (size_t f : bugs) EXPECT_EQ(s.Odds(epoch)[f], 0) << Foci()[f].name;
  for (int64_t i = 0; i < 2000; ++i) EXPECT_TRUE(Foci()[s.FocusOf(i)].for_rewrites) << i;
}

double Sum(const std::vector<double>& odds, const std::vector<size_t>& foci) {
  double sum = 0;
  for (size_t f : foci) sum += odds.at(f);
  return sum;
}

TEST(Steering, OddsFollowTheFociThatReachRareRewrites) {
  Steering s(7, Shard{}, 8);
  const size_t n = Foci().size();
  const std::vector<size_t> broad = Broad(), targets = Broad(false);
  ASSERT_GE(broad.size(), 3u);
  ASSERT_FALSE(targets.empty());
  std::vector<double> first = s.Odds(0);
  ASSERT_EQ(first.size(), n);
  EXPECT_NEAR(std::accumulate(first.begin(), first.end(), 0.0), 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(first[0], Steering::kAsGiven);  // nothing known: every other focus alike
  for (size_t f : broad) {
    if (f > 1) {
      EXPECT_DOUBLE_EQ(first[f], first[1]);
    }
  }
  // 8 cases an epoch: 3 slots (kTargets of them), one target each.
  ASSERT_EQ(s.Slots(0).size(), 3u);
  for (const auto& [position, f] : s.Slots(0)) EXPECT_DOUBLE_EQ(first[f], 1.0 / 8) << position;
  EXPECT_NEAR(Sum(first, targets), 3.0 / 8, 1e-12);
  // Epoch 0: every broad focus runs 10 programs; all reach "common", focus 2 alone reaches "rare".
  for (size_t f : broad)
    for (int i = 0; i < 10; ++i)
      s.Record(static_cast<int64_t>(f * 10 + i) % 8, f,
               f == 2 && i == 0 ? std::set<std::string>{"common", "rare"}
                                : std::set<std::string>{"common"});
  for (size_t f : broad) EXPECT_EQ(s.Odds(1)[f], first[f]) << "epoch 1 reads nothing of epoch 0";
  std::vector<double> odds = s.Odds(2);
  EXPECT_NEAR(std::accumulate(odds.begin(), odds.end(), 0.0), 1.0, 1e-12);
  for (size_t f : broad) {
    if (f != 0 && f != 2) {
      EXPECT_GT(odds[2], 2 * odds[f]) << f;
    }
  }
  EXPECT_GE(odds[0], Steering::kAsGiven - 1e-12);
  for (size_t f : broad) EXPECT_GE(odds[f], Steering::kFloor * 0.5 - 1e-12);
}

// A target focus is open until its fusion is reached (by any focus's program) or it has had
// kTargetTries programs, a slot of the epoch before counting as one; the open ones with the fewest
// programs have a slot each (every target is tried once before any twice), and with none open the
// broad foci share everything.
TEST(Steering, TargetFociHaveSlotsUntilTheirFusionIsReachedOrTried) {
  const std::vector<size_t> broad = Broad(), targets = Broad(false);
  ASSERT_GE(targets.size(), 4u);
  const size_t reached = targets[0], tried = targets[1], once = targets[2], untried = targets[3];
  constexpr int64_t kEpoch = 1000;  // slots for every target: epochs 0 and 1 give each one
  Steering s(7, Shard{}, kEpoch);   // records in epoch 0, read by epoch 2
  ASSERT_EQ(s.Slots(0).size(), targets.size());
  s.Record(0, broad[1], {Foci()[reached].target});  // a broad focus reaches the first's fusion
  for (int64_t i = 0; i < Steering::kTargetTries; ++i) s.Record(1 + i, tried, {"common"});
  s.Record(10, once, {});
  std::vector<double> odds = s.Odds(2);
  EXPECT_EQ(odds[reached], 0);
  EXPECT_EQ(odds[tried], 0);
  EXPECT_EQ(odds[once], 0) << "tried once (and once more in epoch 1) while others are untried";
  EXPECT_DOUBLE_EQ(odds[untried], 1.0 / kEpoch);
  EXPECT_EQ(s.Slots(2).size(), targets.size() - 3);
  EXPECT_NEAR(Sum(odds, targets), static_cast<double>(targets.size() - 3) / kEpoch, 1e-12);
  EXPECT_NEAR(Sum(odds, broad), 1 - Sum(odds, targets), 1e-12);
  // Every other target tried once: `once` and they have slots again.
  for (size_t f : targets)
    if (f != reached && f != tried && f != once) s.Record(20, f, {});
  odds = s.Odds(2);
  EXPECT_DOUBLE_EQ(odds[once], 1.0 / kEpoch);
  EXPECT_EQ(s.Slots(2).size(), targets.size() - 2);
  // Every target's fusion reached: the broad foci have it all, as_given its share.
  Steering done(7, Shard{}, 16);
  for (size_t f : targets) done.Record(0, f, {Foci()[f].target});
  odds = done.Odds(100);
  EXPECT_TRUE(done.Slots(100).empty());
  EXPECT_EQ(Sum(odds, targets), 0);
  EXPECT_NEAR(Sum(odds, broad), 1, 1e-12);
  EXPECT_DOUBLE_EQ(odds[0], Steering::kAsGiven);
}

// A target whose fusion the installed torch does not register (2.15.0 dropped the training forms
// of 13 and 15 to 24), or whose lowering this CPU cannot make (an AMX micro-kernel), is never
// open; a target that is neither (a freezing pass) is not listed and stays open; and the set
// reads back from the summary.
TEST(Steering, OnlyTargetsTheInstallCanReachHereAreOpen) {
  const std::vector<size_t> broad = Broad(), targets = Broad(false);
  std::set<std::string> installed;
  bool lowering_installed = false;
  const size_t none = Foci().size();
  size_t registered = none, other = none;
  std::vector<size_t> missing;
  for (size_t f : targets) {
    const std::string& t = Foci()[f].target;
    const bool lowering = t.rfind("lowering:", 0) == 0;
    if (t.rfind("_sfdp_pattern_", 0) != 0 && !lowering)
      other = f;  // a freezing pass, post_grad.addmm: never gated
    else if (installed.size() < 5 || (lowering && !lowering_installed))
      installed.insert(t), registered = f, lowering_installed |= lowering;
    else
      missing.push_back(f);
  }
  ASSERT_NE(other, none) << "a target that is not an attention fusion's";
  ASSERT_FALSE(missing.empty());
  constexpr int64_t kEpoch = 1000;  // a slot for every open target
  Steering s(7, Shard{}, kEpoch);
  s.SetReachableTargets(installed);
  std::vector<double> odds = s.Odds(0);
  for (size_t f : missing) EXPECT_EQ(odds[f], 0) << Foci()[f].name;
  const size_t open = targets.size() - missing.size();  // the installed and the others
  EXPECT_EQ(s.Slots(0).size(), open);
  EXPECT_DOUBLE_EQ(odds[registered], 1.0 / kEpoch);
  EXPECT_DOUBLE_EQ(odds[other], odds[registered]);
  EXPECT_NEAR(Sum(odds, broad), 1 - static_cast<double>(open) / kEpoch, 1e-12);
  EXPECT_GT(Steering(7, Shard{}, kEpoch).Odds(0)[missing[0]], 0) << "unknown: every target open";
  Steering back(7, Shard{}, kEpoch);
  ASSERT_TRUE(back.FromJson(s.ToJson()).ok());
  EXPECT_EQ(back.Odds(0), odds);
  EXPECT_EQ(back.Slots(0), s.Slots(0));
  EXPECT_EQ(back.ToJson(), s.ToJson());
}

// With few targets open, each has one case of every epoch for certain (its program is read only
// two epochs later); the broad foci draw the rest.
TEST(Steering, FewOpenTargetsHaveOneCaseAnEpochEach) {
  const std::vector<size_t> broad = Broad(), targets = Broad(false);
  ASSERT_GE(targets.size(), 3u);
  Steering s(7, Shard{}, 8);
  for (size_t k = 2; k < targets.size(); ++k) s.Record(0, targets[k], {Foci()[targets[k]].target});
  // From epoch 3 on (epoch 1 drew its 3 slots from every target, and epoch 2 gave the first slot
  // to those two that epoch 1 did not have), both have one slot an epoch.
  for (int64_t epoch = 3; epoch < 6; ++epoch) {
    std::vector<double> odds = s.Odds(epoch);
    EXPECT_DOUBLE_EQ(odds[targets[0]], 1.0 / 8);
    EXPECT_DOUBLE_EQ(odds[targets[1]], 1.0 / 8);
    EXPECT_NEAR(Sum(odds, broad), 1 - 2.0 / 8, 1e-12);
    EXPECT_DOUBLE_EQ(odds[0], Steering::kAsGiven);
    std::map<size_t, int> cases;
    for (int64_t i = epoch * 8; i < epoch * 8 + 8; ++i) ++cases[s.FocusOf(i)];
    EXPECT_EQ(cases[targets[0]], 1) << epoch;
    EXPECT_EQ(cases[targets[1]], 1) << epoch;
  }
}

// A campaign whose target programs reach nothing: each epoch gives its slots to targets with the
// fewest programs, so every target has its kTargetTries programs, never two in one epoch, and the
// first tries come before any second.
TEST(Steering, EveryOpenTargetHasItsTriesBreadthFirst) {
  const std::vector<size_t> targets = Broad(false);
  constexpr int64_t kEpoch = 64, kSlots = 25;  // kTargets of 64 cases
  const int64_t epochs = 2 + Steering::kTargetTries *
                                 ((static_cast<int64_t>(targets.size()) + kSlots - 1) / kSlots + 1);
  for (Shard shard : {Shard{}, Shard{1, 2}}) {
    Steering s(11, shard, kEpoch);
    std::map<size_t, int64_t> programs;
    int64_t last_first_try = -1, first_second_try = -1;
    for (int64_t epoch = 0; epoch < epochs; ++epoch) {
      EXPECT_LE(static_cast<int64_t>(s.Slots(epoch).size()), kSlots);
      std::set<size_t> this_epoch;
      for (int64_t k = 0; k < kEpoch; ++k) {
        const int64_t index = shard.index + (epoch * kEpoch + k) * shard.count;
        const size_t f = s.FocusOf(index);
        s.Record(index, f, {});
        if (Foci()[f].target.empty()) continue;
        EXPECT_TRUE(this_epoch.insert(f).second) << Foci()[f].name << " twice in epoch " << epoch;
        if (++programs[f] == 1) last_first_try = epoch;
        if (programs[f] == 2 && first_second_try < 0) first_second_try = epoch;
      }
    }
    for (size_t f : targets) EXPECT_EQ(programs[f], Steering::kTargetTries) << Foci()[f].name;
    EXPECT_LT(last_first_try, first_second_try);
    EXPECT_LE(last_first_try, (static_cast<int64_t>(targets.size()) + kSlots - 1) / kSlots);
  }
}

// A campaign whose programs reach no rewrite (steered without inductor) keeps every broad focus
// alike.
TEST(Steering, WithoutAnyRewriteTheOddsStayEven) {
  Steering s(7, Shard{}, 100);
  for (size_t f : Broad())
    for (int i = 0; i < 10; ++i) s.Record(static_cast<int64_t>(f * 10 + i), f, {});
  std::vector<double> odds = s.Odds(2), first = s.Odds(0);
  for (size_t f : Broad()) EXPECT_EQ(odds[f], first[f]) << Foci()[f].name;
  for (double o : odds) EXPECT_TRUE(std::isfinite(o));
  EXPECT_NEAR(std::accumulate(odds.begin(), odds.end(), 0.0), 1.0, 1e-12);
}

// A case's focus follows the records that reached its odds, whenever it was first asked: a draw
// made before an earlier epoch's records (as a resumed campaign adopts folders) is not kept.
TEST(Steering, AFocusDrawnBeforeTheRecordsOfItsOddsIsDrawnAgain) {
  Steering early(3, Shard{}, 10), late(3, Shard{}, 10);
  for (int64_t i = 20; i < 30; ++i) (void)early.FocusOf(i);  // epoch 2, before any record
  for (Steering* s : {&early, &late})  // every focus explored; focus 2 alone reaches "rare"
    for (size_t f = 0; f < Foci().size(); ++f)
      for (int64_t i = 0; i < 10; ++i)
        s->Record(i, f,
                  f == 2 && i == 0 ? std::set<std::string>{"common", "rare"}
                                   : std::set<std::string>{"common"});
  int differs_from_nothing_known = 0;
  Steering none(3, Shard{}, 10);
  for (int64_t i = 20; i < 30; ++i) {
    EXPECT_EQ(early.FocusOf(i), late.FocusOf(i)) << i;
    differs_from_nothing_known += late.FocusOf(i) != none.FocusOf(i);
  }
  EXPECT_NE(late.Odds(2), none.Odds(2));
  EXPECT_GT(differs_from_nothing_known, 0);
}

TEST(Steering, EachCaseHasOneFocusAndTheDrawsSpreadOverThem) {
  Steering a(3, Shard{}, 16), b(3, Shard{}, 16), other(4, Shard{}, 16);
  std::vector<int> count(Foci().size(), 0);
  int differs = 0;
  constexpr int kDraws = 20000;
  for (int64_t i = 0; i < kDraws; ++i) {
    EXPECT_EQ(a.FocusOf(i), b.FocusOf(i));
    differs += a.FocusOf(i) != other.FocusOf(i);
    ++count[a.FocusOf(i)];
  }
  EXPECT_GT(differs, 0);
  EXPECT_NEAR(count[0] / double{kDraws}, Steering::kAsGiven, 0.02);
  // Nothing recorded: the broad foci alike (about 5 % each), the targets alike (under 1 % each).
  for (size_t f : Broad()) EXPECT_GT(count[f], kDraws / 40) << Foci()[f].name;
  for (size_t f : Broad(false)) EXPECT_GT(count[f], 0) << Foci()[f].name;
}

TEST(Steering, TheSummarySectionReadsBackAndRejectsWhatIsNotOne) {
  Steering s(1, Shard{}, 4);
  s.Record(0, 1, {"_sfdp_pattern_1_inference", "decompose.mm"});
  s.Record(5, 0, {});
  s.Record(9, 3, {"decompose.mm"});
  Steering back(1, Shard{}, 4);
  ASSERT_TRUE(back.FromJson(s.ToJson()).ok());
  EXPECT_EQ(back.ToJson(), s.ToJson());
  EXPECT_EQ(back.Odds(4), s.Odds(4));
  EXPECT_EQ(back.ProgramsPerFocus(), s.ProgramsPerFocus());

  auto rejects = [&](nlohmann::json j, const std::string& fragment) {
    Steering t(1, Shard{}, 4);
    Status st = t.FromJson(j);
    ASSERT_FALSE(st.ok()) << j.dump();
    EXPECT_NE(st.message().find(fragment), std::string::npos) << st.message();
  };
  nlohmann::json j = s.ToJson();
  rejects(nlohmann::json::array(), "must be an object");
  auto k = j;
  k["epoch_cases"] = 8;
  rejects(k, "\"epoch_cases\" is not this campaign's 4");
  k = j;
  k["epochs"][0]["foci"]["no_such_focus"] = {{"programs", 1},
                                             {"rewrites", nlohmann::json::object()}};
  rejects(k, "unknown focus \"no_such_focus\"");
  k = j;
  k["epochs"][0]["foci"]["attention"]["rewrites"]["decompose.mm"] = 99;
  rejects(k, "up to the focus's");
  k = j;
  k["epochs"][0]["foci"]["attention"]["rewrites"]["<script>"] = 1;
  rejects(k, "not one");
  k = j;
  k["epochs"].push_back(j["epochs"][0]);
  rejects(k, "twice");
  k = j;
  k["epochs"][0]["epoch"] = -1;
  rejects(k, "an epoch must be");
  k = j;
  k["reachable_targets"] = "_sfdp_pattern_1_inference";
  rejects(k, "must be an array");
  k["reachable_targets"] = {"_sfdp_pattern_1_inference", "post_grad.addmm"};
  rejects(k, "neither an attention fusion's nor a lowering's");
  k["reachable_targets"] = {"lowering:template.CppGemmTemplate", 7};
  rejects(k, "neither an attention fusion's nor a lowering's");
  k = j;
  k["installed_fusions"] = {"_sfdp_pattern_1_inference", "post_grad.addmm"};  // an older summary
  rejects(k, "\"installed_fusions\" holds a name");
}

}  // namespace
}  // namespace mmdiff
