// Foci: named overlays of the generation policy, each raising the odds of the forms one family of
// Inductor's rewrites matches (its attention fusions, the addmm family's fusions and
// decompositions, the joint graph's cast and view eliminations). A steered campaign
// (src/campaign/steering.h) draws each case's focus; `mmdiff gen --focus NAME` regenerates a case.
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "src/gen/policy.h"

namespace mmdiff {

struct Focus {
  std::string name;
  std::string aims;  // the rewrites it aims at, for --help and docs
  // The policy keys it sets (over the campaign's policy); empty for "as_given".
  nlohmann::json overlay;
  // A target focus's one rewrite, named as `mmdiff rewrites` names it (src/gen/fusion_targets.h);
  // "" for the broad foci, which aim at a family.
  std::string target;
  // Whether coverage steering draws it (a broad focus aimed at rewrites). The yield scheduler
  // (src/campaign/steering.h) draws every focus: those aimed at bugs of a kind too (mixed dtypes,
  // training, autocast, devices).
  bool for_rewrites = true;
  // A target focus's family, the yield scheduler's arm it belongs to: "rewrite_targets" (the
  // attention fusions and the joint graph's and post-grad rewrites, src/gen/fusion_targets.h) or
  // "deployment_targets" (the lowerings and freezing passes, deployment_targets.h); "" for the
  // broad foci, each an arm of its own.
  std::string family;
};

// The foci in a fixed order (a campaign's steering state indexes them): the broad foci, the first
// "as_given", then the target foci.
const std::vector<Focus>& Foci();
std::optional<size_t> FindFocus(std::string_view name);
// The broad foci's names, comma-separated, for --help (the target foci are too many to list).
std::string BroadFocusNames();
// `base` with focus `index`'s overlay; the result is a valid policy (swarm and every key the focus
// leaves alone are the base's).
GenPolicy Focused(const GenPolicy& base, size_t index);

}  // namespace mmdiff
