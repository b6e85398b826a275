// The paths one case of a campaign runs: the campaign's own, less the slow ones on most programs,
// and on a share of the programs one of inductor's knob variants (a setting users compile with:
// freezing, max-autotune's C++ templates, the C++ wrapper, dynamic shapes), so that a bug only a
// setting has is looked for at a cost the policy sets.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "src/gen/policy.h"
#include "src/ir/path_traits.h"
#include "src/ir/program.h"

namespace mmdiff {

// The paths case `case_seed` runs for program `p`: `paths` (the campaign's), less those `traits`
// says are slow (PathTraits::slow: aoti) on all but policy.aoti_rate of the programs; and with
// policy.variant_rate one of `variants` (knob variants of the path catalogue), drawn by its policy
// weight (VariantWeightOf; 1 for a test path, which has none) among those that can run `p` (one
// that compiles for inference runs no training program) and are not among `paths` already. A pure
// function of its arguments: every draw comes from the case's seed.
std::vector<std::string> CasePaths(
    const std::vector<std::string>& paths, const std::vector<std::string>& variants,
    const GenPolicy& policy, const Program& p, uint64_t case_seed,
    const std::function<const PathTraits*(const std::string&)>& traits);

}  // namespace mmdiff
