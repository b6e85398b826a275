// The paths of one case.
#include "src/campaign/case_paths.h"

#include <algorithm>

#include "src/ir/paths.h"
#include "src/support/rng.h"

namespace mmdiff {

std::vector<std::string> CasePaths(
    const std::vector<std::string>& paths, const std::vector<std::string>& variants,
    const GenPolicy& policy, const Program& p, uint64_t case_seed,
    const std::function<const PathTraits*(const std::string&)>& traits) {
  // One draw per question, each from its own salt of the case's seed: adding a question never
  // changes the answer to another.
  auto unit = [&](uint64_t salt) {
    return static_cast<double>(SplitMix64(case_seed ^ salt) >> 11) * 0x1.0p-53;
  };
  std::vector<std::string> out;
  const bool slow = unit(0x616f7469ull) < policy.aoti_rate;
  for (const auto& path : paths)
    if (const PathTraits* t = traits(path); slow || !t || !t->slow()) out.push_back(path);
  if (variants.empty() || unit(0x76617269ull) >= policy.variant_rate) return out;
  std::vector<std::string> can;
  std::vector<double> weights;
  double total = 0;
  for (const auto& v : variants) {
    const PathRow* row = FindPath(v);
    const double w = VariantWeightOf(policy, v, /*unweighed=*/1);  // a test path: 1
    if (!row || w <= 0 || (row->limits.inference_only[0] != '\0' && Trains(p)) ||
        std::find(out.begin(), out.end(), v) != out.end())
      continue;
    can.push_back(v);
    weights.push_back(w);
    total += w;
  }
  double pick = unit(0x7069636bull) * total;
  for (size_t i = 0; i < can.size(); ++i) {
    pick -= weights[i];
    if (pick < 0 || i + 1 == can.size()) {
      out.push_back(can[i]);
      break;
    }
  }
  return out;
}

}  // namespace mmdiff
