// The yield scheduler's bandit: how a campaign splits its core-seconds between arms (foci), from
// what each arm found per core-second it consumed.
//
// Each arm's finds are taken as a Poisson process in its spend: finds ~ Poisson(rate * spend_s).
// With a Gamma prior the rate's posterior is Gamma(prior_shape + reward, prior_rate + spend_s),
// and an arm's share of the spend is the probability that its rate is the best (Thompson
// sampling, estimated from kSamples joint draws of a stream the caller seeds), raised to a floor so
// that no open arm starves. The caller discounts old records (recent finds count more: a family's
// bugs run out), so the posterior follows the arms as they change.
//
// Spend shares become case odds by each arm's cost per program: an arm twice as dear gets half
// the cases for the same share of the core-seconds.
#pragma once

#include <cstdint>
#include <vector>

namespace mmdiff {

struct ArmStats {
  double programs = 0;  // programs run (discounted)
  double spend_s = 0;   // the core-seconds they took (discounted)
  double reward = 0;    // what they found first (discounted): new root causes, new rewrites
  double buckets = 0, rewrites = 0;  // the parts of reward, for tables
};

struct ArmShares {
  std::vector<double> spend;  // share of the core-seconds per arm; 0 for a closed arm; sums to 1
  std::vector<double> cases;  // share of the cases per arm, likewise
};

class YieldBandit {
 public:
  // Every open arm gets at least kFloor of the spend ("a few percent").
  static constexpr double kFloor = 0.02;
  static constexpr int kSamples = 512;
  // The prior: one find at the campaign's overall rate, so that an untried arm counts as an
  // average one whose rate is very uncertain (tried early, kept only if it finds).
  static constexpr double kPriorShape = 1.0;
  // Programs of the campaign's mean cost that stand in for an arm's cost before it has its own
  // (for those it lacks of this many).
  static constexpr double kPriorPrograms = 2.0;
  // An arm's cost per program is counted as at least this share of the campaign's mean (programs
  // that took no measurable time must not take every case).
  static constexpr double kMinCostShare = 1e-3;

  // The shares for `arms` (open[i]: arm i may be drawn), from the stream `seed`. With no open arm
  // every share is 0.
  static ArmShares Shares(const std::vector<ArmStats>& arms, const std::vector<bool>& open,
                          uint64_t seed);
};

}  // namespace mmdiff
