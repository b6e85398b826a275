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
  std::string_view name;
  std::string_view aims;  // the rewrites it aims at, for --help and docs
  // The policy keys it sets (over the campaign's policy); empty for "as_given".
  nlohmann::json overlay;
};

// The foci in a fixed order (a campaign's steering state indexes them); the first is "as_given".
const std::vector<Focus>& Foci();
std::optional<size_t> FindFocus(std::string_view name);
std::vector<std::string> FocusNames();
// `base` with focus `index`'s overlay; the result is a valid policy (swarm and every key the focus
// leaves alone are the base's).
GenPolicy Focused(const GenPolicy& base, size_t index);

}  // namespace mmdiff
