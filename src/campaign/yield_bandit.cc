// Thompson sampling over Gamma posteriors of each arm's finds per core-second.
#include "src/campaign/yield_bandit.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "src/support/rng.h"

namespace mmdiff {

namespace {

// A uniform draw in (0, 1].
double Open01(Rng& rng) { return 1.0 - rng.UniformDouble(); }

double Normal(Rng& rng) {  // Box-Muller
  return std::sqrt(-2.0 * std::log(Open01(rng))) *
         std::cos(2.0 * std::numbers::pi * rng.UniformDouble());
}

// A Gamma(shape, 1) draw (Marsaglia and Tsang, 2000); a shape below 1 is boosted by U^(1/shape).
double Gamma(Rng& rng, double shape) {
  if (shape < 1) return Gamma(rng, shape + 1) * std::pow(Open01(rng), 1.0 / shape);
  const double d = shape - 1.0 / 3.0, c = 1.0 / std::sqrt(9.0 * d);
  for (;;) {
    const double x = Normal(rng);
    double v = 1 + c * x;
    if (v <= 0) continue;
    v = v * v * v;
    if (std::log(Open01(rng)) < 0.5 * x * x + d - d * v + d * std::log(v)) return d * v;
  }
}

}  // namespace

ArmShares YieldBandit::Shares(const std::vector<ArmStats>& arms, const std::vector<bool>& open,
                              uint64_t seed) {
  const size_t n = arms.size();
  ArmShares out{std::vector<double>(n, 0.0), std::vector<double>(n, 0.0)};
  std::vector<size_t> live;
  double programs = 0, spend = 0, reward = 0;
  for (size_t a = 0; a < n; ++a) {
    programs += arms[a].programs, spend += arms[a].spend_s, reward += arms[a].reward;
    if (a < open.size() && open[a]) live.push_back(a);
  }
  if (live.empty()) return out;
  const double mean_cost = programs > 0 && spend > 0 ? spend / programs : 1.0;
  // The prior's mean is the campaign's rate so far, with one find in one program of mean cost
  // added (so that it is never 0, and high while little is known).
  const double prior_rate = kPriorShape / ((reward + kPriorShape) / (spend + mean_cost));
  std::vector<int> best(n, 0);
  Rng rng(seed);
  for (int s = 0; s < kSamples; ++s) {
    size_t top = live.front();
    double top_rate = -1;
    for (size_t a : live) {
      const double rate = Gamma(rng, kPriorShape + arms[a].reward) / (prior_rate + arms[a].spend_s);
      if (rate > top_rate) top = a, top_rate = rate;
    }
    ++best[top];
  }
  const double k = static_cast<double>(live.size());
  const double floor = std::min(kFloor, 1.0 / k);
  double cases = 0;
  for (size_t a : live) {
    out.spend[a] = floor + (1 - floor * k) * best[a] / static_cast<double>(kSamples);
    // The prior's programs stand in for those the arm lacks of kPriorPrograms only: an arm with
    // programs of its own costs what they took (seen on 2.11.0: with the discount, two programs
    // at the campaign's mean cost made a cheap arm's cost 4 to 5 times its own, and its spend
    // fell to half the floor).
    const double lack = std::max(0.0, kPriorPrograms - arms[a].programs);
    const double cost = std::max((arms[a].spend_s + lack * mean_cost) / (arms[a].programs + lack),
                                 kMinCostShare * mean_cost);
    out.cases[a] = out.spend[a] / cost;
    cases += out.cases[a];
  }
  for (size_t a : live) out.cases[a] /= cases;
  return out;
}

}  // namespace mmdiff
